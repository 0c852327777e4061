"""The Δ table as GitHub-flavoured Markdown, appended to ``$GITHUB_STEP_SUMMARY`` in CI.

GitHub Actions shows that file on the run's summary page; every step appends to it, so this
module only ever opens it in append mode. Outside Actions (variable unset) nothing happens.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from ..baseline import protocol_gate_metrics
from ..gates import GateResult, verdict_parts
from .table import agent_error_line, config_notes, delta_cells, delta_headers, delta_rows, has_ablated

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def _cell(text: Any) -> str:
    # A literal pipe would end the cell early; a newline would end the table.
    return str(text).replace("|", "\\|").replace("\n", " ")


def _row(name: str, capability: str, entry: Mapping[str, Any], ablated: bool) -> str:
    cells = delta_cells(name, capability, entry, ablated)[:-1]  # the terminal table less "blocked"
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def render_markdown(
    summary: Mapping[str, Any], registry: Any = None, gates: Sequence[GateResult] | None = None
) -> str:
    """One Δ table per configuration: families, then capabilities, then the overall row
    (the same rows and order as the terminal table); with ``registry`` each other protocol's
    gate metrics, and with ``gates`` the verdicts against the baseline."""
    run = summary.get("run") or {}
    lines = [f"## pastbench: Δ = S_on − S_off (run `{_cell(run.get('id', '?'))}`)", ""]
    for config in summary.get("configs", []):
        lines += [f"### {_cell(config['label'])}", ""]
        headers = delta_headers(config)[:-1]
        lines.append("| " + " | ".join(headers) + " |")
        # Numbers right-aligned, names left-aligned.
        lines.append("| " + " | ".join(["---", "---"] + ["---:"] * (len(headers) - 2)) + " |")
        for name, capability, entry in delta_rows(config):
            label = f"**{name}**" if name.startswith("[") else f"`{name}`"
            lines.append(_row(label, capability, entry, has_ablated(config)))
        lines += ["", *config_notes(config)] if config_notes(config) else []
        blocked = config.get("overall", {}).get("infra_blocked") or 0
        if blocked:
            lines += ["", f"{blocked} item(s) infra_blocked: left out of every mean."]
        lines.append("")
    errors = agent_error_line(summary)
    if errors:
        lines += [f"**{_cell(errors)}**", ""]
    if registry is not None:
        lines += _protocol_metric_lines(summary, registry)
    if gates:
        lines += ["### gates against the baseline", ""]
        lines += [f"- **{r.status}** {_cell(r.message)}" for r in gates]
        lines += [f"- note: {_cell(note)}" for note in dict.fromkeys(n for r in gates for n in r.notes)]
        lines += ["", f"**{', '.join(text for text, _ in verdict_parts(gates))}**", ""]
    return "\n".join(lines)


def _protocol_metric_lines(summary: Mapping[str, Any], registry: Any) -> list[str]:
    """Per protocol that shows no table of its own (``gate_metrics_table``; PAST's Δ tables are
    above): its gate metrics per config (the intervention cells left to the run's files), the
    names a ``--pastbench-compare-fail`` gate uses."""
    lines: list[str] = []
    tabled = [p for p in registry if getattr(p, "gate_metrics_table", True)]
    metrics = [m for m in protocol_gate_metrics(tabled, summary) if "/" not in m.scope]
    for protocol in sorted({m.protocol for m in metrics}):
        lines += [
            f"### {protocol}: gate metrics",
            "",
            "| config | scope | metric | value |",
            "| --- | --- | --- | ---: |",
        ]
        for m in (m for m in metrics if m.protocol == protocol):
            name = m.name if m.higher_is_better else f"{m.name} (lower is better)"
            value = "—" if m.value is None else f"{m.value:.3f}"
            lines.append(f"| {_cell(m.config)} | `{_cell(m.scope)}` | {name} | {value} |")
        lines.append("")
    return lines


def append_step_summary(
    summary: Mapping[str, Any],
    env: Mapping[str, str] = os.environ,
    *,
    registry: Any = None,
    gates: Sequence[GateResult] | None = None,
) -> bool:
    """Append the Markdown to the file named by ``$GITHUB_STEP_SUMMARY``; True if written.

    Append, never truncate: earlier steps' summaries live in the same file. A write failure is
    reported on stderr and does not fail the test run (the run's own files are already written).
    """
    path = env.get(STEP_SUMMARY_ENV)
    if not path:
        return False
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(render_markdown(summary, registry, gates) + "\n")
    except OSError as exc:
        print(f"pastbench: cannot append to {STEP_SUMMARY_ENV}={path}: {exc}", file=sys.stderr)
        return False
    return True
