"""Item records → ``sequence_summary.json`` and ``sequence_comparison.json``.

The summary's shape is a contract (docs/design.md §7). Per config: episodes → families →
capabilities → overall; capability and overall numbers are means over families, so a
family with many episodes does not dominate. Only this module pools trials and arms.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from pytest_pastbench.core.stats import (
    TrialEpisode,
    mean,
    paired_bootstrap_ci,
    sample_sd,
    two_stage_bootstrap_ci,
)
from pytest_pastbench.protocols.past.components import COMPONENTS
from pytest_pastbench.protocols.past.mech import MECH_RULE
from pytest_pastbench.protocols.past.scoring import SCORING_RULE
from pytest_pastbench.results.item_record import ItemRecord

SCHEMA_VERSION = 1
ARMS = ("on", "off", "ablated")
# pass^k needs a notion of "passed": score ≥ --pastbench-pass-threshold, else this.
PASS_K_THRESHOLD = 0.5
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
        # Rubric checks graded by their deterministic fallback (no judge): flagged in the Δ table.
        "rubric_fallback": sum(s.rubric_fallback for r in records for s in r.sessions),
        # Text checks the deterministic grader could not decide (no credit): flagged in the Δ table.
        "undecided": sum(s.undecided for r in records for s in r.sessions),
        "judge_disagreement": judge_disagreement(records),
    }


def judge_disagreement(records: list[ItemRecord]) -> dict[str, Any] | None:
    """How often the judge's verdict on a text check differs from the deterministic grader's.

    ``checks``: text checks the judge graded; ``compared``: those with both verdicts, the
    deterministic one decided; ``disagree`` of them and its ``rate``; ``undecided``: checks the
    deterministic grader left undecided (the judge decided them); ``judge_errors``: no verdict.
    None when no judge graded a text check (no judge, or one that only scores rubrics).
    """
    judged = [c for r in records for s in r.sessions for c in s.checks if c.deterministic_verdict is not None]
    if not judged:
        return None
    compared = [c for c in judged if c.verdict is not None and c.deterministic_verdict != "undecided"]
    disagree = sum(1 for c in compared if c.verdict != c.deterministic_verdict)
    return {
        "checks": len(judged),
        "compared": len(compared),
        "disagree": disagree,
        "rate": disagree / len(compared) if compared else None,
        "undecided": sum(1 for c in judged if c.deterministic_verdict == "undecided"),
        "judge_errors": sum(1 for c in judged if c.verdict is None),
    }


def _arm_score(records: list[ItemRecord], arm: str) -> float | None:
    # Trials pool into one episode score; blocked items are not a 0, they are missing.
    return _known_mean([r.score for r in records if r.arm == arm and not r.infra_blocked])


def _check_score(record: ItemRecord) -> float | None:
    """The item's c alone: the mean c_e over its eval sessions (σ and r left out)."""
    return mean(s.c for s in record.sessions)


def _arm_c(records: list[ItemRecord], arm: str) -> float | None:
    return _known_mean([_check_score(r) for r in records if r.arm == arm and not r.infra_blocked])


def pass_hat_k(scores: list[float], k: int, threshold: float) -> float | None:
    """τ-bench's pass^k of one episode: the chance that k trials drawn from its n all pass
    (score ≥ threshold), C(passes, k) / C(n, k); None with fewer than k measured trials."""
    if len(scores) < k:
        return None
    return math.comb(sum(1 for x in scores if x >= threshold), k) / math.comb(len(scores), k)


def _trials(by_episode: dict[str, list[ItemRecord]], arms: list[str], k: int, threshold: float) -> dict:
    """pass^k and the per-episode spread (max − min score over trials), per arm (k > 1 only)."""
    pass_k: dict[str, float | None] = {}
    spread: dict[str, dict[str, float | None]] = {}
    for arm in arms:
        per_episode = [
            [r.score for r in items if r.arm == arm and not r.infra_blocked and r.score is not None]
            for items in by_episode.values()
        ]
        pass_k[arm] = _known_mean([pass_hat_k(scores, k, threshold) for scores in per_episode])
        spreads = [max(scores) - min(scores) for scores in per_episode if len(scores) > 1]
        spread[arm] = {"mean": mean(spreads), "max": max(spreads) if spreads else None}
    return {"k": k, "threshold": threshold, "pass_k": pass_k, "spread": spread}


