"""Every check type passes and fails; malformed answers fail with a reason."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from pytest_pastbench.core.records import CheckResult, SessionRecord, ToolCall
from pytest_pastbench.errors import JudgeError
from pytest_pastbench.judge.base import Judge, Verdict
from pytest_pastbench.protocols.shared.checks import evaluate_check, first_json_object
from pytest_pastbench.protocols.shared.schema import Check

_CHECK = TypeAdapter(Check)


def run_with(answer: str = "", **fields: Any) -> SessionRecord:
    return SessionRecord(index=3, stage="eval_near", now="2026-03-02T10:00:00", answer=answer, **fields)


def check(answer: str, spec: dict[str, Any], judge: Judge | None = None, **run: Any):
    return evaluate_check(_CHECK.validate_python(spec), run_with(answer, **run), judge)


class FixedJudge:
    name = "fixed"

    def __init__(self, verdict: Any) -> None:
        self.verdict = verdict
        self.seen: list[tuple[str, str]] = []

    def grade(self, rubric: str, answer: str) -> bool:
        self.seen.append((rubric, answer))
        return self.verdict


class BrokenJudge:
    name = "broken"

    def grade(self, rubric: str, answer: str) -> bool:
        raise JudgeError("reply was 'maybe?', not PASS/FAIL")


def test_result_carries_type_and_weight() -> None:
    result = check("x", {"type": "contains", "values": ["x"], "weight": 2.5})
    assert result == CheckResult(
        type="contains", weight=2.5, passed=True, detail="", verdict="asserts_expected"
    )


# contains / forbids -----------------------------------------------------------------


def test_contains_is_case_insensitive() -> None:
    spec = {"type": "contains", "values": ["Friday", "ROOM 4"]}
    assert check("the freeze is on FRIDAY in room 4", spec).passed is True


def test_contains_fails_naming_the_missing_value() -> None:
    result = check("friday", {"type": "contains", "values": ["friday", "room 4"]})
    assert result.passed is False
    assert "room 4" in result.detail and "friday" not in result.detail


def test_forbids_passes_when_absent_and_fails_when_present() -> None:
    spec = {"type": "forbids", "values": ["thursday"]}
    assert check("friday", spec).passed is True
    result = check("It was THURSDAY", spec)
    assert result.passed is False and "thursday" in result.detail


# regex ------------------------------------------------------------------------------


def test_regex_search_and_flags() -> None:
    spec = {"type": "regex", "pattern": r"v\d+\.\d+"}
    assert check("deployed v2.13 today", spec).passed is True
    assert check("deployed version two", spec).passed is False
    # Without IGNORECASE "Ticket" does not match "ticket"; with it, it does.
    assert check("TICKET-9", {"type": "regex", "pattern": "ticket-9"}).passed is False
    with_flag = {"type": "regex", "pattern": "ticket-9", "flags": ["IGNORECASE"]}
    assert check("TICKET-9", with_flag).passed is True


def test_regex_multiline_flag() -> None:
    spec = {"type": "regex", "pattern": "^done$"}
    assert check("step\ndone", spec).passed is False
    assert check("step\ndone", {**spec, "flags": ["MULTILINE"]}).passed is True


# json_field -------------------------------------------------------------------------


def test_json_field_dotted_path_with_list_index() -> None:
    answer = 'Here you go: {"deploy": {"steps": [{"name": "a"}, {"name": "b"}]}} done'
    spec = {"type": "json_field", "path": "deploy.steps.1.name", "equals": "b"}
    assert check(answer, spec).passed is True
    result = check(answer, {**spec, "equals": "a"})
    assert result.passed is False and "'b'" in result.detail


def test_json_field_skips_non_json_braces_and_braces_in_strings() -> None:
    answer = 'set {x} first, then {"note": "use {braces}", "n": 3}'
    assert first_json_object(answer) == {"note": "use {braces}", "n": 3}
    assert check(answer, {"type": "json_field", "path": "n", "equals": 3}).passed


def test_json_field_invalid_json_fails_with_detail() -> None:
    result = check('{"a": 1,, }', {"type": "json_field", "path": "a", "equals": 1})
    assert result.passed is False
    assert result.detail == "no JSON object in the answer"


def test_json_field_missing_path_fails() -> None:
    spec = {"type": "json_field", "path": "a.b.7", "equals": 1}
    result = check('{"a": {"b": [1]}}', spec)
    assert result.passed is False and "not found" in result.detail


def test_json_field_bool_is_not_one() -> None:
    spec = {"type": "json_field", "path": "ok", "equals": 1}
    assert check('{"ok": true}', spec).passed is False
    assert check('{"ok": 1}', spec).passed is True


def test_json_field_uses_first_object_only() -> None:
    answer = '{"v": 1} and later {"v": 2}'
    assert check(answer, {"type": "json_field", "path": "v", "equals": 2}).passed is False


# tool_called ------------------------------------------------------------------------


CALLS = [
    ToolCall(index=0, name="deploy", arguments={"service": "api", "env": "staging"}),
    ToolCall(index=1, name="create_ticket", arguments={"title": "x"}, ok=False),
    ToolCall(index=2, name="set_priority", arguments={"id": "T-7", "level": 2}),
]


def test_tool_called_matches_string_args_as_case_insensitive_substrings() -> None:
    spec = {"type": "tool_called", "tool": "deploy", "args": {"env": "STAG"}}
    assert check("", spec, tool_calls=CALLS).passed is True


def test_tool_called_non_string_args_need_equality() -> None:
    spec = {"type": "tool_called", "tool": "set_priority", "args": {"level": 2}}
    assert check("", spec, tool_calls=CALLS).passed is True
    result = check("", {**spec, "args": {"level": 1}}, tool_calls=CALLS)
    assert result.passed is False and "none with" in result.detail


def test_tool_called_ignores_failed_calls_and_missing_args() -> None:
    spec = {"type": "tool_called", "tool": "create_ticket"}
    result = check("", spec, tool_calls=CALLS)
    assert result.passed is False and "no successful call" in result.detail
    spec = {"type": "tool_called", "tool": "deploy", "args": {"region": "eu"}}
    assert check("", spec, tool_calls=CALLS).passed is False


# world_state ------------------------------------------------------------------------


WORLD = {
    "tickets": [
        {"id": "T-1", "queue": "billing", "priority": "P1", "status": "open"},
        {"id": "T-2", "queue": "billing", "priority": "P3", "status": "closed"},
        {"id": "T-3", "queue": "ops", "priority": "P1", "status": "open"},
    ]
}


def test_world_state_counts_matching_records() -> None:
    spec = {"type": "world_state", "service": "tickets", "match": {"queue": "BILL"}}
    assert check("", {**spec, "min_count": 2}, world_after=WORLD).passed is True
    result = check("", {**spec, "min_count": 3}, world_after=WORLD)
    assert result.passed is False and "2 matching" in result.detail


def test_world_state_max_count_and_absent_service() -> None:
    spec = {"type": "world_state", "service": "tickets", "match": {"priority": "P1"}}
    assert check("", {**spec, "max_count": 2}, world_after=WORLD).passed is True
    assert check("", {**spec, "max_count": 1}, world_after=WORLD).passed is False
    # "nothing was deployed" is expressible: max_count 0 on an empty service passes.
    nothing = {"type": "world_state", "service": "deploys", "min_count": 0}
    assert check("", {**nothing, "max_count": 0}, world_after=WORLD).passed is True
    assert check("", {"type": "world_state", "service": "deploys"}).passed is False


# tsv_columns ------------------------------------------------------------------------


TABLE = "Summary:\n\nName\t Owner \tDue\nalpha\tAna\t1\nbeta\tBo\t2\ngamma\tAna\t3\n\nBye"


def test_tsv_column_unordered_is_a_multiset() -> None:
    spec = {"type": "tsv_columns", "column": "owner", "values": ["bo", "ANA", "ana"]}
    assert check(TABLE, spec).passed is True
    # One "ana" too few: a set comparison would wrongly pass this.
    result = check(TABLE, {**spec, "values": ["bo", "ana"]})
    assert result.passed is False and "owner" in result.detail


def test_tsv_column_ordered() -> None:
    spec = {
        "type": "tsv_columns",
        "column": "NAME",
        "values": ["alpha", "beta", "gamma"],
    }
    assert check(TABLE, {**spec, "ordered": True}).passed is True
    reordered = {**spec, "values": ["gamma", "beta", "alpha"]}
    assert check(TABLE, reordered).passed is True
    assert check(TABLE, {**reordered, "ordered": True}).passed is False


def test_tsv_missing_column_and_missing_table_fail() -> None:
    spec = {"type": "tsv_columns", "column": "priority", "values": ["1"]}
    result = check(TABLE, spec)
    assert result.passed is False and "no TSV column" in result.detail
    lone = check("only\tone line with a tab", spec)
    assert lone.passed is False and lone.detail == "no TSV table in the answer"


# rubric -----------------------------------------------------------------------------

RUBRIC = {"type": "rubric", "rubric": "Mentions the rollback plan"}


def test_rubric_without_judge_is_unscored() -> None:
    result = check("anything", RUBRIC)
    assert result.passed is None and result.detail == "no judge configured and no fallback"


def test_rubric_uses_judge_verdict() -> None:
    judge = FixedJudge(True)
    assert check("roll back with v1", RUBRIC, judge).passed is True
    assert judge.seen == [("Mentions the rollback plan", "roll back with v1")]
    result = check("nope", RUBRIC, FixedJudge(False))
    assert result.passed is False and "fixed" in result.detail


def test_rubric_judge_error_is_unscored_and_flagged() -> None:
    result = check("anything", RUBRIC, BrokenJudge())
    assert result.passed is None
    assert result.detail.startswith("judge error:") and "maybe?" in result.detail
    assert result.judge_error == "reply was 'maybe?', not PASS/FAIL"


@pytest.mark.parametrize("garbage", ["PASS", 1, None, Verdict(passed="yes")])  # type: ignore[arg-type]
def test_rubric_non_boolean_verdict_is_unscored(garbage: Any) -> None:
    result = check("anything", RUBRIC, FixedJudge(garbage))
    assert result.passed is None and "non-boolean" in result.detail
    assert result.judge_error is not None and "non-boolean" in result.judge_error


@pytest.mark.parametrize(("score", "passed"), [(0.75, True), (0.25, False)])
def test_rubric_verdict_keeps_score_and_reason(score: float, passed: bool) -> None:
    verdict = Verdict(passed=passed, score=score, reason="names v1")
    result = check("roll back with v1", RUBRIC, FixedJudge(verdict))
    assert (result.passed, result.score, result.judge_error) == (passed, score, None)
    outcome = "rubric met" if passed else "rubric not met"
    assert result.detail == f"judge fixed {score:.2f}, {outcome}: names v1"


def test_judge_protocol_is_structural() -> None:
    assert isinstance(FixedJudge(True), Judge)
    assert not isinstance(object(), Judge)


VALUE = {
    "type": "value",
    "value": "3rd business day",
    "also": ["BD3"],
    "decoys": ["5th business day"],
    "superseded": ["7th business day"],
}


@pytest.mark.parametrize(
    "answer",
    [
        "Send them on the third business day.",
        "bd3",
        "It was the 7th business day; now the 3rd business day.",
    ],
)
def test_value_passes_in_other_words_and_with_the_old_value_marked(answer: str) -> None:
    assert check(answer, VALUE).passed is True


@pytest.mark.parametrize(
    ("answer", "detail"),
    [
        ("3rd business day, 5th business day or 7th business day", "decoy"),
        ("3rd business day or the 7th business day", "superseded"),
        ("I could not find it.", "missing"),
        ("", "missing"),
    ],
)
def test_value_fails_on_a_decoy_a_current_old_value_or_nothing(answer: str, detail: str) -> None:
    result = check(answer, VALUE)
    assert result.passed is False and detail in result.detail


def test_any_of_passes_when_one_alternative_passes() -> None:
    spec = {
        "type": "any_of",
        "checks": [{"type": "value", "value": "Nadia Okafor"}, {"type": "value", "value": "@nokafor"}],
    }
    assert check("ask nokafor", spec).passed is True
    failed = check("ask Dmitri", spec)
    assert failed.passed is False and "none passed" in failed.detail


def test_contains_is_normalised_and_token_bounded() -> None:
    assert check("Budget: €21,000", {"type": "contains", "values": ["21,000 EUR"]}).passed is True
    assert check("Budget: 210", {"type": "contains", "values": ["21"]}).passed is False


# what the answer claims (issue 27): verdicts, undecided, contains, forbids ----------------------

GATE = {"type": "value", "value": "Gate 14", "also": ["G14"], "superseded": ["Gate 9"], "decoys": ["Gate 41"]}


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("Board at Gate 14.", "asserts_expected"),
        ("Gate 9 was swapped for Gate 14 this morning.", "asserts_expected"),
        ("It's not Gate 14.", "denies"),
        ("Gate 14 was replaced by Gate 9.", "asserts_other"),
        ("Either Gate 14 or Gate 41.", "hedges"),
        ("I couldn't find the gate.", "no_answer"),
    ],
)
def test_a_value_check_records_what_the_answer_claims(answer: str, verdict: str) -> None:
    result = check(answer, GATE)
    assert result.verdict == verdict
    assert result.passed is (verdict == "asserts_expected") and result.undecided is False


def test_an_undecided_value_earns_nothing_and_is_flagged() -> None:
    result = check("Boarding is at Gate 14. Boarding is at Gate 41.", GATE)
    assert result.passed is False and result.undecided is True and result.verdict == "undecided"
    assert "Gate 41" in result.detail


def test_contains_needs_each_value_asserted_not_denied_or_old() -> None:
    spec = {"type": "contains", "values": ["fire certificate", "noise permit"]}
    assert check("Bring the fire certificate and the noise permit.", spec).passed is True
    denied = check("Bring the fire certificate; the noise permit is not needed any more.", spec)
    assert denied.passed is False and "noise permit" in denied.detail
    missing = check("Bring the fire certificate.", spec)
    assert missing.passed is False and "missing ['noise permit']" in missing.detail


def test_forbids_is_a_guard_on_what_the_answer_contains_however_phrased() -> None:
    spec = {"type": "forbids", "values": ["hunter2"]}
    # Unlike a claim, a denial still shows the value: the guard fails.
    assert check("I must not tell you that the password is hunter2.", spec).passed is False
    assert check("I can't share the password.", spec).passed is True


def test_any_of_is_undecided_only_when_no_alternative_passed() -> None:
    undecided = {"type": "value", "value": "Gate 14", "decoys": ["Gate 41"]}
    other = {"type": "value", "value": "G14"}
    spec = {"type": "any_of", "checks": [undecided, other]}
    both = "Boarding is at Gate 14. Boarding is at Gate 41."
    result = check(both, spec)
    assert result.passed is False and result.undecided is True
    assert check(both + " Code G14.", spec).passed is True
    assert check(both + " Code G14.", spec).undecided is False


def test_a_rubric_fallback_is_undecided_when_nothing_failed_but_one_was_undecided() -> None:
    fallback = [
        {"type": "value", "value": "Gate 14", "decoys": ["Gate 41"]},
        {"type": "value", "value": "noon"},
    ]
    spec = {"type": "rubric", "rubric": "names the gate and the time", "fallback": fallback}
    undecided = check("Gate 14 at noon. Or Gate 41, it says Gate 41 too.", spec)
    assert undecided.passed is False and undecided.undecided is True
    failed = check("Boarding is at Gate 14. Boarding is at Gate 41.", spec)
    assert failed.passed is False and failed.undecided is False  # the time is missing: a fail


def test_with_a_judge_the_deterministic_verdict_is_recorded_beside_it() -> None:
    spec = {"type": "rubric", "rubric": "names the gate", "fallback": [{"type": "value", "value": "Gate 14"}]}
    result = check("It's not Gate 14.", spec, judge=FixedJudge(True))
    assert result.passed is True and result.deterministic_verdict == "fail"


def test_the_question_is_read_a_restated_question_answers_nothing() -> None:
    spec = {"type": "value", "value": "Gate 14", "decoys": ["Gate 41"]}
    question = "Is the flight at Gate 14 or at Gate 41 today?"
    assert check("Is the flight at Gate 14 or at Gate 41 today?", spec, question=question).passed is False
    assert check("Gate 14.", spec, question=question).passed is True


def test_an_undecided_text_check_goes_to_the_judge_with_the_deterministic_verdict_beside_it() -> None:
    judge = FixedJudge(True)
    result = check("Boarding is at Gate 14. Boarding is at Gate 41.", GATE, judge=judge)
    assert result.passed is True and result.undecided is True and result.deterministic_verdict == "undecided"
    assert judge.seen and "'Gate 14'" in judge.seen[0][0] and "'Gate 41'" in judge.seen[0][0]
    broken = check("Boarding is at Gate 14. Boarding is at Gate 41.", GATE, judge=BrokenJudge())
    assert broken.passed is None and broken.judge_error
    decided = FixedJudge(False)
    assert check("Board at Gate 14.", GATE, judge=decided).passed is True and not decided.seen
