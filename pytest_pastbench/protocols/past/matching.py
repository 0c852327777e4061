"""Normalised, token-bounded matching of atomic facts (the ``value`` check, evidence facts).

A correct answer in other words must match: "€21,000" = "21,000 EUR" = "EUR 21000", "third" =
"3rd", "twenty-one" = "21", "14 March 2026" = "2026-03-14" = "Mar 14", "@nokafor" = "nokafor",
case, punctuation, diacritics and the articles a/an/the ignored. Matching is on whole tokens, so
"21" never matches "210" and the month "May" is only a month next to a day.

Public: ``tokens``, ``normalise_for_match``, ``asserts_value``, ``mentions`` (each hit with whether
it is marked as old: "was X", "no longer X", "previously X", "from X to Y").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

BREAK = "|"  # sentence break token: a marker never reaches across sentences
_ARTICLES = frozenset({"a", "an", "the"})

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
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
# Words that mark a mention as old or rejected when they sit just before or after it.
_OLD_WORDS = (
    "was were previously formerly old older longer not never instead replaced replacing earlier "
    "used outdated superseded obsolete original originally prior stale wrong incorrect rather "
    "t"  # the "n't" of don't / isn't / doesn't, split off by tokenising
)
_OLD_BEFORE = frozenset(_OLD_WORDS.split())
_NOW = frozenset("now currently today new latest current".split())  # noqa: SIM905
_OLD_AFTER_WORDS = (
    "previously before earlier anymore replaced superseded was were old outdated ended expired "
    "lapsed closed retired dead gone withdrawn cancelled canceled"
)
_OLD_AFTER = frozenset(_OLD_AFTER_WORDS.split())

_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_WORDS = {
    **_MONTHS,
    "january": 1, "february": 2, "march": 3, "april": 4, "june": 6, "july": 7, "august": 8,
    "sept": 9, "september": 9, "october": 10, "november": 11, "december": 12,
}  # fmt: skip
_THOUSANDS = re.compile(r"(?<![\d.,])(\d{1,3})((?:[, \u00a0\u202f]\d{3})+)(?![\d])")
_DECIMAL = re.compile(r"\d+\.\d+")
_SENTENCE_END = re.compile(r"[.!?;:](?=\s|$)|\n")
_TOKEN = re.compile(r"\d+\.\d+|[a-z0-9_]+|\|")  # a decimal stays one token: "3.90" is not "3", "90"
_DIGIT_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")


def _date_token(year: str | None, month: int, day: str) -> str:
    return f"dt_{year or 'xxxx'}_{month:02d}_{int(day):02d}"


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
            year = _year(words, i + 2)
            out.append(_date_token(year, month, str(_day(words[i + 1]))))
            i += 3 if year else 2
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


def _canonical_number(word: str) -> str:
    """ "007" -> "7", "3.90" -> "3.9", "21.0" -> "21"; other words unchanged."""
    if word.isdigit() and len(word) < 16:
        return str(int(word))
    if _DECIMAL.fullmatch(word):
        whole, fraction = word.split(".")
        fraction = fraction.rstrip("0")
        return f"{int(whole)}.{fraction}" if fraction else str(int(whole))
    return word


def _is_number(word: str) -> bool:
    return word.isdigit() or bool(_DECIMAL.fullmatch(word))


def _numbers(words: list[str]) -> list[str]:
    """Number and ordinal words to digits ("twenty one" -> 21, "third" -> o3, "3rd" -> o3)."""
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
        out.append(f"o{number}" if is_ordinal else str(number))
    return out


def _currencies(words: list[str]) -> list[str]:
    """Currency words to codes, amounts as "<number> <code>" whichever side the code was on."""
    out = [_CURRENCY_WORDS.get(w, w) for w in words]
    codes = set(_CURRENCY_WORDS.values())
    for i in range(len(out) - 1):
        if out[i] in codes and _is_number(out[i + 1]) and (i + 2 >= len(out) or out[i + 2] not in codes):
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


@lru_cache(maxsize=8192)
def _tokens(text: str) -> tuple[str, ...]:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    for symbol, code in _CURRENCY_SYMBOLS.items():
        text = text.replace(symbol, code)
    text = _THOUSANDS.sub(lambda m: m[1] + re.sub(r"\D", "", m[2]), text)
    text = text.replace("%", " percent ")
    text = _ISO_DATE.sub(lambda m: " " + _date_token(m[1], int(m[2]), m[3]) + " ", text)
    text = _SENTENCE_END.sub(f" {BREAK} ", text)
    words = [w for w in _TOKEN.findall(text.replace("-", " ")) if w not in _ARTICLES]
    return tuple(_currencies(_dates(_numbers(words))))


def tokens(text: str) -> list[str]:
    """The canonical tokens of ``text`` (sentence breaks included as ``BREAK``)."""
    return list(_tokens(text))


def normalise_for_match(text: str) -> str:
    """The canonical form of ``text`` as one string (for display and simple comparisons)."""
    return " ".join(t for t in _tokens(text) if t != BREAK)


def _same(want: str, got: str) -> bool:
    if want == got:
        return True
    if want.startswith("dt_") and got.startswith("dt_"):
        (wy, wm, wd), (gy, gm, gd) = want[3:].split("_"), got[3:].split("_")
        return (wm, wd) == (gm, gd) and "xxxx" in (wy, gy)
    return {want, got} in ({"yen_yuan", "jpy"}, {"yen_yuan", "cny"})


def spans(text: str, value: str) -> list[tuple[int, int]]:
    """Where the tokens of ``value`` occur contiguously in ``text`` (token index spans)."""
    want = [t for t in _tokens(value) if t != BREAK]
    have = _tokens(text)
    if not want:
        return []
    n = len(want)
    return [
        (i, i + n)
        for i in range(len(have) - n + 1)
        if all(_same(w, g) for w, g in zip(want, have[i : i + n], strict=True))
    ]


def asserts_value(text: str, value: str) -> bool:
    """``text`` states ``value`` (normalised, token-bounded)."""
    return bool(spans(text, value))


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    marked_old: bool


def _marked_old(have: tuple[str, ...], start: int, end: int) -> bool:
    before: list[str] = []  # nearest first, up to a sentence break or a "now" ("was X, now Y")
    for token in reversed(have[max(0, start - 6) : start]):
        if token == BREAK or token in _NOW:
            break
        before.append(token)
    after: list[str] = []
    for token in have[end : end + 4]:
        if token == BREAK:
            break
        after.append(token)
    if any(t in _OLD_BEFORE for t in before) or any(t in _OLD_AFTER for t in after):
        return True
    # "moved from X to Y", "changed from X": only right before the mention, so "from now on X" is
    # not read as marking X old.
    # "took over from X" marks X as the one replaced, too.
    return "from" in before[:2] and ("to" in after[:3] or "over" in before[:3])


def mentions(text: str, value: str) -> list[Mention]:
    """Every occurrence of ``value`` in ``text`` with whether the answer marks it as old."""
    have = _tokens(text)
    return [Mention(s, e, _marked_old(have, s, e)) for s, e in spans(text, value)]


def asserts_all(text: str, terms: list[str]) -> bool:
    """Every term stated in ``text`` (an evidence fact's ``match`` terms; for mech.py and the audit)."""
    return all(asserts_value(text, term) for term in terms)
