"""Normalised, token-bounded matching of atomic facts (the ``value`` check, evidence facts).

A correct answer in other words must match: "€21,000" = "21,000 EUR" = "EUR 21000", "€21k",
"third" = "3rd", "twenty-one" = "21", "1.2k" = "1200", "14 March 2026" = "2026-03-14" = "Mar 14" =
"14/03/2026", "13:00" = "1 pm", "1.30pm" = "13:30", "240 rpm" = "240 requests a minute", "0.5%" =
"0.5 per cent", "centre" = "center", "requests" = "request", "WV-2207" = "WV2207", "@nokafor" =
"nokafor"; spoken quantities ("a quarter of a million", "half a per cent", "priority 2", "no.")
are read in ``quantities.py``; case, punctuation, diacritics and the articles a/an/the ignored.
Matching is on whole tokens, so "21" never matches "210" (nor "P21"), and the month "May" is only
a month next to a day.
A label before a value ("Cost centre: 4417", "Dock — 4B") is just more words: a colon or a dash is
a soft mark, never a sentence end.

Every text becomes a :class:`Doc`: two aligned token sequences, ``surface`` (canonical words, not
stemmed: what ``claims.py`` reads cue words from, where "closes" is not "closed") and ``match``
(stemmed: what values are matched on), with sentence breaks (``BREAK``) and soft marks (``,``
``;`` ``:`` ``(`` ``)`` ``→``) as tokens of their own. Values match across soft marks, never
across a sentence break.

Libraries: ``snowballstemmer`` (the Snowball English stemmer, pure Python, used by Sphinx) does the
morphology, so "requests"/"request", "minutes"/"minute" meet without a word list. Dates are read
token-wise here rather than with ``dateutil.parser``: that parser reads a whole string (its fuzzy
mode guesses a date out of any number and fills missing parts from today), while a grader must
find dates *inside* prose, token-bounded, and must not invent a year. The number words stay the
code below: it already reads "one hundred and five", ordinals and "twenty-first", which
``word2number`` does not (no ordinals) and which ``number-parser`` rewrites in whole sentences.

Proper names (every word capitalised, no digit) are matched as spelled, without stemming.

Public: ``Doc``, ``doc``, ``tokens``, ``normalise_for_match``, ``spans``, ``asserts_value``,
``asserts_all``, ``mentions`` (each hit with whether the answer marks it as not current, read by
``claims.py``), ``DATE_ORDER`` (the locale hook for ambiguous numeric dates).
"""

from __future__ import annotations

import re
import unicodedata
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from pytest_pastbench.core.text import ABBREVIATION_PERIOD, stem
from pytest_pastbench.protocols.shared import quantities

BREAK = "|"  # sentence break token: a marker never reaches across sentences
ARROW = "→"
# Kept before the break of a question (a value asked about is not claimed); a quoted question
# ("a 'Would I do it?' line") is reported speech and ends with a plain break.
QUESTION = "?"
SOFT_MARKS = frozenset({",", ";", ":", "(", ")", ARROW, QUESTION})
MARKS = SOFT_MARKS | {BREAK}
GLUE = "~"  # prefix of a token glued to the letters before it ("wv2207" -> "wv", "~2207")
_ARTICLES = frozenset({"a", "an", "the"})

# The locale hook: how an ambiguous numeric date (03/04/2026, both parts ≤ 12) reads. None: it is
# not read at all (``claims.py`` then calls such an answer undecided rather than guess).
DateOrder = Literal["DMY", "MDY"] | None
DATE_ORDER: ContextVar[DateOrder] = ContextVar("pastbench_date_order", default=None)

