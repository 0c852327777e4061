"""Each stream metric on hand-made sequences with known answers."""

from __future__ import annotations

import pytest

from pytest_pastbench.protocols.stream.engine import TicketResult
from pytest_pastbench.protocols.stream.metrics import (
    activation_runs,
    aulc,
    exploration_auc,
    exploration_curve,
    forgetting,
    knowledge_acquisition,
    policy_tickets,
    stream_metrics,
    withdrawal_tickets,
)


def ticket(seq: int, window: int, *, phase: str = "serving", case: str = "hidden", rule: str | None = None,
           stale: tuple[str, ...] = (), answer: str = "a", score: int = 100) -> TicketResult:  # fmt: skip
    return TicketResult(seq, window, phase, case, rule, stale, answer, score, tokens=10, cost_usd=0.0)


def test_aulc_averages_the_kth_ticket_over_policies_that_have_one() -> None:
    # k=1: (0+1)/2, k=2: (1+1)/2, k=3: 1/1 -> mean 0.8333
    assert aulc([[0, 1, 1], [1, 1]], k=3) == pytest.approx(83.33)
    assert aulc([[0] * 12], k=10) == 0.0
    assert aulc([]) is None


def test_exploration_counts_distinct_answers_after_k_tickets() -> None:
    answers = [["a", "b", "a"], ["a", "a"]]
    assert exploration_curve(answers, k=3) == [1.0, 1.5, 2.0]
    assert exploration_auc(answers, k=3) == pytest.approx(1.5)
    assert exploration_auc([["a"] * 8], k=8) == 1.0  # never tried anything new
    assert exploration_auc([]) is None


def test_knowledge_acquisition_is_correctness_after_the_first_success() -> None:
    # first success at index 2; the next five are 1,0,1,1,1 -> 0.8; no success: skipped;
    # a success with nothing after it: skipped.
    assert knowledge_acquisition([[0, 0, 1, 1, 0, 1, 1, 1, 1], [0, 0], [1]]) == pytest.approx(80.0)
    assert knowledge_acquisition([[0, 0]]) is None


def test_forgetting_is_correctness_on_the_first_tickets_after_a_withdrawal() -> None:
    assert forgetting([[0, 1, 1], [1] * 10 + [0] * 5]) == pytest.approx(83.33)
    assert forgetting([]) is None


def test_activation_runs() -> None:
    assert activation_runs("-XX--X") == [(1, 2), (5, 5)]
    assert activation_runs("XXXX") == [(0, 3)]
    assert activation_runs("----") == []


def test_policies_split_at_reentry_and_withdrawals_stop_at_it() -> None:
    activation = {"R": "X-X", "Q": "XXX"}
    tickets = [
        ticket(0, 0, rule="R", score=0),
        ticket(1, 0, rule="R"),
        ticket(2, 0, rule="Q"),
        ticket(3, 1, rule=None, stale=("R",), score=0),
        ticket(4, 1, rule=None, stale=("R",)),
        ticket(5, 1, phase="test", rule=None, stale=("R",)),  # test tickets are not serving tickets
        ticket(6, 2, rule="R"),
        ticket(7, 2, case="fully"),
    ]
    policies = policy_tickets(tickets, activation)
    assert [[t.seq for t in p] for p in policies] == [[2], [0, 1], [6]]  # Q, then R's two runs
    assert [[t.seq for t in g] for g in withdrawal_tickets(tickets, activation)] == [[3, 4]]


def test_stream_metrics_from_tickets() -> None:
    tickets = [
        ticket(0, 0, rule="R", answer="x", score=0),
        ticket(1, 0, rule="R", answer="y", score=100),
        ticket(2, 0, case="fully", answer="d", score=100),
        ticket(3, 0, phase="test", rule="R", score=100),
        ticket(4, 0, phase="test", rule="R", score=0),
        ticket(5, 0, phase="test", case="fully", score=100),
    ]
    result = stream_metrics(tickets, {"R": "X"})
    metrics = result["metrics"]
    assert (metrics["hidden"], metrics["fully"]) == (50.0, 100.0)
    assert (metrics["serving_hidden"], metrics["serving_fully"]) == (50.0, 100.0)
    assert metrics["aulc10"] == 50.0 and metrics["exploration_auc"] == 1.5 and metrics["ka5"] is None
    assert metrics["forgetting"] is None  # nothing was withdrawn: not a zero
    assert metrics["tokens_per_task"] == 10.0 and metrics["cost_per_task"] == 0.0 and metrics["tasks"] == 6
    assert result["windows"] == [
        {
            "window": 0,
            "serving": {"hidden": 50.0, "fully": 100.0, "n": 3},
            "test": {"hidden": 50.0, "fully": 100.0, "n": 3},
        }
    ]


def test_an_unknown_price_makes_the_cost_unknown() -> None:
    tickets = [
        ticket(0, 0),
        TicketResult(1, 0, "serving", "hidden", None, (), "a", 100, tokens=4, cost_usd=None),
    ]
    assert stream_metrics(tickets, {})["metrics"]["cost_per_task"] is None
