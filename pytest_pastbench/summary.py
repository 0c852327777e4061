"""Item records → ``sequence_summary.json`` and ``sequence_comparison.json``.

The summary's shape is a contract (DESIGN §7). Per config: episodes → families →
capabilities → overall; capability and overall numbers are means over families, so a
family with many episodes does not dominate. Only this module pools trials and arms.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from pytest_pastbench.item_record import ItemRecord
from pytest_pastbench.stats import mean, paired_bootstrap_ci

SCHEMA_VERSION = 1
COMPONENTS = ("wp", "ra", "uc", "rh", "pr")
Pairs = list[tuple[float, float]]


def _round(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: _round(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_round(v) for v in value]
    return value


def _known_mean(values: list[float | None]) -> float | None:
    return mean(v for v in values if v is not None)


def _costs(records: list[ItemRecord]) -> dict[str, Any]:
    known = [r.cost_usd for r in records if r.cost_usd is not None]
    return {
        "infra_blocked": sum(1 for r in records if r.infra_blocked),
        "cost_usd": sum(known) if known else None,
        "tokens": sum(r.prompt_tokens + r.completion_tokens for r in records),
        "judge_errors": sum(r.judge_errors for r in records),
    }


def _arm_score(records: list[ItemRecord], arm: str) -> float | None:
    # Trials pool into one episode score; blocked items are not a 0, they are missing.
    return _known_mean([r.score for r in records if r.arm == arm and not r.infra_blocked])


def _family(records: list[ItemRecord], seed: int) -> tuple[dict[str, Any], Pairs]:
    by_episode: dict[str, list[ItemRecord]] = defaultdict(list)
    for record in records:
        by_episode[record.episode].append(record)
    on: list[float] = []
    off: list[float] = []
    pairs: Pairs = []
    mechs: list[float] = []
    components: dict[str, list[float]] = {c: [] for c in COMPONENTS}
    for episode in sorted(by_episode):
        items = by_episode[episode]
        s_on, s_off = _arm_score(items, "on"), _arm_score(items, "off")
        if s_on is not None:
            on.append(s_on)
        if s_off is not None:
            off.append(s_off)
        if s_on is not None and s_off is not None:
            pairs.append((s_on, s_off))
        scored = [r.mech for r in items if r.arm == "on" and not r.infra_blocked and r.mech]
        ep_mech = _known_mean([m.mech for m in scored])
        if ep_mech is not None:
            mechs.append(ep_mech)
        for name in COMPONENTS:
            value = _known_mean([getattr(m, name) for m in scored])
            if value is not None:
                components[name].append(value)
    entry = {
        "capability": records[0].capability,
        "s_on": mean(on),
        "s_off": mean(off),
        "delta": mean(a - b for a, b in pairs),
        "delta_ci": _ci({"f": pairs}, seed),
        "mech": mean(mechs),
        "n_episodes": len(by_episode),
        **_costs(records),
        "mech_components": {name: mean(components[name]) for name in COMPONENTS},
    }
    return entry, pairs


def _ci(groups: dict[str, Pairs], seed: int) -> list[float] | None:
    ci = paired_bootstrap_ci(groups, seed)
    return None if ci is None else list(ci)


def _scope(
    families: dict[str, dict[str, Any]],
    pairs: dict[str, Pairs],
    records: list[ItemRecord],
    seed: int,
) -> dict[str, Any]:
    """A capability or the overall entry: means over its families' numbers."""
    fams = families.values()
    return {
        "s_on": _known_mean([f["s_on"] for f in fams]),
        "s_off": _known_mean([f["s_off"] for f in fams]),
        "delta": _known_mean([f["delta"] for f in fams]),
        "delta_ci": _ci(pairs, seed),
        "mech": _known_mean([f["mech"] for f in fams]),
        "n_episodes": len({(r.family, r.episode) for r in records}),
        **_costs(records),
        "mech_components": {
            name: _known_mean([f["mech_components"][name] for f in fams]) for name in COMPONENTS
        },
    }


def _config(label: str, records: list[ItemRecord], seed: int) -> dict[str, Any]:
    by_family: dict[str, list[ItemRecord]] = defaultdict(list)
    for record in records:
        by_family[record.family].append(record)
    families: dict[str, dict[str, Any]] = {}
    pairs: dict[str, Pairs] = {}
    for fid in sorted(by_family):
        families[fid], pairs[fid] = _family(by_family[fid], seed)
    capabilities: dict[str, dict[str, Any]] = {}
    for cap in sorted({f["capability"] for f in families.values()}):
        ids = [fid for fid in families if families[fid]["capability"] == cap]
        capabilities[cap] = _scope(
            {fid: families[fid] for fid in ids},
            {fid: pairs[fid] for fid in ids},
            [r for r in records if r.family in ids],
            seed,
        )
    first = min(records, key=lambda r: r.nodeid)
    return {
        "label": label,
        "model": first.model,
        "agent": first.agent,
        "mechanisms": list(first.mechanisms),
        "overall": _scope(families, pairs, records, seed),
        "capabilities": capabilities,
        "families": families,
        "per_episode": _per_episode(records),
    }


def _per_episode(records: list[ItemRecord]) -> dict[str, Any]:
    """Tokens of one episode run (its on and off items together, each trial counted): what a
    mechanism set costs. Wall time is left to the records: the summary stays deterministic."""
    runs = len({(r.family, r.episode, r.trial) for r in records})
    measured = [r for r in records if not r.infra_blocked]
    return {
        "episode_runs": runs,
        "prompt_tokens": sum(r.prompt_tokens for r in measured) / runs if runs else None,
        "completion_tokens": sum(r.completion_tokens for r in measured) / runs if runs else None,
    }


