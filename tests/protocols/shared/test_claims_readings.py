"""claims.read_claim: readings a careful person makes, each tested by its principle with fresh
entities (a cabinet, a quota, a wiki heading, a firmware channel), not the labelled rows' words."""

from __future__ import annotations

import pytest

from pytest_pastbench.protocols.shared.claims import Reading, read_claim

CABINET = {"expected": ["Rack 12"], "stale": ["Annex Hall", "rear hatch"]}
QUOTA = {"expected": ["3,000 GB"], "stale": ["2,000 GB"]}
FIRMWARE = {"expected": ["v7.2"]}


def reading(answer: str, spec: dict) -> Reading:
    return read_claim(answer, spec["expected"], spec.get("stale", ()), spec.get("decoys", ())).reading


def test_what_is_said_after_a_noun_phrase_of_two_values_is_said_of_both() -> None:
    # "the Annex Hall rear hatch" is one noun phrase: its closure closes both values in it.
    answer = "The Annex Hall rear hatch is shut for the refit, so the cabinet goes in Rack 12."
    assert reading(answer, CABINET) == Reading.ASSERTS_EXPECTED


def test_a_predicate_of_a_subordinate_before_clause_is_not_said_of_the_value() -> None:
    spec = {"expected": ["Rack 12"]}
    assert (
        reading("Rack 12 holds the servers for a week before they are retired.", spec)
        == Reading.ASSERTS_EXPECTED
    )
    assert reading("Rack 12 was retired before the audit.", spec) != Reading.ASSERTS_EXPECTED


def test_the_past_perfect_names_the_earlier_state() -> None:
    spec = {"expected": ["Rack 12"]}
    answer = "We moved the switch to Annex Hall; it had been in Rack 12 until the refit."
    assert reading(answer, spec) != Reading.ASSERTS_EXPECTED
    assert reading("It has been in Rack 12 all along.", spec) == Reading.ASSERTS_EXPECTED


def test_a_change_with_its_own_from_and_to_does_not_make_the_subject_old() -> None:
    spec = {"expected": ["Hollis Freight"]}
    answer = "For Hollis Freight we got the rate cut from 40 days to 30 days."
    assert reading(answer, spec) == Reading.ASSERTS_EXPECTED
    assert reading("Hollis Freight moved to Dorr Cargo.", spec) != Reading.ASSERTS_EXPECTED


def test_a_value_labelled_current_is_not_the_old_side_of_a_requested_change() -> None:
    assert reading("Ticket: please raise the quota from 3,000 GB (current) to 4,000 GB.", QUOTA) == (
        Reading.ASSERTS_EXPECTED
    )
    assert reading("Ticket: please raise the quota from the current 3,000 GB to 4,000 GB.", QUOTA) == (
        Reading.ASSERTS_EXPECTED
    )
    # without the label, the from-side of a change is still the old value
    assert reading("We raised the quota from 3,000 GB to 4,000 GB.", QUOTA) != Reading.ASSERTS_EXPECTED


@pytest.mark.parametrize(
    "answer",
    ["Should we ship it? Yes: the tests pass.", "Summary first.\nShould we ship it? Not yet."],
)
def test_a_value_that_is_itself_a_question_is_stated_by_writing_it(answer: str) -> None:
    assert reading(answer, {"expected": ["Should we ship it"]}) == Reading.ASSERTS_EXPECTED


def test_a_value_inside_a_question_is_still_only_asked_about() -> None:
    assert (
        reading("Rack 12? I can't tell from the notes.", {"expected": ["Rack 12"]})
        != Reading.ASSERTS_EXPECTED
    )


def test_either_the_value_or_an_unnamed_alternative_is_a_hedge() -> None:
    answer = "Either v7.2 or the latest beta. I can't tell which one we run."
    assert reading(answer, FIRMWARE) == Reading.HEDGES
    assert reading("We run v7.2, the latest stable build.", FIRMWARE) == Reading.ASSERTS_EXPECTED
