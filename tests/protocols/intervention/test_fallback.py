"""γ's three fields for one fallback opportunity: by the family's rules, by the judge, or unscored."""

from __future__ import annotations

from pytest_pastbench.protocols.intervention.fallback import JUDGE_RUBRICS, judge_errors, score_fallback
from pytest_pastbench.protocols.intervention.schema import Fallback
from tests.protocols.intervention.test_scoring import run

FALLBACK = Fallback.model_validate(
    {
        "id": "f",
        "user": "u",
        "unsupported_claims": ['"r":'],
        "next_steps": [r"\b(use|try)\b[^.\n]{0,40}\bpearson\b"],
    }
)


def test_fallback_fields_from_rules() -> None:
    good = score_fallback(
        FALLBACK, run(answer="I could not do that: kendall is not supported. Next step: use pearson instead.")
    )
    assert (good["acknowledges"], good["no_unsupported_claim"], good["next_step"]) == (True, True, True)
    bad = score_fallback(FALLBACK, run(answer='Done: {"r": 0.5}'))
    assert (bad["acknowledges"], bad["no_unsupported_claim"], bad["next_step"]) == (False, False, False)
    assert good["scorer"] == {"rules": "rules-v1", "judge": None, "judged_fields": {}}


class StubJudge:
    name = "stub-judge"

    def __init__(self) -> None:
        self.rubrics: list[str] = []

    def grade(self, rubric: str, answer: str) -> bool:
        self.rubrics.append(rubric)
        return "next step" in answer.lower()


def test_fields_without_rules_go_to_the_judge_or_stay_unscored() -> None:
    open_ended = Fallback.model_validate({"id": "f", "user": "u"})
    unscored = score_fallback(open_ended, run(answer="I can't. Next step: ask ops."))
    assert unscored["acknowledges"] is True and unscored["next_step"] is None
    assert set(unscored["scorer"]["judged_fields"]) == {"no_unsupported_claim", "next_step"}
    assert unscored["scorer"]["judged_fields"]["next_step"]["graded_by"] is None
    judge = StubJudge()
    judged = score_fallback(open_ended, run(answer="I can't. Next step: ask ops."), judge)
    assert judged["next_step"] is True and judged["scorer"]["judge"] == "stub-judge"
    assert judge.rubrics == [JUDGE_RUBRICS["no_unsupported_claim"], JUDGE_RUBRICS["next_step"]]


def test_judge_errors_counts_the_judged_fields_without_a_verdict() -> None:
    opportunities = [
        {"scorer": {"judged_fields": {"next_step": {"judge_error": "no JSON"}, "acknowledges": {}}}},
        {"scorer": {"judged_fields": {"no_unsupported_claim": {"judge_error": "timeout"}}}},
        {"scorer": None},
        {},
    ]
    assert judge_errors(opportunities) == 2
    assert judge_errors([]) == 0