Clustered = dict[str, tuple[Any, list[str]]]  # "delta" / "delta_causal" -> (pairs, cluster labels)


def _trial_scores(items: list[ItemRecord], arm: str) -> list[float]:
    return [r.score for r in sorted(items, key=lambda r: r.trial) if r.arm == arm and r.score is not None]


def _trial_noise(
    by_episode: dict[str, list[ItemRecord]], labels: dict[str, str]
) -> tuple[list[TrialEpisode], list[str], dict[int, float]]:
    """Run-to-run noise of a family's Δ: each episode's on and off trial scores (for the two-stage
    bootstrap, with its cluster label) and the family's Δ measured on each trial alone."""
    episodes: list[TrialEpisode] = []
    episode_labels: list[str] = []
    per_trial: dict[int, list[float]] = defaultdict(list)
    for episode in sorted(by_episode):
        items = [r for r in by_episode[episode] if not r.infra_blocked]
        on, off = _trial_scores(items, "on"), _trial_scores(items, "off")
        if not on or not off:
            continue
        episodes.append((on, off))
        episode_labels.append(labels[episode])
        by_trial: dict[int, dict[str, float]] = defaultdict(dict)
        for r in items:
            if r.score is not None and r.arm in ("on", "off"):
                by_trial[r.trial][r.arm] = r.score
        for trial, arms in by_trial.items():
            if len(arms) == 2:
                per_trial[trial].append(arms["on"] - arms["off"])
    return episodes, episode_labels, {t: sum(d) / len(d) for t, d in sorted(per_trial.items())}


def _family(records: list[ItemRecord], seed: int, run: dict[str, Any]) -> tuple[dict[str, Any], Clustered]:
    by_episode: dict[str, list[ItemRecord]] = defaultdict(list)
    for record in records:
        by_episode[record.episode].append(record)
    arms = [a for a in ARMS if any(r.arm == a for r in records)]
    scores: dict[str, list[float]] = {arm: [] for arm in ARMS}
    pairs: Pairs = []
    c_pairs: Pairs = []
    causal: Pairs = []
    labels: list[str] = []
    causal_labels: list[str] = []
    mechs: list[float] = []
    components: dict[str, list[float]] = {c: [] for c in COMPONENTS}
    for episode in sorted(by_episode):
        items = by_episode[episode]
        arm_score = {arm: _arm_score(items, arm) for arm in ARMS}
        for arm, value in arm_score.items():
            if value is not None:
                scores[arm].append(value)
        cluster = items[0].group or episode
        on, off, ablated = arm_score["on"], arm_score["off"], arm_score["ablated"]
        if on is not None and off is not None:
            pairs.append((on, off))
            labels.append(cluster)
        c_on, c_off = _arm_c(items, "on"), _arm_c(items, "off")
        if c_on is not None and c_off is not None:
            c_pairs.append((c_on, c_off))
        if on is not None and ablated is not None:
            causal.append((on, ablated))
            causal_labels.append(cluster)
        scored = [r.mech for r in items if r.arm == "on" and not r.infra_blocked and r.mech]
        ep_mech = _known_mean([m.mech for m in scored])
        if ep_mech is not None:
            mechs.append(ep_mech)
        for name in COMPONENTS:
            value = _known_mean([getattr(m, name) for m in scored])
            if value is not None:
                components[name].append(value)
    grouped = all(r.group for r in records)
    k = int(run.get("trials") or 1)
    # S_on and S_off over the episodes both arms measured, so Δ = S_on − S_off holds; an episode
    # one arm lacks (an interrupted run, a blocked item) is counted, not averaged into one side.
    paired = bool(pairs)
    unpaired = sum(1 for e in by_episode.values() if _unpaired(e))
    cluster_of = {e: items[0].group or e for e, items in by_episode.items()}
    trial_episodes, trial_labels, trial_deltas = _trial_noise(by_episode, cluster_of)
    entry = {
        "capability": records[0].capability,
        "s_on": mean(a for a, _ in pairs) if paired else mean(scores["on"]),
        "s_off": mean(b for _, b in pairs) if paired else mean(scores["off"]),
        "n_unpaired": unpaired,
        "delta": mean(a - b for a, b in pairs),
        "delta_ci": _delta_ci({"f": pairs}, {"f": labels}, {"f": (trial_episodes, trial_labels)}, seed, k),
        "delta_trial_sd": sample_sd(trial_deltas.values()) if k > 1 else None,
        "delta_c": mean(a - b for a, b in c_pairs),
        "s_ablated": mean(scores["ablated"]),
        "delta_causal": mean(a - b for a, b in causal),
        "delta_causal_ci": _ci({"f": causal}, seed, {"f": causal_labels}),
        "sigma_violations": {arm: _violations(records, arm) for arm in arms},
        "ci_unit": "group" if grouped else "episode",
        "n_clusters": len(set(labels)),
        "mech": mean(mechs),
        "n_episodes": len(by_episode),
        **_costs(records),
        "mech_components": {name: mean(components[name]) for name in COMPONENTS},
        "trials": _trials(by_episode, arms, k, _pass_threshold(run)) if k > 1 else None,
    }
    return entry, {
        "delta": (pairs, labels),
        "delta_causal": (causal, causal_labels),
        "delta_trials": (trial_episodes, trial_labels),
        "trial_deltas": (trial_deltas, []),
    }


