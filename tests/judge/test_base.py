"""The judge seam: its report lines, and the judge grading free text (claim verdicts, judge_error)."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import TypeAdapter

from pytest_pastbench.core.records import CheckResult, SessionRecord, SessionScore
from pytest_pastbench.errors import InfraError
from pytest_pastbench.judge import reference
from pytest_pastbench.judge.base import disagreement_line, judge_lines
from pytest_pastbench.judge.llm import JUDGE_ATTEMPTS, LLMJudge
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.models.offline_models import claim_reader
from pytest_pastbench.protocols.past.engine import _check_judged
from pytest_pastbench.protocols.past.metrics import judge_disagreement
from pytest_pastbench.protocols.past.schema import Session
from pytest_pastbench.protocols.past.scoring import score_session
from pytest_pastbench.protocols.shared.checks import evaluate_check
from pytest_pastbench.protocols.shared.schema import Check, Safety


def summary(judge: dict | None, errors: int) -> dict:
    overall = {"judge_errors": errors}
    return {"run": {"judge": judge}, "configs": [{"label": "hermes@m", "overall": overall}]}


def test_no_judge_no_lines() -> None:
    assert judge_lines(summary(None, 0)) == []


def test_the_judge_and_its_errors_are_named() -> None:
    judge = {"model": "pastbench/judge", "prompt_hash": "abc123"}
    assert judge_lines(summary(judge, 0)) == ["judge: pastbench/judge (prompt abc123)"]
    lines = judge_lines(summary(judge, 2))
    assert lines[1].startswith("hermes@m: 2 check(s) got no verdict from the judge (judge_error")


def test_describe_judge_reads_the_run_block() -> None:
    from pytest_pastbench.judge.base import describe_judge
    from pytest_pastbench.results.gates import compatibility_warnings

    judged = {"model": "pastbench/judge", "prompt_hash": "abc123"}
    assert describe_judge(judged) == "pastbench/judge (prompt abc123)"
    assert describe_judge(None) == "none"
    run = {"dataset_hash": "d", "models": ["m"]}
    [warning] = compatibility_warnings({**run, "judge": judged}, {**run, "judge": None})
    assert warning.startswith("judge differs: current pastbench/judge (prompt abc123), baseline none")


# -- the judge grades free text (issue 27 item 2) -------------------------------------------------


_CHECK = TypeAdapter(Check)
QUESTION = "Which dock do we unload the Halvorsen trucks at?"
DOCK = {"type": "value", "value": "Dock 11", "also": ["D11"], "superseded": ["Dock 4B"], "decoys": ["Dock 7"]}


class ScriptedClient:
    """A ``ModelClient`` that answers from a script (or the offline reference judge) and keeps
    every conversation it was sent."""

    def __init__(self, replies: list[str] | None = None, model: str = "scripted") -> None:
        self.model = model
        self.replies = replies
        self.sent: list[list[dict[str, Any]]] = []

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        self.sent.append(messages)
        if self.replies is None:
            return ModelReply(content=reference.reply(messages, claim_reader()))
        return ModelReply(content=self.replies[min(len(self.sent), len(self.replies)) - 1])


def offline_judge() -> tuple[LLMJudge, ScriptedClient]:
    client = ScriptedClient(model="pastbench/judge")
    return LLMJudge(client), client


def judged(answer: str, spec: dict[str, Any], judge: Any) -> CheckResult:
    run = SessionRecord(index=3, stage="eval_near", now="2026-03-02T10:00:00", answer=answer)
    return evaluate_check(_CHECK.validate_python(spec), run, judge, question=QUESTION)


def test_the_judge_sees_the_question_the_accepted_forms_the_wrong_values_by_role_and_the_answer() -> None:
    judge, client = offline_judge()
    judged("Unload at Dock 11.", DOCK, judge)
    [[system, user]] = client.sent
    assert '"verdict"' in system["content"] and "hedges" in system["content"]
    text = user["content"]
    assert f"<question>\n{QUESTION}\n</question>" in text
    assert "<rubric>\nnone\n</rubric>" in text  # a value check has no rubric
    fact = {"expected": ["Dock 11", "D11"], "superseded": ["Dock 4B"], "decoys": ["Dock 7"]}
    assert f"<facts>\n{json.dumps(fact)}\n</facts>" in text
    assert text.endswith("<answer>\nUnload at Dock 11.\n</answer>")


@pytest.mark.parametrize(
    "answer",
    [
        "Unload at Dock 11.",
        "D11",
        "Dock 7.",
        "Dock 4B.",
        "Dock 4B is closed; use Dock 11 now.",
        "I could not find it.",
        "",
    ],
)
def test_offline_the_judge_path_reads_a_value_check_as_the_deterministic_grader_does(answer: str) -> None:
    judge, _ = offline_judge()
    result = judged(answer, DOCK, judge)
    alone = judged(answer, DOCK, None)
    assert result.verdict in {"asserts_expected", "asserts_other", "hedges", "denies", "no_answer"}
    assert result.verdict == result.deterministic_verdict  # recorded beside the judge's
    assert result.passed is (result.verdict == "asserts_expected")
    assert result.passed is alone.passed
    assert result.detail.startswith(f"judge pastbench/judge: {result.verdict}")


def test_a_rubric_with_text_fallbacks_keeps_its_rubric_in_the_prompt_and_needs_every_fact() -> None:
    spec = {
        "type": "rubric",
        "rubric": "Names the dock and the incident",
        "fallback": [{"type": "value", "value": "Dock 11"}, {"type": "value", "value": "INC-2290"}],
    }
    judge, client = offline_judge()
    both = judged("Dock 11, as INC-2290 says.", spec, judge)
    one = judged("Dock 11.", spec, judge)
    assert "<rubric>\nNames the dock and the incident\n</rubric>" in client.sent[0][1]["content"]
    assert (both.passed, both.verdict, both.deterministic_verdict) == (
        True,
        "asserts_expected",
        "asserts_expected",
    )
    assert (one.passed, one.verdict) == (False, "no_answer")


def test_a_rubric_without_text_fallback_is_still_scored_by_its_rubric() -> None:
    judge, client = offline_judge()
    result = judged("The rollback is planned.", {"type": "rubric", "rubric": "Mentions the rollback"}, judge)
    assert result.passed is True and result.score is not None and result.verdict is None
    assert "<facts>" not in client.sent[0][1]["content"]  # the rubric prompt, as before


def test_any_of_alternatives_go_to_the_judge_and_one_asserted_passes() -> None:
    spec = {
        "type": "any_of",
        "checks": [{"type": "value", "value": "Ines Marchetti"}, {"type": "value", "value": "@ines.m"}],
    }
    judge, client = offline_judge()
    result = judged("Ask @ines.m.", spec, judge)
    assert (result.passed, result.verdict, result.deterministic_verdict) == (
        True,
        "asserts_expected",
        "asserts_expected",
    )
    assert len(client.sent) == 2


@pytest.mark.parametrize(
    "reply",
    [
        "Looks right to me!",  # not JSON
        '{"verdict": "probably_right", "reason": "close enough"}',  # not one of the five
        '{"verdict": "undecided", "reason": "cannot tell"}',  # the grader's, never the judge's
        '{"verdict": "asserts_expected"}',  # no reason
        '{"score": 1.0, "reason": "met"}',  # a rubric reply to a claim prompt
    ],
)
def test_a_bad_verdict_is_a_judge_error_never_a_pass_or_a_0(reply: str) -> None:
    client = ScriptedClient([reply])
    result = judged("Unload at Dock 11.", DOCK, LLMJudge(client))
    assert result.passed is None and result.verdict is None
    assert result.judge_error and result.judge_error.startswith(
        f"scripted: no valid verdict in {JUDGE_ATTEMPTS}"
    )
    assert result.deterministic_verdict == "asserts_expected"  # still recorded beside it
    assert len(client.sent) == JUDGE_ATTEMPTS  # asked again, with the problem named
    assert "could not be used" in client.sent[-1][-1]["content"]


def test_a_malformed_reply_then_a_good_one_is_that_verdict() -> None:
    client = ScriptedClient(["nope", '{"verdict": "denies", "reason": "says it is not Dock 11"}'])
    result = judged("It is not Dock 11.", DOCK, LLMJudge(client))
    assert (result.passed, result.verdict, result.judge_error) == (False, "denies", None)
    assert result.detail == "judge scripted: denies: says it is not Dock 11"


class GarbageReader:
    name = "garbage"

    def grade(self, rubric: str, answer: str) -> bool:
        return True

    def read(self, claim: Any) -> Any:
        return "asserts_expected"  # a bare string, not a ClaimVerdict


def test_a_judge_object_returning_garbage_is_a_judge_error() -> None:
    result = judged("Unload at Dock 11.", DOCK, GarbageReader())
    assert result.passed is None and "no verdict among" in (result.judge_error or "")


class RubricOnly:
    name = "rubric-only"

    def grade(self, rubric: str, answer: str) -> bool:
        return True


def test_a_judge_without_read_leaves_text_checks_to_the_deterministic_grader() -> None:
    result = judged("Dock 7.", DOCK, RubricOnly())
    assert result.passed is False and result.deterministic_verdict is None


def test_a_judge_error_beside_a_scored_check_leaves_it_out_and_all_unscored_blocks_the_item() -> None:
    session = Session.model_validate(
        {
            "stage": "eval_near",
            "user": ["hi", QUESTION],
            "checks": [DOCK, {"type": "tool_called", "tool": "notes_search"}],
        }
    )
    run = SessionRecord(index=3, stage="eval_near", now="2026-03-02T10:00:00", answer="Dock 11")
    bad = LLMJudge(ScriptedClient(["garbage"]))
    score = score_session(session, run, Safety(), bad)
    assert (
        score.judge_errors == 1 and score.reason == "judge_error" and score.c == 0.0
    )  # the tool check failed
    _check_judged([score])  # a credit check was scored: measured
    only_text = Session.model_validate({"stage": "eval_near", "user": QUESTION, "checks": [DOCK]})
    with pytest.raises(InfraError, match="judge_error: no verdict on any credit check of session 3"):
        _check_judged([score_session(only_text, run, Safety(), bad)])


def test_the_question_is_the_sessions_last_user_turn() -> None:
    judge, client = offline_judge()
    session = Session.model_validate(
        {"stage": "eval_near", "user": ["first turn", QUESTION], "checks": [DOCK]}
    )
    run = SessionRecord(index=3, stage="eval_near", now="2026-03-02T10:00:00", answer="Dock 11")
    score_session(session, run, Safety(), judge)
    assert f"<question>\n{QUESTION}\n</question>" in client.sent[0][1]["content"]


def _record(*checks: CheckResult) -> Any:
    session = SessionScore(index=1, stage="eval_near", s=0, c=0, r=0, sigma=1, checks=list(checks))
    return SimpleNamespace(sessions=[session])


def _judged(verdict: str | None, deterministic: str) -> CheckResult:
    return CheckResult(
        type="value", weight=1, passed=None, verdict=verdict, deterministic_verdict=deterministic
    )


def test_disagreement_counts_decided_pairs_and_names_undecided_and_errors_apart() -> None:
    records = [
        _record(_judged("asserts_expected", "asserts_expected"), _judged("denies", "asserts_expected")),
        _record(_judged("hedges", "undecided"), _judged(None, "no_answer")),
        _record(CheckResult(type="value", weight=1, passed=True)),  # not judged
    ]
    got = judge_disagreement(records)
    assert got == {"checks": 4, "compared": 2, "disagree": 1, "rate": 0.5, "undecided": 1, "judge_errors": 1}
    assert judge_disagreement([_record(CheckResult(type="value", weight=1, passed=True))]) is None
    config = {
        "label": "hermes@m",
        "overall": {"judge_disagreement": got},
        "capabilities": {"update": {"judge_disagreement": got}, "memory": {"judge_disagreement": None}},
    }
    assert disagreement_line(config) == (
        "hermes@m: judge vs deterministic grader disagree on 50.0% (1/2) of text checks "
        "(update 50.0% (1/2)); 1 undecided by the grader, decided by the judge"
    )
    assert disagreement_line({"label": "x", "overall": {"judge_disagreement": None}}) is None