_UNITS = {
    "zero": 0, "nought": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_ORDINAL_UNITS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
}  # fmt: skip
_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_CURRENCY_SYMBOLS = {
    "us$": " usd ",
    "$": " usd ",
    "€": " eur ",
    "£": " gbp ",
    "¥": " yen_yuan ",
    "₹": " inr ",
}
_CURRENCY_WORDS = {
    "usd": "usd", "dollar": "usd", "dollars": "usd", "eur": "eur", "euro": "eur", "euros": "eur",
    "gbp": "gbp", "pound": "gbp", "pounds": "gbp", "jpy": "jpy", "yen": "jpy", "cny": "cny",
    "rmb": "cny", "yuan": "cny", "inr": "inr", "rupees": "inr", "chf": "chf", "cad": "cad",
    "aud": "aud", "yen_yuan": "yen_yuan",
}  # fmt: skip
# Units of time and their abbreviations, so "240 rpm" = "240 requests per minute" = "240
# requests a minute" = "240 req/min". A closed vocabulary (the SI and clock units), not phrasing.
_TIME_UNITS = {
    "ms": "millisecond", "msec": "millisecond", "millisecond": "millisecond", "milliseconds": "millisecond",
    "s": "seconds", "sec": "seconds", "secs": "seconds", "second": "seconds", "seconds": "seconds",
    "min": "minute", "mins": "minute", "minute": "minute", "minutes": "minute",
    "h": "hour", "hr": "hour", "hrs": "hour", "hour": "hour", "hours": "hour",
    "d": "day", "day": "day", "days": "day", "wk": "week", "wks": "week", "week": "week",
    "weeks": "week", "month": "month", "months": "month", "yr": "year", "yrs": "year",
    "year": "year", "years": "year",
}  # fmt: skip
# Only a unit right after a number ("5 s", not "it's"; "10 second", not "the second day"). "seconds"
# is the canonical form because "second" is an ordinal to the number reader.
_BARE_UNITS = frozenset({"s", "h", "d", "second"})
_RATE_WORDS = {
    "rpm": "request per minute", "rps": "request per seconds", "rph": "request per hour",
    "qps": "query per seconds", "qpm": "query per minute", "req": "request", "reqs": "request",
}  # fmt: skip
_PER = frozenset({"per", "a", "an", "each", "every"})
# British -> American spellings that no rule below derives (the systematic ones are rules).
_UK_US = {
    "licence": "license", "licences": "licenses", "defence": "defense", "offence": "offense",
    "pretence": "pretense", "practise": "practice", "practised": "practiced", "grey": "gray",
    "cheque": "check", "cheques": "checks", "programme": "program", "programmes": "programs",
    "tyre": "tire", "tyres": "tires", "kerb": "curb", "aluminium": "aluminum", "plough": "plow",
    "sceptical": "skeptical", "manoeuvre": "maneuver", "mould": "mold", "judgement": "judgment",
    "ageing": "aging", "enrol": "enroll", "enrolment": "enrollment", "fulfil": "fulfill",
    "instalment": "installment", "artefact": "artifact", "catalogue": "catalog",
    "dialogue": "dialog", "analogue": "analog", "cancelation": "cancellation", "storey": "story",
    "percentage": "percentage", "pyjamas": "pajamas", "draught": "draft", "gaol": "jail",
}  # fmt: skip
_UK_RULES = (
    (re.compile(r"^([a-z]{2,}[^aeiou])our(s|ed|ing|ite|ites|able|ably|er|ers|ful|less)?$"), r"\1or\2"),
    (re.compile(r"^([a-z]{2,})([tb])re$"), r"\1\2er"),  # centre, metre, fibre
    (re.compile(r"^([a-z]{2,})([tb])res$"), r"\1\2ers"),
    (re.compile(r"^([a-z]{2,})([tb])red$"), r"\1\2ered"),
    (re.compile(r"^([a-z]{3,}[^aeiou])([iy])s(e|es|ed|ing|ation|ations|er|ers)$"), r"\1\2z\3"),
    (
        re.compile(r"^(cancel|travel|model|label|level|signal|fuel|total|channel|counsel|dial|tunnel|equal)l"
                   r"(ed|ing|er|ers)$"),
        r"\1\2",
    ),
)  # fmt: skip

