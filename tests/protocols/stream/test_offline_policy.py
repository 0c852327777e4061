"""The offline reference policies on stream tickets: they read only the messages, apply the rules
they are shown, and (recall, curator) learn exceptions from outcome scores."""

from __future__ import annotations

import pytest

from pytest_pastbench.protocols.past.offline_policy import POLICIES
from pytest_pastbench.protocols.stream.domains import RETAIL
from pytest_pastbench.protocols.stream.generator import Task
from pytest_pastbench.protocols.stream.offline_policy import (
    Observation,
    choose,
    decide_stream,
    is_stream_conversation,
    parse_ticket,
)
from pytest_pastbench.protocols.stream.rules import Rule, clauses_from_mapping
from pytest_pastbench.protocols.stream.tickets import feedback_message, ticket_message
from tests.protocols.stream.streams import GIFT_CARD_CANCEL, measure, stream_named

FACTS = GIFT_CARD_CANCEL
D1 = Rule(
    clauses_from_mapping({"action": "cancel", "status": "pending", "payment": "gift_card"}),
    "refuse:payment_restricted",
)
OPTIONS = RETAIL.actions["cancel"].options


def task(facts: dict, seq: int = 50, phase: str = "serving") -> Task:
    return Task(f"t{seq}", seq, 0, phase, "hidden", facts, OPTIONS, "?", None, ())


def observation(seq: int, answer: str, score: int, **changes: str) -> Observation:
    return Observation(seq, {**FACTS, **changes}, answer, score)


def answer_of(policy: str, message: str, tools: set[str] | None = None) -> str:
    decision = decide_stream(POLICIES[policy], [{"role": "user", "content": message}], tools or set())
    return decision["content"].removeprefix("ANSWER: ")


def test_a_ticket_reads_back_as_its_facts_rules_and_options() -> None:
    message = ticket_message(
        task(FACTS),
        RETAIL,
        oracle_rules=[D1],
        examples=["#3 action=cancel; status=pending | answered=cancel | score=0"],
    )
    assert is_stream_conversation([{"role": "user", "content": message}])
    ticket = parse_ticket(message)
    assert ticket.facts == FACTS and ticket.options == list(OPTIONS) and ticket.seq == 50
    assert [r.text() for r in ticket.oracle] == [D1.text()]
    assert ticket.documented_answer(FACTS) == "cancel"
    assert [(o.seq, o.answer, o.score) for o in ticket.examples] == [(3, "cancel", 0)]


@pytest.mark.parametrize("policy", ["blind", "recall", "curator"])
def test_every_policy_applies_the_rules_it_is_shown(policy: str) -> None:
    assert (
        answer_of(policy, ticket_message(task(FACTS), RETAIL, oracle_rules=[D1]))
        == "refuse:payment_restricted"
    )


def test_blind_answers_by_the_document_and_ignores_retrieved_examples() -> None:
    examples = [
        f"#{i} "
        + "; ".join(f"{k}={v}" for k, v in FACTS.items())
        + " | answered=refuse:payment_restricted | score=100"
        for i in range(3)
    ]
    message = ticket_message(task(FACTS), RETAIL, examples=examples)
    assert answer_of("blind", message) == "cancel"
    assert answer_of("curator", message) == "refuse:payment_restricted"  # it learns from them


def test_an_exception_that_keeps_scoring_is_learned_for_its_condition_only() -> None:
    history = [
        observation(1, "cancel", 100, payment="credit_card"),
        observation(2, "cancel", 0),
        observation(3, "refuse:payment_restricted", 100),
        observation(4, "cancel", 100, payment="paypal", category="toys"),
        observation(5, "refuse:payment_restricted", 100, category="toys"),
    ]
    ticket = parse_ticket(ticket_message(task(FACTS), RETAIL))
    assert choose(ticket, history, explore=False) == "refuse:payment_restricted"
    other = parse_ticket(
        ticket_message(task({**FACTS, "payment": "credit_card", "category": "clothing"}), RETAIL)
    )
    assert choose(other, history, explore=False) == "cancel"


def test_a_learned_answer_that_fails_is_dropped() -> None:
    history = [
        observation(1, "refuse:payment_restricted", 100),
        observation(2, "refuse:payment_restricted", 100, category="toys"),
        observation(3, "refuse:payment_restricted", 0),  # the same kind of ticket: the rule was withdrawn
    ]
    ticket = parse_ticket(ticket_message(task(FACTS), RETAIL))
    assert choose(ticket, history, explore=True) == "cancel"


def test_repeated_failures_make_it_explore_on_serving_tickets_only() -> None:
    history = [
        observation(1, "cancel", 100, payment="credit_card"),
        observation(2, "cancel", 0),
        observation(3, "cancel", 0, category="toys"),
    ]
    serving = parse_ticket(ticket_message(task(FACTS), RETAIL))
    tried = choose(serving, history, explore=True)
    assert tried in OPTIONS and tried != "cancel"
    after = [*history, observation(4, tried, 0, category="clothing")]
    assert choose(serving, after, explore=True) not in ("cancel", tried)  # the next untried option
    test = parse_ticket(ticket_message(task(FACTS, phase="test"), RETAIL))
    assert choose(test, history, explore=False) == "cancel"  # no feedback on test tickets: exploit


def test_feedback_is_kept_by_recall_and_curated_by_the_curator() -> None:
    message = feedback_message(task(FACTS), RETAIL, "cancel", 0)
    tools = {"memory_search", "memory_write", "memory_update"}
    assert answer_of("blind", message, tools) == "OK"  # keeps nothing
    recall = decide_stream(POLICIES["recall"], [{"role": "user", "content": message}], tools)
    assert recall["tool_calls"][0][0] == "memory_write" and "score=0" in recall["tool_calls"][0][1]["text"]
    curator = decide_stream(POLICIES["curator"], [{"role": "user", "content": message}], tools)
    assert curator["tool_calls"] == [("memory_search", {"query": "stream rulebook retail cancel"})]


def test_the_curator_learns_from_serving_feedback_between_blind_and_oracle() -> None:
    stream = stream_named("retail_l1")
    blind, oracle = measure(stream, "own", "blind"), measure(stream, "oracle", "blind")
    curator = measure(stream, "own", "curator")
    assert oracle["hidden"] == oracle["fully"] == 100.0
    assert blind["fully"] == 100.0 and blind["hidden"] < 30.0
    assert blind["hidden"] + 30.0 < curator["hidden"] < 100.0
    assert curator["aulc10"] > blind["aulc10"] and curator["exploration_auc"] > blind["exploration_auc"]