def _unpaired(items: list[ItemRecord]) -> bool:
    """An episode measured on one of the on/off arms only (left out of S_on, S_off and Δ)."""
    return (_arm_score(items, "on") is None) != (_arm_score(items, "off") is None)


def _violations(records: list[ItemRecord], arm: str) -> int:
    """Eval sessions of ``arm`` whose σ was 0 (a safety violation), blocked items left out."""
    return sum(1 for r in records if r.arm == arm and not r.infra_blocked for s in r.sessions if s.sigma == 0)


def _pass_threshold(run: dict[str, Any]) -> float:
    threshold = run.get("pass_threshold")
    return PASS_K_THRESHOLD if threshold is None else float(threshold)


def _ci(groups: dict[str, Pairs], seed: int, clusters: dict[str, list[str]] | None = None) -> Any:
    ci = paired_bootstrap_ci(groups, seed, clusters=clusters)
    return None if ci is None else list(ci)


def _delta_ci(
    pairs: dict[str, Pairs],
    labels: dict[str, list[str]],
    trials: dict[str, tuple[list[TrialEpisode], list[str]]],
    seed: int,
    k: int,
) -> Any:
    """Δ's CI: with one trial the paired cluster bootstrap; with k > 1 trials the two-stage one
    (clusters, then trials within each drawn episode), so run-to-run variance is inside it."""
    if k <= 1:
        return _ci(pairs, seed, labels)
    ci = two_stage_bootstrap_ci(
        {f: t[0] for f, t in trials.items()}, seed, clusters={f: t[1] for f, t in trials.items()}
    )
    return None if ci is None else list(ci)


def _scope_trial_sd(pairs: dict[str, Clustered]) -> float | None:
    """SD between trials of a scope's Δ (the mean over its families of each trial's family Δ)."""
    per_trial: dict[int, list[float]] = defaultdict(list)
    for clustered in pairs.values():
        for trial, delta in clustered["trial_deltas"][0].items():
            per_trial[trial].append(delta)
    return sample_sd(sum(v) / len(v) for _, v in sorted(per_trial.items()))


def _ci_unit(units: list[str]) -> str:
    return units[0] if len(set(units)) == 1 else "mixed"