_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_YMD_DATE = re.compile(r"\b(\d{4})/(\d{1,2})/(\d{1,2})\b")
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})(?:/(\d{1,2})/(\d{4}|\d{2})|\.(\d{1,2})\.(\d{4}))\b")
_CLOCK = re.compile(
    r"\b([01]?\d|2[0-3])[:.]([0-5]\d)\s*([ap])\.?\s?m\b\.?|\b(1[0-2]|0?[1-9])\s*([ap])\.?\s?m\b\.?"
)
_CLOCK_24 = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?\b")
_MULTIPLIER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?(k|thousand|million|bn|billion)\b")
_GLUED_UNIT = re.compile(r"(?<=\d)(ms|msec|secs?|mins?|hrs?|h|s|d|wks?|rpm|rps|qps|gb|mb|kb|tb)\b")
_MONTH_WORDS = {
    **_MONTHS,
    "january": 1, "february": 2, "march": 3, "april": 4, "june": 6, "july": 7, "august": 8,
    "sept": 9, "september": 9, "october": 10, "november": 11, "december": 12,
}  # fmt: skip
_THOUSANDS = re.compile(r"(?<![\d.,])(\d{1,3})((?:[, \u00a0\u202f]\d{3})+)(?![\d])")
_DECIMAL = re.compile(r"\d+\.\d+")
# A sentence ends at . ! ? (a closing quote or bracket may follow) or a line break.
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d)\]]*(?=\s|$|\\n)|\n")
# Spaces, not line breaks: "Heading\n- item" keeps the break (a bullet is markup, not a dash).
_DASH = re.compile(r"[^\S\n][-\u2012\u2013\u2014\u2015]+[^\S\n]|[\u2013\u2014\u2015]")
# Other spellings of the preposition "before" ("ahead of posting", "prior to the lock").
_BEFORE = re.compile(r"\b(?:ahead\s+of|prior\s+to)\b")
_ARROWS = re.compile(r"->|=>|-->|[\u2192\u21d2\u27f6\u279c\u2794]")
# A decimal stays one token ("3.90" is not "3", "90"); marks are tokens of their own.
_TOKEN = re.compile(r"\d+\.\d+|[a-z0-9_]+|[|,;:()?\u2192]")
_DIGIT_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
_LETTERS_DIGITS = re.compile(r"^([a-z]{1,6})(\d+[a-z]{0,2})$")


def _date_token(year: str | None, month: int, day: str | int) -> str:
    if year is not None and len(year) == 2:
        year = f"20{year}"
    return f"dt_{year or 'xxxx'}_{month:02d}_{int(day):02d}"


def _numeric_date(m: re.Match[str]) -> str:
    """ "24/03/2026" and "3/24/2026" decide themselves (a part > 12 is the day); "03/04/2026"
    reads by ``DATE_ORDER`` and is otherwise kept as an ambiguous date token (never guessed)."""
    first, second, year = (m[1], m[2], m[3]) if m[2] else (m[1], m[4], m[5])
    a, b = int(first), int(second)
    if not (1 <= a <= 31 and 1 <= b <= 31) or (a > 12 and b > 12):
        return m[0]
    if a > 12:
        return f" {_date_token(year, b, a)} "
    if b > 12:
        return f" {_date_token(year, a, b)} "
    if a == b:
        return f" {_date_token(year, a, b)} "
    order = DATE_ORDER.get()
    if order == "DMY":
        return f" {_date_token(year, b, a)} "
    if order == "MDY":
        return f" {_date_token(year, a, b)} "
    return f" {_date_token(year, a, b).replace('dt_', 'dq_')} "  # dq: month/day or day/month


def _clock(m: re.Match[str]) -> str:
    if m[1] is not None:
        hour, minute, half = int(m[1]), int(m[2]), m[3]
    else:
        hour, minute, half = int(m[4]), 0, m[5]
    if half == "p" and hour < 12:
        hour += 12
    elif half == "a" and hour == 12:
        hour = 0
    return f" tm_{hour:02d}_{minute:02d} "


def _multiplied(m: re.Match[str]) -> str:
    factor = {"k": 1000, "thousand": 1000, "million": 10**6, "bn": 10**9, "billion": 10**9}[m[2]]
    value = float(m[1]) * factor
    return f"{int(value)}" if value == int(value) else m[0]


def _day(token: str) -> int | None:
    number = token[1:] if token.startswith("o") else token
    return int(number) if number.isdigit() and 1 <= int(number) <= 31 else None


def _year(tokens: list[str], i: int) -> str | None:
    if i < len(tokens) and tokens[i].isdigit() and 1900 <= int(tokens[i]) <= 2199:
        return tokens[i]
    return None


def _dates(words: list[str]) -> list[str]:
    """ "14 March 2026", "March 14th, 2026", "Mar 14", "the fourteenth of March" -> one date token
    (after number words, so spelled-out days are dates too). "May" is a month only next to a day,
    and before its day only with a year ("step 3 may fail" has no date)."""
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        month = _MONTH_WORDS.get(word)
        day = _day(word)
        if month and i + 1 < len(words) and _day(words[i + 1]):  # March 14 [2026]
            j = i + 3 if i + 2 < len(words) and words[i + 2] == "," else i + 2
            year = _year(words, j)
            out.append(_date_token(year, month, str(_day(words[i + 1]))))
            i = j + 1 if year else i + 2
            continue
        if day:  # 14 [of] March [2026]
            j = i + 2 if i + 1 < len(words) and words[i + 1] == "of" else i + 1
            month = _MONTH_WORDS.get(words[j]) if j < len(words) else None
            year = _year(words, j + 1)
            if month and (words[j] != "may" or year):
                out.append(_date_token(year, month, str(day)))
                i = j + 2 if year else j + 1
                continue
        out.append(word)
        i += 1
    return out


