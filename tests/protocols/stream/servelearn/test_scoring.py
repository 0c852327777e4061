"""Feedback line, setting scores and the leaderboard averages on hand-made rows."""

from __future__ import annotations

import pytest

from pytest_pastbench.protocols.stream.servelearn.schema import Window
from pytest_pastbench.protocols.stream.servelearn.scoring import (
    SCENARIOS,
    Row,
    averages,
    category_of,
    feedback_line,
    oracle_context,
    setting_scores,
)


def test_the_feedback_line_is_the_score_and_nothing_else() -> None:
    assert feedback_line(1.0) == "Score: 100/100."
    assert feedback_line(0.0) == "Score: 0/100."
    assert feedback_line(0.625) == "Score: 62.5/100."


def test_the_oracle_is_told_the_bulletin_only() -> None:
    window = Window(window=2, first_position=40, oracle_bulletin="- Gift cards cannot pay.")
    assert oracle_context(window) == "- Gift cards cannot pay."


def test_category_follows_the_slice_and_pitch_is_always_hidden() -> None:
    assert category_of("retail", "adapt") == "hidden"
    assert category_of("banking", "reopen") == "fully_specified"
    assert category_of("pitch", "general") == "hidden"


def test_a_setting_score_is_the_mean_test_reward_of_one_category() -> None:
    rows = [
        Row("retail_l1", "test", "hidden", 1.0),
        Row("retail_l1", "test", "hidden", 0.0),
        Row("retail_l1", "test", "hidden", 1.0),
        Row("retail_l1", "test", "fully_specified", 1.0),
        Row("retail_l1", "serving", "hidden", 0.0),  # serving tasks never count
        Row("pitch_l1", "test", "hidden", 0.5),
    ]
    scores = setting_scores(rows)
    assert scores["retail_l1"]["hidden"] == pytest.approx(200 / 3)
    assert scores["retail_l1"]["fully_specified"] == 100.0
    assert scores["pitch_l1"] == {"hidden": 50.0, "fully_specified": None}


def test_avg_h_and_avg_f_weight_every_setting_once_and_need_all_of_them() -> None:
    scores = {s: {"hidden": float(i * 10), "fully_specified": 90.0} for i, s in enumerate(SCENARIOS)}
    result = averages(scores)
    assert result.avg_h == pytest.approx(40.0)  # mean of 0, 10, ..., 80
    assert result.avg_f == 90.0 and result.missing == ()
    del scores["banking_l2"]
    partial = averages(scores)
    assert (partial.avg_h, partial.avg_f) == (None, None)
    assert partial.missing == ("banking_l2:hidden", "banking_l2:fully_specified")


def test_averages_over_a_chosen_set_of_settings() -> None:
    scores = {"retail_l1": {"hidden": 20.0, "fully_specified": 100.0}, "pitch_l1": {"hidden": 60.0}}
    result = averages(scores, scenarios=("retail_l1", "pitch_l1"))
    assert (result.avg_h, result.avg_f) == (40.0, 100.0)


def test_the_score_line_keeps_six_significant_digits() -> None:
    assert feedback_line(0.0123456) == "Score: 1.23456/100."  # not rounded to four decimals
    assert feedback_line(0.123456789) == "Score: 12.3457/100."