def _wall_per_episode(records: list[ItemRecord], label: str) -> float | None:
    mine = [r for r in records if r.config_label == label]
    runs = len({(r.family, r.episode, r.trial) for r in mine})
    return sum(r.wall_s for r in mine if not r.infra_blocked) / runs if runs else None


def episode_scores(records: list[ItemRecord]) -> dict[str, dict[str, dict[str, tuple[Any, Any]]]]:
    """config label -> family -> episode -> (s_on, s_off), trials pooled, blocked items left out.

    The per-episode view that noise-aware comparisons of two runs bootstrap over.
    """
    grouped: dict[tuple[str, str, str], list[ItemRecord]] = defaultdict(list)
    for record in records:
        grouped[(record.config_label, record.family, record.episode)].append(record)
    result: dict[str, dict[str, dict[str, tuple[Any, Any]]]] = {}
    for (label, family, episode), items in sorted(grouped.items()):
        scores = (_arm_score(items, "on"), _arm_score(items, "off"))
        result.setdefault(label, {}).setdefault(family, {})[episode] = scores
    return result


AGENT_ERROR = "agent_error:"
QUOTED_AGENT_ERRORS = 3  # distinct reasons quoted; the rest are in the records
QUOTED_CHARS = 200


def agent_errors(records: list[ItemRecord]) -> dict[str, Any]:
    """Sessions that ended in ``agent_error`` and the first distinct reasons, in node-id order.

    An agent that fails every session scores S_on = S_off = 0: without this count the table
    would show a Δ of 0 with no hint why.
    """
    sessions, first = 0, []
    for record in sorted(records, key=lambda r: r.nodeid):
        for score in record.sessions:
            if score.reason and score.reason.startswith(AGENT_ERROR):
                sessions += 1
                reason = score.reason.removeprefix(AGENT_ERROR)[:QUOTED_CHARS]
                if reason not in first and len(first) < QUOTED_AGENT_ERRORS:
                    first.append(reason)
    return {"sessions": sessions, "first": first}


def agent_error_line(summary: Mapping[str, Any]) -> str | None:
    """``18 sessions agent_error (first: …; …)``, or None when there was none."""
    errors = (summary.get("run") or {}).get("agent_errors") or {}
    if not errors.get("sessions"):
        return None
    noun = "session" if errors["sessions"] == 1 else "sessions"
    return f"{errors['sessions']} {noun} agent_error (first: {'; '.join(errors['first'])})"


def build_summary(records: list[ItemRecord], run: dict[str, Any], seed: int) -> dict[str, Any]:
    """The ``sequence_summary.json`` document: one ``configs`` entry per label."""
    by_label: dict[str, list[ItemRecord]] = defaultdict(list)
    for record in records:
        by_label[record.config_label].append(record)
    configs = [_config(label, by_label[label], seed) for label in sorted(by_label)]
    return {
        "schema_version": SCHEMA_VERSION,
        "run": _round({**run, "seed": run.get("seed", seed), "agent_errors": agent_errors(records)}),
        "configs": _round(configs),
    }


_ROW_KEYS = ("delta", "delta_ci", "mech", "s_on", "s_off")


def ablation_rows(summary: dict[str, Any], records: list[ItemRecord]) -> list[dict[str, Any]]:
    """The paper's ablation table, one row per config: overall Δ, update Δ, Mech, prompt tokens
    and wall seconds per episode. Empty unless the run holds more than one mechanism set."""
    configs = summary.get("configs", [])
    if len({tuple(c.get("mechanisms") or []) for c in configs}) < 2:
        return []
    rows = []
    for config in configs:
        per_episode = config.get("per_episode") or {}
        rows.append(
            {
                "label": config["label"],
                "mechanisms": list(config.get("mechanisms") or []),
                "delta": config["overall"].get("delta"),
                "update_delta": (config["capabilities"].get("update") or {}).get("delta"),
                "mech": config["overall"].get("mech"),
                "prompt_tokens_per_episode": per_episode.get("prompt_tokens"),
                "wall_s_per_episode": _round(_wall_per_episode(records, config["label"])),
            }
        )
    # Base first, then single mechanisms, then larger sets: the paper's row order.
    return sorted(rows, key=lambda r: (len(r["mechanisms"]), r["mechanisms"], r["label"]))


def build_comparison(summary: dict[str, Any], records: list[ItemRecord] | None = None) -> dict[str, Any]:
    """``sequence_comparison.json``: Δ and Mech per config × scope, side by side; with several
    mechanism sets also the ablation table (``ablation``).

    Scope is "overall", a capability name, or a qualified family id (with a dot).
    """
    rows: list[dict[str, Any]] = []
    for config in sorted(summary["configs"], key=lambda c: c["label"]):
        scopes = [("overall", config["overall"])]
        scopes += sorted(config["capabilities"].items())
        scopes += sorted(config["families"].items())
        for scope, entry in scopes:
            row = {"label": config["label"], "scope": scope}
            rows.append(row | {k: entry.get(k) for k in _ROW_KEYS})
    comparison = {"schema_version": SCHEMA_VERSION, "run": summary["run"], "rows": rows}
    ablation = ablation_rows(summary, records or [])
    if ablation:
        comparison["ablation"] = ablation
    return comparison