_DAY_LINKS = frozenset({"to", "until", "till", "through", "thru", "and", "or"})
_ORDINAL_DAY = re.compile(r"o([1-9]|[12]\d|3[01])")


def _elliptic_days(words: list[str]) -> list[str]:
    """ "from 16 March to the 13th" -> the 13th is 13 March: a bare ordinal day joined to a date
    earlier in the same sentence takes that date's month and year (never across a sentence)."""
    out = list(words)
    last_date: str | None = None
    for i, word in enumerate(out):
        if word == BREAK:
            last_date = None
        elif word.startswith("dt_"):
            last_date = word
        elif last_date and i > 0 and out[i - 1] in _DAY_LINKS and _ORDINAL_DAY.fullmatch(word):
            year, month, _ = last_date[3:].split("_")
            out[i] = f"dt_{year}_{month}_{int(word[1:]):02d}"
    return out


def _canonical_number(word: str) -> str:
    """ "007" -> "7", "3.90" -> "3.9", "21.0" -> "21"; other words unchanged (a glued "~007" too)."""
    if word.startswith(GLUE):
        return GLUE + _canonical_number(word[1:])
    if word.isdigit() and len(word) < 16:
        return str(int(word))
    if _DECIMAL.fullmatch(word):
        whole, fraction = word.split(".")
        fraction = fraction.rstrip("0")
        return f"{int(whole)}.{fraction}" if fraction else str(int(whole))
    return word


def _is_number(word: str) -> bool:
    return word.isdigit() or bool(_DECIMAL.fullmatch(word))


def _point(words: list[str], i: int) -> tuple[str, int]:
    """The digits of a spoken decimal part at ``words[i]`` ("point six" -> "6", "point 2 5" ->
    "25") and the index after it; ("", i) when there is none."""
    if i + 1 >= len(words) or words[i] != "point":
        return "", i
    digits = ""
    j = i + 1
    while j < len(words):
        word = words[j]
        if word in _UNITS and _UNITS[word] < 10:
            digits += str(_UNITS[word])
        elif word.isdigit() and len(word) <= 3 and (len(word) == 1 or not digits):
            digits += word
        else:
            break
        j += 1
    return (digits, j) if digits else ("", i)


def _with_point(whole: int, words: list[str], i: int) -> tuple[str, int]:
    """``whole`` with its spoken decimal part if one follows ("ninety-nine point six" -> 99.6)."""
    digits, i = _point(words, i)
    if not digits:
        return str(whole), i
    if i < len(words) and _SCALES.get(words[i], 0) >= 1000:  # "two point five million"
        scaled = float(f"{whole}.{digits}") * _SCALES[words[i]]
        if scaled == int(scaled):
            return str(int(scaled)), i + 1
    return _canonical_number(f"{whole}.{digits}"), i


def _numbers(words: list[str]) -> list[str]:
    """Number and ordinal words to digits ("twenty one" -> 21, "third" -> o3, "3rd" -> o3,
    "ninety nine point six" -> 99.6)."""
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        ordinal = _DIGIT_ORDINAL.match(word)
        if ordinal:
            out.append(f"o{int(ordinal[1])}")
            i += 1
            continue
        if word not in _UNITS and word not in _TENS and word not in _ORDINAL_UNITS:
            if word.isdigit() and len(word) < 16:
                number, i = _with_point(int(word), words, i + 1)
                out.append(number)
                continue
            out.append(_canonical_number(word))
            i += 1
            continue
        total = current = 0
        is_ordinal = False
        while i < len(words):
            word = words[i]
            if word in _UNITS:
                current += _UNITS[word]
            elif word in _TENS:
                current += _TENS[word]
            elif word in _ORDINAL_UNITS:
                current += _ORDINAL_UNITS[word]
                is_ordinal = True
                i += 1
                break
            elif (
                word == "and"
                and words[i - 1] in _SCALES
                and i + 1 < len(words)
                and (words[i + 1] in _UNITS or words[i + 1] in _TENS)
            ):
                pass  # "one hundred and five"
            elif word in _SCALES and (current or total):
                if _SCALES[word] == 100:
                    current *= 100
                else:
                    total += current * _SCALES[word]
                    current = 0
            else:
                break
            i += 1
        number = total + current
        if is_ordinal:
            out.append(f"o{number}")
            continue
        spoken, i = _with_point(number, words, i)
        out.append(spoken)
    return out


