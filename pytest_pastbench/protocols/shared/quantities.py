"""Quantities said in words, read as the numbers they are (used by ``matching.py``).

A careful reader takes "a quarter of a million pounds" as £250,000, "half a per cent" as 0.5%,
"a quarter of an hour" as 15 minutes, "two and a half days" as 60 hours, "priority 2" as P2,
"invoice no. 7" as "invoice number 7" and "9 to 11 replicas" as naming 9 replicas too. Each
function here is one such reading over ``matching``'s token words; ``matching`` applies them to the
answer and the value alike, so both sides meet in one canonical form.

The vocabulary is closed (fractions, scales, the clock and calendar units, ticket priorities), not
phrasing: no rule knows a value, a family or an answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_ARTICLE_OR_ONE = frozenset({"a", "an", "one"})
_FRACTIONS = {"half": 0.5, "quarter": 0.25}
_PLURAL_FRACTIONS = {"halves": 0.5, "quarters": 0.25}
_COUNTS = {"one": 1, "two": 2, "three": 3, "1": 1, "2": 2, "3": 3}  # "three quarters of an hour"
_SCALES = {"thousand": 1000, "million": 10**6, "billion": 10**9}
# What a fraction may be of: a scale, a per cent, or a unit of time (raw words, before matching
# canonicalises units; singular, since "a quarter of an hour" is always singular).
_WHOLES = frozenset({*_SCALES, "percent", "second", "minute", "hour", "day", "week", "month", "year"})
# A fractional amount of a unit in the next smaller unit, when that is a whole number:
# "0.25 hour" -> "15 minute", "1.5 year" -> "18 month". Canonical units as ``matching`` spells them.
_SMALLER = {"minute": (60, "seconds"), "hour": (60, "minute"), "day": (24, "hour"), "year": (12, "month")}
_PRIORITY_WORDS = frozenset({"priority", "prio"})
# Connectors of two numbers that share the word after the second ("9 to 11 replicas").
_RANGE = frozenset({"to", "or", "and", "through", "thru", "till", "until"})
# A "no." that is the number abbreviation: followed by a digit or "#", or by a continuation of the
# sentence (a comma, a bracket or a lower-case word), so it is not the word "no" ending a sentence.
_NUMBER_ABBREVIATION = re.compile(r"\b([Nn])o(s?)\.(?=\s*[\d#]|\s*[,;:)]|\s+[a-z])")


def number_abbreviations(text: str) -> str:
    """ "invoice no. 7" / "No. 7" / "invoice no., not date" -> "number"; "nos." -> "numbers".
    Runs on the raw text: the case of the next word tells the abbreviation from a final "no."."""
    return _NUMBER_ABBREVIATION.sub(lambda m: f"{m[1]}umber{m[2]}", text)


def _fraction_at(words: list[str], i: int) -> tuple[float, int] | None:
    """The fraction starting at ``words[i]`` and the index after its "of"/article, if any:
    "a half (of) a", "half a", "a quarter of an", "three quarters of a"."""
    j = i + 1 if words[i] in _ARTICLE_OR_ONE else i
    if j < len(words) and words[j] in _FRACTIONS:
        value, j = _FRACTIONS[words[j]], j + 1
    elif words[i] in _COUNTS and j == i and i + 1 < len(words) and words[i + 1] in _PLURAL_FRACTIONS:
        value, j = _COUNTS[words[i]] * _PLURAL_FRACTIONS[words[i + 1]], i + 2
    else:
        return None
    if j < len(words) and words[j] == "of":
        j += 1
    if j < len(words) and words[j] in _ARTICLE_OR_ONE:
        j += 1
    return value, j


def _amount(value: float, whole: str) -> list[str]:
    if whole in _SCALES:
        return [f"{value * _SCALES[whole]:g}"]
    return [f"{value:g}", whole]


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and word[:-1] in _WHOLES else word


def spoken_fractions(words: list[str]) -> list[str]:
    """ "a quarter of a million" -> "250000", "half a percent" -> "0.5 percent", "a quarter of an
    hour" -> "0.25 hour", "two and a half hours" -> "two point 5 hours" (read by the number
    reader), "an hour and a half" -> "1.5 hour". Runs before articles are dropped and before units
    are read as rates ("an hour" is otherwise "per hour")."""
    out: list[str] = []
    i = 0
    while i < len(words):
        fraction = _fraction_at(words, i)
        if fraction and fraction[1] < len(words) and _singular(words[fraction[1]]) in _WHOLES:
            value, j = fraction
            out += _amount(value, _singular(words[j]))
            i = j + 1
            continue
        # "<n> and a half <whole>" (the number before stays for the number reader)
        if (
            words[i : i + 3] == ["and", "a", "half"]
            and out
            and _singular(words[min(i + 3, len(words) - 1)]) in _WHOLES
        ):
            out += ["point", "5"]
            i += 3
            continue
        # "a|an|one <whole> and a half"
        if (
            words[i] in _ARTICLE_OR_ONE
            and i + 4 < len(words)
            and words[i + 1] in _WHOLES
            and words[i + 2 : i + 5] == ["and", "a", "half"]
        ):
            out += _amount(1.5, words[i + 1])
            i += 5
            continue
        out.append(words[i])
        i += 1
    return out


def _is_decimal(word: str) -> bool:
    whole, dot, fraction = word.partition(".")
    return bool(dot) and whole.isdigit() and fraction.isdigit()


def fractional_units(words: list[str]) -> list[str]:
    """ "0.25 hour" -> "15 minute", "2.5 day" -> "60 hour": a fractional amount of a unit in the
    next smaller unit when that is whole, so each duration has one spelling. Runs after number
    words are digits and units are canonical."""
    out = list(words)
    for i in range(len(out) - 1):
        if _is_decimal(out[i]) and out[i + 1] in _SMALLER:
            factor, unit = _SMALLER[out[i + 1]]
            amount = float(out[i]) * factor
            if amount == int(amount):
                out[i], out[i + 1] = str(int(amount)), unit
    return out


def priority_labels(words: list[str], glue: str) -> list[str]:
    """ "priority 2" / "prio two" -> the ticket label P2 (``glue`` marks the digits as glued to the
    letter, as ``matching`` splits "p2"). Runs after number words are digits."""
    out = list(words)
    for i in range(len(out) - 1):
        if out[i] in _PRIORITY_WORDS and out[i + 1].isdigit() and int(out[i + 1]) <= 9:
            out[i], out[i + 1] = "p", glue + out[i + 1]
    return out


def shared_units(words: list[str], is_number: Callable[[str], bool]) -> list[str]:
    """ "9 to 11 replicas" -> "9 replicas to 11 replicas": the word after a pair of numbers joined
    by to/or/and belongs to both, so each side can be read on its own. ``is_number`` is matching's
    test for a number token. Runs after number words are digits."""
    out: list[str] = []
    for i, word in enumerate(words):
        out.append(word)
        if (
            is_number(word)
            and i + 3 < len(words)
            and words[i + 1] in _RANGE
            and is_number(words[i + 2])
            and words[i + 3].isalpha()
            and words[i + 3] not in _RANGE
        ):
            out.append(words[i + 3])
    return out
