"""The stream's messages: a ticket shows its action's documented rules and options, feedback gives
the answer and its score but never the right answer, and the agent's choice is read back."""

from __future__ import annotations

from pytest_pastbench.protocols.stream.domains import RETAIL
from pytest_pastbench.protocols.stream.generator import Task
from pytest_pastbench.protocols.stream.rules import Rule, clauses_from_mapping
from pytest_pastbench.protocols.stream.tickets import (
    FEEDBACK_MARKER,
    ORACLE_HEADER,
    TICKET_MARKER,
    example_line,
    feedback_message,
    parse_answer,
    ticket_message,
)
from tests.protocols.stream.streams import GIFT_CARD_CANCEL

OPTIONS = RETAIL.actions["cancel"].options
HIDDEN = Rule(clauses_from_mapping({"action": "cancel", "payment": "gift_card"}), "refuse:payment_restricted")
RETURNS = Rule(clauses_from_mapping({"action": "return", "category": "clearance"}), "refuse:final_sale")
RIGHT = "refuse:payment_restricted"
TICKET = Task("t7", 7, 0, "serving", "hidden", GIFT_CARD_CANCEL, OPTIONS, RIGHT, None, ())


def test_a_ticket_shows_its_facts_its_actions_documented_rules_and_its_options() -> None:
    lines = ticket_message(TICKET, RETAIL).splitlines()
    assert lines[0] == f"{TICKET_MARKER} retail #7 serving t7"
    assert "- payment: gift_card" in lines
    documented = [line for line in lines if line.startswith("- when ")]
    assert documented and all("action is cancel" in line for line in documented)  # not return's rules
    assert lines[-2] == "Options: cancel | refuse:not_pending | refuse:payment_restricted"
    assert ORACLE_HEADER not in lines and any("Undisclosed rules" in line for line in lines)


def test_the_oracle_sees_the_active_rules_for_its_action_only() -> None:
    lines = ticket_message(TICKET, RETAIL, oracle_rules=[HIDDEN, RETURNS]).splitlines()
    shown = lines[lines.index(ORACLE_HEADER) + 1 :]
    assert f"- {HIDDEN.text()}" in shown and f"- {RETURNS.text()}" not in shown
    assert not any("Undisclosed rules" in line for line in lines)


def test_feedback_quotes_the_ticket_and_the_score_never_the_right_answer() -> None:
    text = feedback_message(TICKET, RETAIL, "cancel", 0)
    assert text.splitlines()[0] == f"{FEEDBACK_MARKER} retail #7 serving t7"
    assert "was: cancel" in text and "Score: 0/100" in text
    assert TICKET_MARKER not in text and "The customer asks to cancel the order." in text
    said = text.split("The ticket was:")[0]
    assert RIGHT not in said  # the options quoted below list it among the others, no more
    assert "was: (none)" in feedback_message(TICKET, RETAIL, "", 0)


def test_an_example_line_carries_facts_answer_and_score() -> None:
    line = example_line(TICKET, "cancel", 100)
    assert line.startswith("#7 action=cancel; status=pending; payment=gift_card")
    assert line.endswith(" | answered=cancel | score=100")


def test_the_answer_is_the_last_answer_line_else_a_bare_option_else_nothing() -> None:
    assert parse_answer("ANSWER: cancel\nthinking again...\nANSWER: Refuse:Payment_Restricted", OPTIONS) == (
        "refuse:payment_restricted"
    )
    assert parse_answer("  Cancel \n", OPTIONS) == "cancel"
    assert parse_answer("I would cancel it", OPTIONS) == ""  # prose is no answer
    assert parse_answer("", OPTIONS) == ""