_AFTERNOON = frozenset({"afternoon", "evening", "pm"})


def _spoken_times(words: list[str]) -> list[str]:
    """Durations and clock times said in words, in one form (after ``_numbers``, articles gone):
    "an hour and forty minutes" / "1 h 40 min" -> "100 minute", "half an hour" -> "30 minute",
    "an hour and a half" -> "90 minute"; "quarter to 12" -> 11:45, "half past 11" -> 11:30,
    "quarter past 3 in the afternoon" -> 15:15, "3 o'clock" -> 03:00. A lone "2 hours" is left
    as it is: only a compound is summed."""
    out: list[str] = []
    i = 0
    n = len(words)

    def at(k: int) -> str:
        return words[k] if 0 <= k < n else ""

    while i < n:
        w = at(i)
        # [N] hour [and] M minute | [N] hour and half | half hour
        hours = int(w) if w.isdigit() and at(i + 1) == "hour" else None
        j = i + 1 if hours is not None else i
        if at(j) == "hour" and (hours is not None or not (out and _is_number(out[-1]))):
            k = j + 1 + (at(j + 1) == "and")
            if at(k).isdigit() and at(k + 1) == "minute":
                out += [str((hours or 1) * 60 + int(at(k))), "minute"]
                i = k + 2
                continue
            if at(j + 1) == "and" and at(j + 2) == "half":
                out += [str((hours or 1) * 60 + 30), "minute"]
                i = j + 3
                continue
        if w == "half" and at(i + 1) == "hour":
            out += ["30", "minute"]
            i += 2
            continue
        # quarter past/to H, half past H, H o'clock
        clock = None
        if w in ("quarter", "half") and at(i + 1) in ("past", "to") and at(i + 2).isdigit():
            hour, minutes = int(at(i + 2)), 15 if w == "quarter" else 30
            if at(i + 1) == "to" and w == "quarter":
                hour, minutes = (hour - 1) % 12 or 12, 45
            clock, i = (hour, minutes), i + 3
        elif w.isdigit() and at(i + 1) == "o" and at(i + 2) == "clock":
            clock, i = (int(w), 0), i + 3
        if clock is not None and 1 <= clock[0] <= 12:
            hour, minutes = clock
            later = at(i) in _AFTERNOON or (at(i) == "in" and at(i + 1) in _AFTERNOON)
            out.append(f"tm_{hour + 12 if later and hour < 12 else hour:02d}_{minutes:02d}")
            continue
        if clock is not None:
            i -= 3
        out.append(w)
        i += 1
    return out


def _currencies(words: list[str]) -> list[str]:
    """Currency words to codes, amounts as "<number> <code>" whichever side the code was on."""
    out = [_CURRENCY_WORDS.get(w, w) for w in words]
    codes = set(_CURRENCY_WORDS.values())
    for i in range(len(out) - 1):
        if out[i] in codes and _is_number(out[i + 1]) and (i + 2 >= len(out) or out[i + 2] not in codes):
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def _rates(words: list[str]) -> list[str]:
    """Units and rates in one form: "rpm" -> "request per minute", "a/an/each/every/per <unit>" ->
    "per <unit>", "5 s" -> "5 second" (a bare "s"/"h"/"d" only right after a number). Runs before
    the articles go, since "a minute" is a rate."""
    out: list[str] = []
    for i, word in enumerate(words):
        if word in _RATE_WORDS:
            out.extend(_RATE_WORDS[word].split())
            continue
        unit = _TIME_UNITS.get(word)
        if unit and (word not in _BARE_UNITS or (i > 0 and _is_number(words[i - 1]))):
            if out and out[-1] in _PER and (len(out) < 2 or not _is_number(out[-2]) or out[-1] == "per"):
                out[-1] = "per"
            out.append(unit)
            continue
        if word in ("cent", "cents") and out and out[-1] == "per":
            out[-1] = "percent"
            continue
        out.append(word)
    return out


