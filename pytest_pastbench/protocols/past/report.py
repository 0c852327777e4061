"""PAST's part of the terminal report: the Δ table per family, judge and agent-error lines, the
configs side by side and the mechanism ablation table.

Imports inside functions load the judge, grader, comparison and table code only for the report parts
a run has.
"""

from __future__ import annotations

from typing import Any

from .metrics import COMPONENTS, ablation_rows


def render(terminal: Any, summary: dict[str, Any], records: list[Any]) -> None:
    if summary.get("configs"):
        from pytest_pastbench.judge.base import judge_lines
        from pytest_pastbench.results.render.table import agent_error_line, render_delta_table

        # A file's progress line leaves a newline pending that the first line writes as a blank
        # line; under xdist no progress line names a file, so write that blank line here.
        pending_newline = getattr(terminal, "currentfspath", None) is not None
        terminal.section("pastbench: Δ = S_on − S_off per family")
        if not pending_newline:
            terminal.write_line("")
        terminal.write_line(render_delta_table(summary))
        for line in judge_lines(summary):
            terminal.write_line(line)
        from pytest_pastbench.judge.grader_agreement import deterministic_grading_line

        from .labelled_answers import PastAnswerGrader

        run = summary.get("run") or {}
        grading = deterministic_grading_line(run.get("models") or [], run.get("judge"), PastAnswerGrader)
        if grading:
            terminal.write_line(grading, yellow=True)
        errors = agent_error_line(summary)
        if errors:
            terminal.write_line(errors, red=True)
        if len(summary["configs"]) > 1:
            from pytest_pastbench.results.compare import render_side_by_side

            terminal.section("pastbench: configs side by side")
            terminal.write_line(render_side_by_side([("", summary)]))

    ablation = ablation_rows(summary, records)
    if ablation:
        from pytest_pastbench.results.render.table import render_ablation_table

        terminal.section("pastbench: mechanism ablation (per episode = its on and off items)")
        terminal.write_line(render_ablation_table(ablation))


def past_item_properties(record: dict[str, Any]) -> list[tuple[str, Any]]:
    props: list[tuple[str, Any]] = [
        ("pastbench.family", record["family"]),
        ("pastbench.capability", record["capability"]),
        ("pastbench.episode", record["episode"]),
        ("pastbench.arm", record["arm"]),
        ("pastbench.trial", record["trial"]),
        ("pastbench.model", record["model"]),
        ("pastbench.score", record["score"]),
        ("pastbench.infra_blocked", record["infra_blocked"]),
    ]
    for session in record.get("sessions") or []:
        props.append((f"pastbench.s.{session['stage']}.{session['index']}", session["s"]))
    for name in (*COMPONENTS, "mech"):
        value = (record.get("mech") or {}).get(name)
        if value is not None:
            props.append((f"pastbench.mech.{name}", value))
    return props


def past_summary_properties(summary: dict[str, Any]) -> list[tuple[str, Any]]:
    """The run's JUnit properties: per config its overall numbers and each capability's Δ."""
    props: list[tuple[str, Any]] = []
    for config_entry in summary.get("configs", []):
        label = config_entry["label"]
        overall = config_entry["overall"]
        for key in ("s_on", "s_off", "delta", "mech", "n_episodes", "infra_blocked"):
            props.append((f"pastbench.{label}.overall.{key}", overall.get(key)))
        for name, entry in sorted(config_entry["capabilities"].items()):
            props.append((f"pastbench.{label}.{name}.delta", entry.get("delta")))
    return props