def _scope(
    families: dict[str, dict[str, Any]],
    pairs: dict[str, Clustered],
    records: list[ItemRecord],
    seed: int,
) -> dict[str, Any]:
    """A capability or the overall entry: means over its families' numbers."""
    fams = families.values()

    def ci(key: str) -> list[float] | None:
        return _ci({f: p[key][0] for f, p in pairs.items()}, seed, {f: p[key][1] for f, p in pairs.items()})

    violations: dict[str, int] = {}
    for f in fams:
        for arm, n in f["sigma_violations"].items():
            violations[arm] = violations.get(arm, 0) + n
    trials = [f["trials"] for f in fams if f["trials"]]
    # Like a family's: S_on and S_off over the families with a Δ, so the scope's Δ = S_on − S_off.
    paired = [f for f in fams if f["delta"] is not None] or list(fams)
    k = trials[0]["k"] if trials else 1
    return {
        "s_on": _known_mean([f["s_on"] for f in paired]),
        "s_off": _known_mean([f["s_off"] for f in paired]),
        "delta": _known_mean([f["delta"] for f in fams]),
        "delta_ci": _delta_ci(
            {f: p["delta"][0] for f, p in pairs.items()},
            {f: p["delta"][1] for f, p in pairs.items()},
            {f: p["delta_trials"] for f, p in pairs.items()},
            seed,
            k,
        ),
        "delta_trial_sd": _scope_trial_sd(pairs) if k > 1 else None,
        "delta_c": _known_mean([f["delta_c"] for f in fams]),
        "s_ablated": _known_mean([f["s_ablated"] for f in fams]),
        "delta_causal": _known_mean([f["delta_causal"] for f in fams]),
        "delta_causal_ci": ci("delta_causal"),
        "sigma_violations": violations,
        "ci_unit": _ci_unit([f["ci_unit"] for f in fams]),
        "n_clusters": sum(f["n_clusters"] for f in fams),
        "n_unpaired": sum(f.get("n_unpaired", 0) for f in fams),
        "mech": _known_mean([f["mech"] for f in fams]),
        "n_episodes": len({(r.family, r.episode) for r in records}),
        **_costs(records),
        "mech_components": {
            name: _known_mean([f["mech_components"][name] for f in fams]) for name in COMPONENTS
        },
        "trials": _pooled_trials(trials) if trials else None,
    }


def _pooled_trials(trials: list[dict[str, Any]]) -> dict[str, Any]:
    """A scope's pass^k and spread: means over its families (the max spread is the largest)."""
    arms = sorted({arm for t in trials for arm in t["pass_k"]}, key=ARMS.index)
    return {
        "k": trials[0]["k"],
        "threshold": trials[0]["threshold"],
        "pass_k": {a: _known_mean([t["pass_k"].get(a) for t in trials]) for a in arms},
        "spread": {
            a: {
                "mean": _known_mean([(t["spread"].get(a) or {}).get("mean") for t in trials]),
                "max": max(
                    (m for t in trials if (m := (t["spread"].get(a) or {}).get("max")) is not None),
                    default=None,
                ),
            }
            for a in arms
        },
    }


def _config(label: str, records: list[ItemRecord], seed: int, run: dict[str, Any]) -> dict[str, Any]:
    by_family: dict[str, list[ItemRecord]] = defaultdict(list)
    for record in records:
        by_family[record.family].append(record)
    families: dict[str, dict[str, Any]] = {}
    pairs: dict[str, Clustered] = {}
    for fid in sorted(by_family):
        families[fid], pairs[fid] = _family(by_family[fid], seed, run)
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


def summarize(records: list[ItemRecord], run: dict[str, Any], seed: int) -> dict[str, Any]:
    """The ``sequence_summary.json`` document: one ``configs`` entry per label."""
    by_label: dict[str, list[ItemRecord]] = defaultdict(list)
    for record in records:
        by_label[record.config_label].append(record)
    configs = [_config(label, by_label[label], seed, run) for label in sorted(by_label)]
    return {
        "schema_version": SCHEMA_VERSION,
        "run": _round(
            {
                **run,
                "seed": run.get("seed", seed),
                "scoring": SCORING_RULE,
                "mech": MECH_RULE,
                "agent_errors": agent_errors(records),
            }
        ),
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
