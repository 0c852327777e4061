"""Quantities said in words, each read as the number it is: one test per reading, on token words
as ``matching`` passes them."""

from __future__ import annotations

import pytest

from pytest_pastbench.protocols.shared.quantities import (
    fractional_units,
    number_abbreviations,
    priority_labels,
    shared_units,
    spoken_fractions,
)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("invoice no. 7", "invoice number 7"),
        ("No. 7 was paid", "Number 7 was paid"),
        ("see nos. 3 and 4", "see numbers 3 and 4"),
        ("the invoice no., not the date", "the invoice number, not the date"),
        ("The answer is no. Then we left.", "The answer is no. Then we left."),  # the word "no"
    ],
)
def test_the_number_abbreviation_is_told_from_a_final_no(text: str, read: str) -> None:
    assert number_abbreviations(text) == read


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("a quarter of a million pounds", "250000 pounds"),
        ("half a million", "500000"),
        ("half a percent", "0.5 percent"),
        ("a quarter of an hour", "0.25 hour"),
        ("three quarters of an hour", "0.75 hour"),
        ("two and a half days", "two point 5 days"),
        ("an hour and a half", "1.5 hour"),
        ("half of the team", "half of the team"),  # a fraction of no quantity stays words
        ("a quarter", "a quarter"),
    ],
)
def test_spoken_fractions_become_numbers_of_their_whole(said: str, read: str) -> None:
    assert spoken_fractions(said.split()) == read.split()


def test_a_fractional_unit_is_said_in_the_next_smaller_unit_when_that_is_whole() -> None:
    assert fractional_units(["0.25", "hour"]) == ["15", "minute"]
    assert fractional_units(["2.5", "day"]) == ["60", "hour"]
    assert fractional_units(["1.5", "year"]) == ["18", "month"]
    assert fractional_units(["0.3", "hour"]) == ["18", "minute"]
    assert fractional_units(["0.01", "hour"]) == ["0.01", "hour"]  # 0.6 minute is not whole
    assert fractional_units(["2", "day"]) == ["2", "day"]  # a whole amount keeps its unit


def test_priority_words_become_the_ticket_label() -> None:
    assert priority_labels(["priority", "2", "ticket"], "~") == ["p", "~2", "ticket"]
    assert priority_labels(["prio", "1"], "~") == ["p", "~1"]
    assert priority_labels(["priority", "12"], "~") == ["priority", "12"]  # labels are P0–P9
    assert priority_labels(["priority", "high"], "~") == ["priority", "high"]


def test_the_word_after_a_range_of_numbers_belongs_to_both() -> None:
    def is_number(word: str) -> bool:
        return word.isdigit()

    assert shared_units(["9", "to", "11", "replicas"], is_number) == ["9", "replicas", "to", "11", "replicas"]
    assert shared_units(["3", "or", "4", "days"], is_number) == ["3", "days", "or", "4", "days"]
    assert shared_units(["9", "to", "11"], is_number) == ["9", "to", "11"]
    assert shared_units(["9", "to", "eleven", "replicas"], is_number) == ["9", "to", "eleven", "replicas"]
