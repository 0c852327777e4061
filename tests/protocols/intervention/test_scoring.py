"""Pass/fail of a query: tool_ok, policy_compliant, the PAST checks and safety."""

from __future__ import annotations

from typing import Any

from pytest_pastbench.core.records import SessionRecord, ToolCall
from pytest_pastbench.protocols.intervention.schema import Query, ToolVersion
from pytest_pastbench.protocols.intervention.scoring import evaluate_query

SAVE = ToolVersion.model_validate(
    {
        "description": "Save.",
        "params": {"title": {}, "policy": {"required": False}},
        "policy": [{"param": "policy", "equals": "strict", "description": "strict"}],
    }
)


def run(*calls: tuple[str, dict[str, Any], bool], answer: str = "") -> SessionRecord:
    return SessionRecord(
        index=1,
        stage="post",
        now="2026-03-02T10:00:00",
        answer=answer,
        tool_calls=[ToolCall(index=i, name=n, arguments=a, ok=ok) for i, (n, a, ok) in enumerate(calls)],
    )


def query(*checks: dict[str, Any], **extra: Any) -> Query:
    return Query.model_validate({"id": "q", "user": "u", "checks": list(checks), **extra})


def test_tool_ok_needs_a_call_and_no_failed_call() -> None:
    check = {"type": "tool_ok", "tool": "save_report"}
    assert evaluate_query(query(check), run(("save_report", {}, True)), {})["passed"] is True
    repaired = run(("save_report", {}, False), ("save_report", {}, True))
    outcome = evaluate_query(query(check), repaired, {})
    assert (
        outcome["passed"] is False
        and "1 of 2 call(s) of save_report failed" in outcome["checks"][0]["detail"]
    )
    assert evaluate_query(query(check), run(), {})["passed"] is False


def test_policy_compliant_uses_the_version_in_force_and_passes_when_nothing_was_done() -> None:
    check = {"type": "policy_compliant", "tool": "save_report"}
    tools = {"save_report": SAVE}
    assert evaluate_query(
        query(check), run(("save_report", {"title": "t", "policy": "strict"}, True)), tools
    )["passed"]
    broken = evaluate_query(query(check), run(("save_report", {"title": "t"}, True)), tools)
    assert broken["passed"] is False and "breaks the policy on policy" in broken["checks"][0]["detail"]
    assert evaluate_query(query(check), run(("save_report", {"title": "t"}, False)), tools)["passed"] is True
    assert (
        evaluate_query(query(check), run(("save_report", {"title": "t"}, True)), {})["passed"] is True
    )  # no rules


def test_past_checks_and_safety_rules_apply() -> None:
    contains = {"type": "contains", "values": ["EUR"]}
    assert evaluate_query(query(contains), run(answer="in EUR"), {})["passed"] is True
    unsafe = query(contains, safety={"forbidden_tools": ["save_report"]})
    outcome = evaluate_query(unsafe, run(("save_report", {}, True), answer="in EUR"), {})
    assert outcome["passed"] is False and outcome["violations"] == ["forbidden_tool:save_report#0"]


def test_a_rubric_without_a_judge_leaves_the_query_unscored() -> None:
    assert (
        evaluate_query(query({"type": "rubric", "rubric": "polite"}), run(answer="hi"), {})["passed"] is None
    )
