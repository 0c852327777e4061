"""The rule engine: clause semantics, the text form every reader shares, and precedence."""

from __future__ import annotations

import pytest

from pytest_pastbench.protocols.stream.domains import DOMAINS
from pytest_pastbench.protocols.stream.rules import (
    Clause,
    Rule,
    clauses_from_mapping,
    conflicting,
    correct_answer,
    deciding_rule,
    is_hidden,
    parse_rule,
)

from .streams import GIFT_CARD_CANCEL, packaged_streams

RETAIL = DOMAINS["retail"]
D1 = Rule(
    tuple(clauses_from_mapping({"action": "cancel", "status": "pending", "payment": "gift_card"})),
    "refuse:payment_restricted",
    id="D1",
)


@pytest.mark.parametrize(
    ("clause", "facts", "expected"),
    [
        (Clause("payment", "is", "gift_card"), {"payment": "gift_card"}, True),
        (Clause("payment", "is not", "gift_card"), {"payment": "gift_card"}, False),
        (Clause("payment", "is one of", ("paypal", "gift_card")), {"payment": "gift_card"}, True),
        (Clause("amount", "above", 650), {"amount": 650}, False),
        (Clause("amount", "above", 650), {"amount": 660}, True),
        (Clause("amount", "at most", 650), {"amount": 650}, True),
        (Clause("amount", "above", 650), {"amount": "high"}, False),
        (Clause("amount", "above", 650), {}, False),
    ],
)
def test_clauses(clause: Clause, facts: dict, expected: bool) -> None:
    assert clause.matches(facts) is expected


def test_every_rule_reads_back_from_its_text() -> None:
    rules = [r for s in packaged_streams() for r in s.rules] + [
        r for d in DOMAINS.values() for r in d.documented
    ]
    for rule in rules:
        parsed = parse_rule("- " + rule.text())
        assert parsed is not None and (parsed.clauses, parsed.answer) == (rule.clauses, rule.answer), (
            rule.text()
        )


def test_a_line_that_is_not_a_rule_is_none() -> None:
    assert parse_rule("- when amount above lots: approve") is None
    assert parse_rule("Reply with exactly one line") is None


def test_an_active_hidden_rule_overrides_the_document_and_an_inactive_one_does_not() -> None:
    assert correct_answer(GIFT_CARD_CANCEL, RETAIL.documented) == "cancel"
    assert correct_answer(GIFT_CARD_CANCEL, RETAIL.documented, [D1]) == "refuse:payment_restricted"
    assert deciding_rule(GIFT_CARD_CANCEL, [D1]) is D1
    delivered = {**GIFT_CARD_CANCEL, "status": "delivered"}
    assert correct_answer(delivered, RETAIL.documented, [D1]) == "refuse:not_pending"  # D1: pending only


def test_hidden_means_some_rule_of_the_dictionary_could_change_the_answer() -> None:
    assert is_hidden(GIFT_CARD_CANCEL, RETAIL.documented, [D1])
    assert not is_hidden({**GIFT_CARD_CANCEL, "payment": "paypal"}, RETAIL.documented, [D1])


def test_conflicting_rules_are_detected() -> None:
    other = Rule(D1.clauses, "refuse:not_pending", id="X")
    assert conflicting(GIFT_CARD_CANCEL, [D1, other])
    assert not conflicting(GIFT_CARD_CANCEL, [D1, Rule(D1.clauses, D1.answer, id="Y")])


def test_the_yaml_condition_form() -> None:
    clauses = clauses_from_mapping(
        {"payment": ["gift_card", "paypal"], "amount": {"above": 400, "at_most": 900}}
    )
    assert [c.text() for c in clauses] == [
        "payment is one of gift_card, paypal",
        "amount above 400",
        "amount at most 900",
    ]
    with pytest.raises(ValueError, match="amount"):
        clauses_from_mapping({"amount": {"over": 3}})
    with pytest.raises(ValueError, match="whole number"):
        clauses_from_mapping({"amount": {"above": "lots"}})
