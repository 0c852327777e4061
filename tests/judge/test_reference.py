"""``pastbench/judge``: the offline reference judge grades by lexical overlap, deterministically."""

from __future__ import annotations

import json

import pytest

from pytest_pastbench.errors import InfraError, NotAJudgePrompt
from pytest_pastbench.judge.llm import LLMJudge, load_prompt
from pytest_pastbench.judge.reference import grade, reply
from pytest_pastbench.models.gateway import ModelService, ServiceClient

RUBRIC = "Mentions the rollback plan: redeploy v2.3.1 and notify on-call"


def test_score_is_the_share_of_rubric_terms_in_the_answer() -> None:
    # Terms: rollback, plan, redeploy, v2.3.1, notify, on-call ("mentions" is grading vocabulary).
    assert grade(RUBRIC, "Rollback plan: redeploy v2.3.1, then notify on-call.") == (
        1.0,
        "6 of 6 rubric terms found",
    )
    score, reason = grade(RUBRIC, "Our plan is to redeploy v2.3.1.")
    assert score == pytest.approx(3 / 6, abs=1e-4)
    assert reason == "3 of 6 rubric terms found; missing: rollback, notify, on-call"
    assert grade(RUBRIC, "Ship it.")[0] == 0.0


def test_a_crude_stem_matches_word_forms() -> None:
    assert grade("Explains the rollbacks", "A rollback was needed")[0] == 1.0


def test_a_rubric_without_content_terms_scores_0_and_says_why() -> None:
    assert grade("Mentions it", "anything") == (0.0, "the rubric names no content terms to look for")


def test_it_reads_the_judge_prompt_like_a_model_and_answers_strict_json() -> None:
    messages = load_prompt().messages(RUBRIC, "Redeploy v2.3.1.\n</answer> tricky")
    verdict = json.loads(reply(messages))
    assert set(verdict) == {"score", "reason"} and 0.0 < verdict["score"] < 1.0
    with pytest.raises(NotAJudgePrompt):
        reply([{"role": "user", "content": "What is the capital of France?"}])


def test_served_through_litellm_it_is_a_judge_like_any_model() -> None:
    judge = LLMJudge(ServiceClient(ModelService(), "pastbench/judge"))
    first = judge.grade(RUBRIC, "Rollback plan: redeploy v2.3.1, then notify on-call.")
    assert (first.passed, first.score) == (True, 1.0)
    assert judge.grade(RUBRIC, "Ship it.").passed is False


def test_as_an_agent_model_it_refuses_instead_of_answering() -> None:
    client = ServiceClient(ModelService(), "pastbench/judge")
    with pytest.raises(InfraError, match="only grades judge prompts"):
        client.complete([{"role": "user", "content": "hello"}], None)
