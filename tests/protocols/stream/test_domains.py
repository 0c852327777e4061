"""The two stream domains: the facts a ticket can have, and a documented policy that answers every
ticket with one of its action's options."""

from __future__ import annotations

import random

import pytest

from pytest_pastbench.protocols.stream.domains import BANKING, DOMAINS, Domain, Field
from pytest_pastbench.protocols.stream.rules import correct_answer


def test_a_numeric_field_offers_its_grid_with_both_ends_and_a_categorical_one_its_values() -> None:
    assert Field("amount", grid=(20, 60, 20)).choices() == [20, 40, 60]
    assert Field("status", ("pending", "delivered")).choices() == ["pending", "delivered"]


@pytest.mark.parametrize("domain", DOMAINS.values(), ids=DOMAINS)
def test_a_sampled_ticket_has_its_actions_fields_each_a_choice_of_the_field(domain: Domain) -> None:
    for action, spec in domain.actions.items():
        facts = domain.sample(random.Random(7), action)
        assert list(facts) == ["action", *spec.fields]
        assert all(facts[name] in domain.fields[name].choices() for name in spec.fields)
        assert facts == domain.sample(random.Random(7), action)  # the seed decides, nothing else
        assert domain.options(facts) == spec.options


@pytest.mark.parametrize("domain", DOMAINS.values(), ids=DOMAINS)
def test_the_documented_policy_answers_every_ticket_with_one_of_its_options(domain: Domain) -> None:
    rng = random.Random(0)
    for action in domain.actions:
        for _ in range(40):
            facts = domain.sample(rng, action)
            assert correct_answer(facts, domain.documented) in domain.options(facts), facts


@pytest.mark.parametrize("domain", DOMAINS.values(), ids=DOMAINS)
def test_every_documented_rule_is_for_one_action_and_names_only_its_fields(domain: Domain) -> None:
    for rule in domain.documented:
        [action] = [c.value for c in rule.clauses if c.field == "action"]
        assert rule.fields - {"action"} <= set(domain.actions[str(action)].fields), rule.text()
        assert rule.answer in domain.actions[str(action)].options, rule.text()


def test_a_threshold_in_the_documented_policy_is_a_number() -> None:
    limits = [c for rule in BANKING.documented for c in rule.clauses if c.op in ("above", "at most")]
    assert limits and all(isinstance(c.value, int) for c in limits)
    over = {"action": "authorize", "category": "travel", "merchant": "domestic", "verification": "basic"}
    assert (
        correct_answer({**over, "amount": 100, "day_total": 8010}, BANKING.documented) == "decline:over_limit"
    )
    assert correct_answer({**over, "amount": 100, "day_total": 8000}, BANKING.documented) == "approve"
