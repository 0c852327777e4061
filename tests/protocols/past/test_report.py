"""PAST's part of the terminal report (the Δ table, the configs side by side) and its JUnit
properties, per item and per run."""

from __future__ import annotations

from typing import Any

from pytest_pastbench.protocols.past.metrics import summarize
from pytest_pastbench.protocols.past.report import past_item_properties, past_summary_properties, render
from tests.protocols.past.test_metrics import RUN, rec
from tests.recording_terminal import Terminal

OTHER = "hermes@pastbench/blind"


def records(*labels: str) -> list[Any]:
    extra = {} if not labels else {"label": labels[0]}
    out = [
        rec("memory.recall", "ep01", "on", 0.6, **extra),
        rec("memory.recall", "ep01", "off", 0.1, **extra),
    ]
    for label in labels[1:]:
        out += [
            rec("memory.recall", "ep01", "on", 0.3, label=label),
            rec("memory.recall", "ep01", "off", 0.3, label=label),
        ]
    return out


def rendered(items: list[Any], terminal: Terminal | None = None) -> list[str]:
    terminal = terminal or Terminal()
    render(terminal, summarize(items, RUN, 42), items)
    return terminal.lines


def test_one_config_gets_the_delta_table_and_no_side_by_side() -> None:
    lines = rendered(records())
    sections = [line for line in lines if line.startswith("== ")]
    assert sections == ["== pastbench: Δ = S_on − S_off per family"]
    assert lines[1] == ""  # under xdist no progress line left a newline pending
    assert any("memory.recall" in line for line in lines)
    # A file's progress line leaves the newline pending: no blank line of its own then.
    assert rendered(records(), Terminal(currentfspath="families/x.yaml"))[1] != ""


def test_two_configs_are_also_shown_side_by_side() -> None:
    sections = [
        line for line in rendered(records(*["hermes@pastbench/recall", OTHER])) if line.startswith("== ")
    ]
    assert sections == ["== pastbench: Δ = S_on − S_off per family", "== pastbench: configs side by side"]


def test_a_summary_without_past_configs_writes_nothing() -> None:
    terminal = Terminal()
    render(terminal, {"configs": []}, [])
    assert terminal.lines == []


def record_dict(**extra: Any) -> dict[str, Any]:
    return {
        "family": "memory.recall",
        "capability": "memory",
        "episode": "ep01",
        "arm": "on",
        "trial": 0,
        "model": "pastbench/recall",
        "score": 0.6,
        "infra_blocked": False,
        **extra,
    }


def test_item_properties_name_each_session_and_the_mech_parts_it_has() -> None:
    props = dict(
        past_item_properties(
            record_dict(
                sessions=[
                    {"stage": "learn", "index": 0, "s": 1.0},
                    {"stage": "eval_near", "index": 3, "s": 0.5},
                ],
                mech={"wp": 1.0, "pr": None, "mech": 0.8},
            )
        )
    )
    assert props["pastbench.family"] == "memory.recall" and props["pastbench.score"] == 0.6
    assert props["pastbench.s.learn.0"] == 1.0 and props["pastbench.s.eval_near.3"] == 0.5
    assert props["pastbench.mech.wp"] == 1.0 and props["pastbench.mech.mech"] == 0.8
    assert "pastbench.mech.pr" not in props  # not applicable: no property, not a zero
    bare = dict(past_item_properties(record_dict(sessions=None, mech=None)))
    assert not any(key.startswith(("pastbench.s.", "pastbench.mech.")) for key in bare)


def test_run_properties_are_each_configs_overall_and_capability_deltas() -> None:
    summary = summarize(records(*["hermes@pastbench/recall", OTHER]), RUN, 42)
    props = dict(past_summary_properties(summary))
    for config in summary["configs"]:
        label = config["label"]
        assert props[f"pastbench.{label}.overall.delta"] == config["overall"]["delta"]
        assert props[f"pastbench.{label}.memory.delta"] == config["capabilities"]["memory"]["delta"]
        assert f"pastbench.{label}.overall.n_episodes" in props
    assert past_summary_properties({}) == []
