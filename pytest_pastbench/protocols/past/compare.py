"""PAST against a baseline: the Δ and Mech table per compared config (``pastbench compare``, the
pytest run's comparison section) and the rows of ``sequence_comparison.json``'s baseline section.

Capability and overall values are means over families, so both sides are first restricted to the
families both measured (``pair_families``), as the gates compare them (their ``strata``).
"""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from ...core.stats import mean
from ...results.compare import comparison_scopes, scope_entry, scope_name, scope_value
from ...results.gates import match_configs, strata_note
from ...results.render.table import HURT_MARK, format_number, memory_hurt
from .components import SCOPE_METRICS

COMPARISON_HEADERS = ("scope", "baseline Δ", "current Δ", "change", "baseline Mech", "current Mech")


def _means_over(families: list[dict[str, Any]]) -> dict[str, Any]:
    def known_mean(values: list[Any]) -> float | None:
        return mean(v for v in values if v is not None)

    components = sorted({name for f in families for name in f.get("mech_components") or {}})
    return {
        **{key: known_mean([f.get(key) for f in families]) for key in SCOPE_METRICS},
        "mech_components": {
            name: known_mean([(f.get("mech_components") or {}).get(name) for f in families])
            for name in components
        },
    }


def _restricted(config: dict[str, Any], families: set[str]) -> dict[str, Any]:
    """``config`` as if it had measured only ``families``: capability and overall rebuilt."""
    kept = {fid: entry for fid, entry in config.get("families", {}).items() if fid in families}
    capabilities: dict[str, list[dict[str, Any]]] = {}
    for fid, entry in kept.items():
        capabilities.setdefault(entry.get("capability") or fid.partition(".")[0], []).append(entry)
    return {
        **config,
        "families": kept,
        "capabilities": {cap: _means_over(entries) for cap, entries in sorted(capabilities.items())},
        "overall": _means_over(list(kept.values())),
    }


def pair_families(
    current_config: dict[str, Any], baseline_config: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """Both configs restricted to the families both measured, and a note naming the rest.

    A capability or overall value is a mean over families, so a baseline of seven families and
    a run of one would otherwise compare different selections.
    """
    now, before = set(current_config.get("families", {})), set(baseline_config.get("families", {}))
    if now == before:
        return current_config, baseline_config, None
    c_label, b_label = current_config["label"], baseline_config["label"]
    tag = f"[{c_label}]" if c_label == b_label else f"[{c_label} vs baseline {b_label}]"
    note = f"{strata_note(now, before, ('family', 'families'))} {tag}"
    return _restricted(current_config, now & before), _restricted(baseline_config, now & before), note


def render_comparison(current: dict[str, Any], baseline: dict[str, Any]) -> str:
    """One table per compared config: baseline and current Δ, their change, and Mech, per scope;
    empty when neither run holds a PAST config."""
    if not current.get("configs") and not baseline.get("configs"):
        return ""
    pairs, notes = match_configs(current, baseline)
    blocks = []
    for cur, base in pairs:
        # Capability and overall rows over the families both measured, as the gates compare them.
        paired_cur, paired_base, note = pair_families(cur, base)
        notes += [note] if note else []
        rows = []
        for scope in comparison_scopes(base, cur):
            family = scope[0] == "families"
            before = scope_entry(base if family else paired_base, scope)
            now = scope_entry(cur if family else paired_cur, scope)
            b_delta, c_delta = scope_value(before, "delta"), scope_value(now, "delta")
            change = None if b_delta is None or c_delta is None else c_delta - b_delta
            rows.append(
                [
                    # A fall below 0 is a drop like any other (the change column); the mark says
                    # the current run's Δ CI lies wholly below 0: memory hurt there.
                    scope_name(scope) + (HURT_MARK if memory_hurt(now) else ""),
                    format_number(b_delta, signed=True),
                    format_number(c_delta, signed=True),
                    format_number(change, signed=True),
                    format_number(scope_value(before, "mech")),
                    format_number(scope_value(now, "mech")),
                ]
            )
        title = (
            cur["label"] if cur["label"] == base["label"] else f"{cur['label']} (baseline: {base['label']})"
        )
        table = tabulate(rows, headers=COMPARISON_HEADERS, tablefmt="simple", disable_numparse=True)
        blocks.append(f"{title}\n{table}")
    blocks += [f"note: {note}" for note in notes]
    return "\n\n".join(blocks)


def comparison_rows(current: dict[str, Any], baseline: dict[str, Any]) -> list[dict[str, Any]]:
    """Per matched config and scope: baseline and current Δ and Mech, and the change of Δ."""
    rows = []
    for full_now, full_before in match_configs(current, baseline)[0]:
        # Capability and overall values over the families both runs measured (as gates compare).
        now, before, _ = pair_families(full_now, full_before)
        scopes = [("overall", now["overall"], before.get("overall"))]
        scopes += [
            (key, now["capabilities"].get(key, entry), before["capabilities"].get(key))
            for key, entry in sorted(full_now["capabilities"].items())
        ]
        scopes += [
            (key, entry, full_before.get("families", {}).get(key))
            for key, entry in sorted(full_now["families"].items())
        ]
        for scope, entry, old in scopes:
            old = old or {}
            delta, old_delta = entry.get("delta"), old.get("delta")
            rows.append(
                {
                    "label": now["label"],
                    "baseline_label": before["label"],
                    "scope": scope,
                    "delta": delta,
                    "baseline_delta": old_delta,
                    "change": None if delta is None or old_delta is None else round(delta - old_delta, 4),
                    "mech": entry.get("mech"),
                    "baseline_mech": old.get("mech"),
                }
            )
    return rows
