"""Comparing runs and baselines: a run against a reference, or several runs side by side.

``pastbench compare A B`` is pytest-benchmark's ``--benchmark-compare``: A is the reference (a
saved baseline or a run), B what is checked; with ``--fail`` it is also its ``compare-fail`` and
sets the exit code, so a CI job can gate on two stored runs without rerunning anything.
"""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from .baseline import protocol_gate_metrics
from .gates import (
    match_configs,
)
from .render.table import HURT_TEXT, format_delta, format_number, memory_hurt

# (kind, key): kind is "families", "capabilities" or "overall"; key the id within it.
Scope = tuple[str, str]


def comparison_scopes(*configs: dict[str, Any]) -> list[Scope]:
    """Every scope of any config, in the Δ table's order: families, capabilities, overall."""
    capability: dict[str, str] = {}
    capabilities: set[str] = set()
    for config in configs:
        for fid, entry in config.get("families", {}).items():
            capability.setdefault(fid, entry.get("capability", fid.partition(".")[0]))
        capabilities |= set(config.get("capabilities", {}))
    families = sorted(capability, key=lambda fid: (capability[fid], fid))
    return (
        [("families", fid) for fid in families]
        + [("capabilities", cap) for cap in sorted(capabilities)]
        + [("overall", "overall")]
    )


def scope_entry(config: dict[str, Any], scope: Scope) -> dict[str, Any] | None:
    kind, key = scope
    if kind == "overall":
        return config.get("overall")
    return config.get(kind, {}).get(key)


def scope_name(scope: Scope) -> str:
    kind, key = scope
    return key if kind == "families" else f"[{key}]"


def scope_value(entry: dict[str, Any] | None, key: str) -> float | None:
    return None if entry is None else entry.get(key)


METRIC_HEADERS = ("protocol", "scope", "metric", "baseline", "current", "change")


def render_metric_comparison(protocol: Any, current: dict[str, Any], baseline: dict[str, Any]) -> str:
    """A protocol's gate metrics (overall, tiers, families; not the intervention cells): baseline
    and current value and their change, per paired config. Empty without any."""
    now = [m for m in protocol_gate_metrics([protocol], current) if "/" not in m.scope]
    before = [m for m in protocol_gate_metrics([protocol], baseline) if "/" not in m.scope]
    if not now or not before:
        return ""
    name = protocol.name
    blocks = []
    pairs, notes = match_configs(
        {"configs": [{"label": c} for c in dict.fromkeys(m.config for m in now)]},
        {"configs": [{"label": c} for c in dict.fromkeys(m.config for m in before)]},
    )
    for cur, base in pairs:
        old = {(m.scope, m.name): m.value for m in before if m.config == base["label"]}
        rows = []
        for m in (m for m in now if m.config == cur["label"]):
            was = old.get((m.scope, m.name))
            change = None if m.value is None or was is None else m.value - was
            arrow = "" if m.higher_is_better else " (lower is better)"
            rows.append(
                [name, m.scope, m.name + arrow, format_number(was), format_number(m.value),
                 format_number(change, signed=True)]
            )  # fmt: skip
        title = (
            cur["label"] if cur["label"] == base["label"] else f"{cur['label']} (baseline: {base['label']})"
        )
        table = tabulate(rows, headers=METRIC_HEADERS, tablefmt="simple", disable_numparse=True)
        blocks.append(f"{name}: {title}\n{table}")
    blocks += [f"note: {name}: {note}" for note in notes if not pairs or "labels differ" not in note]
    return "\n\n".join(blocks)


def render_comparison(current: dict[str, Any], baseline: dict[str, Any], registry: Any) -> str:
    """Each protocol's comparison of a run with a baseline, in registration order: its own
    (``render_comparison``: PAST's Δ and Mech table) or its gate metrics' (``render_metric_comparison``)."""
    sections = []
    for protocol in registry:
        own = getattr(protocol, "render_comparison", None)
        text = own(current, baseline) if own else render_metric_comparison(protocol, current, baseline)
        sections += [text] if text else []
    return "\n\n".join(sections)


def render_side_by_side(summaries: list[tuple[str, dict[str, Any]]]) -> str:
    """Δ [CI] and Mech per scope with one column per run × config (models, agents, mechanism sets);
    a run named "" is the only one (the configs of one run: its columns are the config labels)."""
    columns = [(name, config) for name, summary in summaries for config in summary.get("configs", [])]
    if not columns:
        return "no configurations to compare"
    headers = ["scope"] + [
        f"{name}\n{config['label']}" if name else config["label"] for name, config in columns
    ]
    scopes = comparison_scopes(*(config for _, config in columns))
    delta_rows = [
        [scope_name(scope)] + [_delta_cell(scope_entry(config, scope)) for _, config in columns]
        for scope in scopes
    ]
    mech_rows = [
        [scope_name(scope)]
        + [format_number(scope_value(scope_entry(config, scope), "mech")) for _, config in columns]
        for scope in scopes
    ]
    delta = tabulate(delta_rows, headers=headers, tablefmt="simple", disable_numparse=True)
    mech = tabulate(mech_rows, headers=headers, tablefmt="simple", disable_numparse=True)
    return f"Δ = S_on − S_off [95% CI]\n{delta}\n\nMech\n{mech}"


def _delta_cell(entry: dict[str, Any] | None) -> str:
    return format_delta(entry) + (f" {HURT_TEXT}" if memory_hurt(entry) else "")