def _spelling(word: str) -> str:
    """British to American spelling (centre/center, colour/color, organise/organize, cancelled/
    canceled, licence/license): the systematic differences as rules, the rest from a short table."""
    if word in _UK_US:
        return _UK_US[word]
    for pattern, replacement in _UK_RULES:
        if pattern.match(word):
            return pattern.sub(replacement, word)
    return word


def _glue(words: list[str]) -> list[str]:
    """ "wv2207" -> "wv", "~2207": a code with or without its hyphen matches ("WV-2207" = "WV2207"),
    while the glued digits never match a bare number ("P21" does not state "21")."""
    out: list[str] = []
    for word in words:
        m = _LETTERS_DIGITS.match(word)
        if m and not _DIGIT_ORDINAL.match(word):
            out += [m[1], GLUE + m[2]]
        else:
            out.append(word)
    return out


def _stem(word: str) -> str:
    # One stemmer for the grader and the search (core.text.stem: cached, thread-safe).
    return stem(word) if len(word) > 3 else word


@dataclass(frozen=True)
class Doc:
    """A text as aligned token sequences: ``surface`` for cue words, ``match`` for values."""

    surface: tuple[str, ...]
    match: tuple[str, ...]


def _clean(text: str) -> str:
    # "no. 7" is "number 7" (read while the period and the next word's case still tell it from a
    # final "no."); any other abbreviation's period ("Prof. Lang", "e.g. Gate 3") ends no sentence
    text = quantities.number_abbreviations(unicodedata.normalize("NFKD", text))
    text = ABBREVIATION_PERIOD.sub(lambda m: m[0][:-1] + " ", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    text = text.replace("\\n", "\n")  # a JSON-escaped line break (a tool result pasted as is) is one
    text = _ARROWS.sub(f" {ARROW} ", text)
    for symbol, code in _CURRENCY_SYMBOLS.items():
        text = text.replace(symbol, code)
    text = _THOUSANDS.sub(lambda m: m[1] + re.sub(r"\D", "", m[2]), text)
    text = _MULTIPLIER.sub(_multiplied, text)
    text = re.sub(r"\bper\s+cent\b", " percent ", text).replace("%", " percent ")
    text = _ISO_DATE.sub(lambda m: " " + _date_token(m[1], int(m[2]), m[3]) + " ", text)
    text = _YMD_DATE.sub(lambda m: " " + _date_token(m[1], int(m[2]), m[3]) + " ", text)
    text = _NUMERIC_DATE.sub(_numeric_date, text)
    text = _CLOCK.sub(_clock, text)
    text = _CLOCK_24.sub(lambda m: f" tm_{int(m[1]):02d}_{int(m[2]):02d} ", text)
    text = re.sub(r"\bnoon\b", " tm_12_00 ", text)
    text = re.sub(r"\bmidnight\b", " tm_00_00 ", text)
    text = _GLUED_UNIT.sub(r" \1", text)
    text = re.sub(r"(?<=[a-z0-9])\s*/\s*(?=[a-z])", " per ", text)  # "requests/min"
    text = re.sub(r"\bany\s+more\b", "anymore", text)  # one word either way ("not … any more")
    text = _DASH.sub(" , ", text)
    text = _BEFORE.sub("before", text)
    text = _SENTENCE_END.sub(lambda m: f" {QUESTION} {BREAK} " if m[0] == "?" else f" {BREAK} ", text)
    return text.replace("-", " ")


def doc(text: str) -> Doc:
    """The canonical tokens of ``text`` (cached: a grader reads the same answer many times)."""
    return _doc(text, DATE_ORDER.get())


@lru_cache(maxsize=16384)
def _doc(text: str, order: DateOrder) -> Doc:  # the locale is part of the key
    words = _rates(quantities.spoken_fractions(_TOKEN.findall(_clean(text))))
    words = [w for w in words if w not in _ARTICLES]
    words = quantities.fractional_units(_spoken_times(_numbers(_glue(words))))
    words = quantities.shared_units(quantities.priority_labels(words, GLUE), _is_number)
    surface = tuple(_spelling(w) for w in _currencies(_elliptic_days(_dates(words))))
    return Doc(surface=surface, match=tuple(_stem(w) for w in surface))


def tokens(text: str) -> list[str]:
    """The canonical (matching) tokens of ``text``, marks included."""
    return list(doc(text).match)


def normalise_for_match(text: str) -> str:
    """The canonical form of ``text`` as one string (for display and simple comparisons)."""
    return " ".join(t.removeprefix(GLUE) for t in doc(text).match if t not in MARKS)


def _clock_as_decimal(clock: str, number: str) -> bool:
    """ "13.30" in prose may be the clock time 13:30 (asked for a time, it is one)."""
    if not _DECIMAL.fullmatch(number) and not number.isdigit():
        return False
    hour, _, fraction = number.partition(".")
    _, h, m = clock.split("_")
    return int(hour) == int(h) and (fraction or "0").ljust(2, "0") == m and len(fraction) <= 2 and m != "00"


def _same_date(want: str, got: str) -> bool:
    (wy, wm, wd), (gy, gm, gd) = want[3:].split("_"), got[3:].split("_")
    return (wm, wd) == (gm, gd) and (wy == gy or "xxxx" in (wy, gy))


def same(want: str, got: str, first: bool = False) -> bool:
    """Does answer token ``got`` state value token ``want``? A glued token never starts a match."""
    if got.startswith(GLUE):
        if first:
            return False
        got = got[1:]
    want = want.removeprefix(GLUE)
    if want == got:
        return True
    if want.startswith("dt_") and got.startswith("dt_"):
        return _same_date(want, got)
    if want.startswith("tm_"):
        return _clock_as_decimal(want, got)
    return {want, got} in ({"yen_yuan", "jpy"}, {"yen_yuan", "cny"})


def _content(tokens: tuple[str, ...]) -> list[int]:
    """Indices of the tokens a value is matched on (soft marks are skipped, a break is not)."""
    return [i for i, t in enumerate(tokens) if t not in SOFT_MARKS]


def spans(text: str, value: str) -> list[tuple[int, int]]:
    """Where the tokens of ``value`` occur in ``text`` (indices into ``doc(text).match``), soft
    marks between them allowed ("Dock — 4B" states "Dock 4B")."""
    # A proper name ("Returnly", "Indexing", "Lena Fischer") is matched as spelled: morphology
    # is for words, and "returns" does not name Returnly.
    layer = "surface" if _is_name(value) else "match"
    want = [t for t in getattr(doc(value), layer) if t not in MARKS]
    have = getattr(doc(text), layer)
    if not want:
        return []
    index = _content(have)
    n = len(want)
    found = []
    for k in range(len(index) - n + 1):
        window = [have[index[k + j]] for j in range(n)]
        if all(same(w, g, j == 0) for j, (w, g) in enumerate(zip(want, window, strict=True))):
            end = index[k + n - 1] + 1
            # A value never ends inside a code: "WV-22" is not stated by "WV-2207".
            if end < len(have) and have[end].startswith(GLUE):
                continue
            found.append((index[k], end))
    return found


_IDENTIFIER = re.compile(r"[a-z]+(?:[-_.][a-z0-9]+)+")
_NAME_WORD = re.compile(r"[A-Z][\w'\u2019.-]*")


def _is_name(value: str) -> bool:
    """Every word capitalised and no digit (a name), or one hyphenated identifier ("drill-restore"):
    matched as spelled, without stemming."""
    words = value.split()
    if len(words) == 1 and _IDENTIFIER.fullmatch(value):
        return True
    capitalised = all(_NAME_WORD.fullmatch(w) for w in words)
    return bool(words) and not any(ch.isdigit() for ch in value) and capitalised


def ambiguous_dates(text: str, value: str) -> bool:
    """``text`` has a numeric date that states a date of ``value`` under one reading of the
    day/month order and no ``DATE_ORDER`` decides it (e.g. "03/04/2026" for 2026-04-03)."""
    wanted = [t for t in doc(value).match if t.startswith("dt_")]
    for token in doc(text).match:
        if not token.startswith("dq_"):
            continue
        year, a, b = token[3:].split("_")
        readings = (f"dt_{year}_{a}_{b}", f"dt_{year}_{b}_{a}")
        if any(_same_date(w, r) for w in wanted for r in readings):
            return True
    return False


def asserts_value(text: str, value: str) -> bool:
    """``text`` states ``value`` (normalised, token-bounded); what it claims is ``claims.py``."""
    return bool(spans(text, value))


def asserts_all(text: str, terms: list[str]) -> bool:
    """Every term stated in ``text`` (an evidence fact's ``match`` terms; for mech.py and the audit)."""
    return all(asserts_value(text, term) for term in terms)
