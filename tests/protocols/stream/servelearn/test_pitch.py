"""The Pitch rubric as a pure function, the customer's taste from a bulletin, the judge seam."""

from __future__ import annotations

import pytest

from pytest_pastbench.judge.base import Verdict
from pytest_pastbench.protocols.stream.servelearn.pitch import (
    Checked,
    JudgeChecklist,
    ReferenceJudge,
    Sheet,
    distinct_claims,
    grade_pitch,
    oracle_pitch,
    rubric_score,
    sheet,
    taste,
)

from .helpers import scenarios

PITCH = scenarios()["pitch_l1"]
FIRST = PITCH.serving[0]  # window 0, Kettle One


def test_the_taste_comes_from_the_bulletin_with_red_lines() -> None:
    likes = taste(PITCH.window(0).oracle_bulletin)
    assert likes == {
        "budget-friendly price": "pos",
        "feature-rich, does a lot": "pos",
        "premium price": "neg",
        "a trending, much-talked-about item": "red",
    }


def test_the_sheet_is_the_instructions_facts_with_their_valence() -> None:
    assert sheet(PITCH, FIRST).facts == {
        "already has a large user base": "neu",
        "budget-friendly price": "pos",
        "standard materials": "neu",
        "feature-rich, does a lot": "pos",
        "rarely mentioned in the press or on social media": "neu",
    }


SHEET = Sheet({"a": "pos", "b": "pos", "c": "neg", "d": "red", "e": "neu"})


@pytest.mark.parametrize(
    ("marks", "invented", "words", "score"),
    [
        ({"a": "M", "b": "M"}, [], 50, 100.0),
        ({"a": "M"}, [], 50, 50.0),
        ({"a": "M", "b": "M", "c": "M"}, [], 50, 50.0),  # a disliked fact touched: x0.5
        ({"a": "M", "b": "M", "d": "C"}, [], 50, 15.0),  # red line (x0.3) and a contradiction (x0.5)
        ({"a": "M", "b": "M"}, ["waterproof", "Waterproof", "free shipping"], 50, 25.0),  # deduplicated
        ({"a": "M", "b": "M"}, [f"claim {i}" for i in range(9)], 50, 100 * 0.5**5),  # capped at five
        ({"a": "M", "b": "M"}, [], 91, 25.0),  # over 90 words
        ({}, [], 50, 0.0),
    ],
)
def test_the_rubric_score(marks: dict, invented: list[str], words: int, score: float) -> None:
    assert rubric_score(SHEET, Checked(marks, invented), words)[0] == pytest.approx(score)


def test_the_oracle_pitch_scores_100_with_the_reference_judge_and_the_judge_is_recorded() -> None:
    result = grade_pitch(PITCH, FIRST, oracle_pitch(PITCH, FIRST), JudgeChecklist(ReferenceJudge()))
    assert (result.reward, result.judge) == (1.0, "pastbench/judge")
    # Trending is not on this sheet: saying it is an invented claim, which a one-score judge seam
    # cannot report (only a Checklist can); documented, and pinned here so a change is noticed.
    off_sheet = "Budget-friendly price and feature-rich, does a lot; a trending, much-talked-about item."
    assert grade_pitch(PITCH, FIRST, off_sheet, JudgeChecklist(ReferenceJudge())).reward == 1.0
    other = PITCH.serving[1]  # Lamp Air: premium and trending are on this sheet
    hurt_pitch = "Premium price. Feature-rich, does a lot. A trending, much-talked-about item."
    hurt = grade_pitch(PITCH, other, hurt_pitch, JudgeChecklist(ReferenceJudge()))
    assert hurt.reward == pytest.approx(0.5 * 0.3)


def test_no_pitch_scores_zero_and_any_judge_object_plugs_in() -> None:
    assert grade_pitch(PITCH, FIRST, "  ", JudgeChecklist(ReferenceJudge())).reward == 0.0

    class Everything:
        name = "test/everything"

        def grade(self, rubric: str, answer: str) -> Verdict:
            return Verdict(passed=True, score=1.0)

    result = grade_pitch(PITCH, FIRST, "anything", JudgeChecklist(Everything()))
    assert result.judge == "test/everything" and result.reward == 1.0  # no dislike on this sheet


def test_an_invented_claim_quoted_twice_with_other_punctuation_counts_once() -> None:
    claims = ["Ships free!", "ships  free", "Waterproof to 30m.", "!!!"]
    assert distinct_claims(claims) == ["ships free", "waterproof to 30m"]
