"""Tokenising and sentence splitting shared by store search, archive search and the offline models.

One definition of "a word" keeps lexical search and the reference policies consistent: a query
the policy builds finds exactly what the store would rank.

``search_terms`` is what store and archive search index and match: content words, case folded,
split at inner punctuation and reduced to their Snowball English stem, so "batteries" finds
"battery", "ticketed" finds "ticket" and "Ines Marchetti" finds "@ines.marchetti", as a person
searching would expect. ``stem`` is public so the grader's normaliser (protocols/shared/matching.py
``tokens``) can map its tokens to the same stems.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import TypeVar

import snowballstemmer

STOPWORDS = frozenset(
    """
    a about after again all also am an and any are as at be because been before being but by can
    could did do does doing done for from had has have having he her here hers him his how i if
    in into is it its itself just let me more most my no nor not of off on once only or other
    our ours out over own please same she should so some such than that the their them then
    there these they this those through to too under until up us very was we were what when
    where which while who whom why will with would you your yours yourself hi hello thanks thank
    ok okay sure need want like get got make made use used using know tell give one two
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
_WORD = re.compile(r"[a-z0-9][a-z0-9@._\-/]*[a-z0-9]|[a-z0-9]")
# A sentence ends at . ! or ? (a closing quote or bracket may follow: 'was dropped." Right now').
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'\u201d\u2019)\]]))\s+(?=[\"'\u201c(\[]?[A-Z0-9@])")
LIST_ITEM = re.compile(r"^\s*(?:step\s*)?\d{1,2}[.)]\s+\S", re.IGNORECASE)
# A period that ends an abbreviation ends no sentence. Three closed classes of English
# abbreviations (not phrasings of any data): a title before a name ("Prof. Lang", "Dr. Okafor"),
# a Latin or editorial one that always continues ("e.g. the", "i.e. Gate 3", "vs. Table 2"),
# and a label before a number ("No. 5", "Fig. 2", "approx. 40", "pp. 12"). "No. The gate …" and
# "… etc. Then …" still end sentences: "No." is an answer, "etc." most often closes one.
_TITLES = (
    "mr|mrs|ms|mx|dr|prof|sr|jr|st|mt|rev|fr|gen|col|capt|lt|sgt|maj|cmdr|hon|gov|sen|rep|pres|"
    "supt|insp|messrs|mme|mlle|mssrs"
)
_CONTINUING = "e\\.g|i\\.e|cf|vs|viz|approx|appx|ca|incl|excl|esp|resp|dept|al"
_BEFORE_NUMBER = "no|nos|nr|fig|figs|vol|vols|p|pp|ch|sec|art|para|eq|ed|est|ref|tel|ext|op|rm|bldg"
ABBREVIATION_PERIOD = re.compile(
    rf"(?i)(?:\b(?:{_TITLES})\.(?=\s+[A-Z])|(?<![\w.])(?:{_CONTINUING})\.(?=\s)|"
    rf"\b(?:{_BEFORE_NUMBER})\.(?=\s*[#(]?\d))"
)


def words(text: str) -> list[str]:
    """Lower-cased words with trailing punctuation trimmed (keeps handles, ids and versions)."""
    return _WORD.findall(text.lower())


def content_words(text: str) -> list[str]:
    """Words that carry meaning for search: no stopwords, first occurrence order, no repeats."""
    seen: dict[str, None] = {}
    for word in words(text):
        if word not in STOPWORDS and word not in seen:
            seen[word] = None
    return list(seen)


_T = TypeVar("_T")
_CACHED_CHARS = 2_000  # the store's longest query (store.MAX_QUERY_CHARS)
# A compound's parts: "@ines.marchetti" -> "ines", "marchetti"; "OPS-1234" -> "ops", "1234".
_PART_SPLIT = re.compile(r"[@._\-/]+")
# The Snowball English stemmer (the "Porter2" algorithm, snowballstem.org), the standard stemmer
# of lexical search. Its Python objects keep the word being stemmed as state, so one lock
# serialises them across the threads that run items concurrently.
_STEMMER = snowballstemmer.stemmer("english")
_STEM_LOCK = threading.Lock()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English stem of a lower-case word ("batteries" -> "batteri", "ticketed" ->
    "ticket"); a word with a digit or a symbol (an id, a version, a handle) is returned as it is.

    Cached: the store re-tokenises every query on every call, and a session's vocabulary is small.
    """
    if not word.isalpha():
        return word
    with _STEM_LOCK:
        return _STEMMER.stemWord(word)


def term_groups(text: str) -> list[tuple[str, ...]]:
    """The search terms of each content word of ``text``, one group per word (first occurrence order).

    A plain word is one stemmed term. A compound ("OPS-1234", "@ines.marchetti", "follow-ups")
    is kept whole, so an exact id match weighs most, and its parts (stemmed, stopwords and
    one-letter parts dropped) are terms too, so "ines marchetti" or "ops 1234" finds it.
    Groups let a caller count how many query *words* matched (``min_overlap``), not terms.
    """
    return list(_term_groups(text))


def _cached(function: Callable[[str], _T]) -> Callable[[str], _T]:
    """``function`` with an lru_cache for texts of query size: a query is re-tokenised on every
    search, while an entry's text (up to 20,000 characters) is tokenised once, when indexed, and
    caching those would hold megabytes for nothing."""
    cached = lru_cache(maxsize=4096)(function)

    def call(text: str) -> _T:
        return cached(text) if len(text) <= _CACHED_CHARS else function(text)

    call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    return call


@_cached
def _term_groups(text: str) -> tuple[tuple[str, ...], ...]:
    groups: dict[str, tuple[str, ...]] = {}
    for word in content_words(text):
        # "battery ... batteries" is one query word, not two.
        groups.setdefault(stem(word), _word_terms(word))
    return tuple(groups.values())


@lru_cache(maxsize=65536)
def _word_terms(word: str) -> tuple[str, ...]:
    """The terms of one lower-case word: its stem, then a compound's parts' stems."""
    terms = [stem(word)]
    if not word.isalnum():
        for part in _PART_SPLIT.split(word):
            if len(part) > 1 and part not in STOPWORDS and stem(part) not in terms:
                terms.append(stem(part))
    return tuple(terms)


def matched_words(groups: Iterable[tuple[str, ...]], indexed: frozenset[str]) -> int:
    """How many query words (``term_groups`` of a query) have a term in ``indexed``."""
    return sum(1 for group in groups if not indexed.isdisjoint(group))


def term_counts(text: str) -> Counter[str]:
    """How often each search term occurs in ``text`` (the query's term weights).

    A word the query repeats weighs more, as in the vector-space model and BM25's query-term
    factor: E1 asks with the request plus the held call's arguments, so the request's words
    (in both) outweigh a body that lists every stored note once.
    """
    return Counter(_term_counts(text))


@_cached
def _term_counts(text: str) -> tuple[str, ...]:
    return tuple(t for word in words(text) if word not in STOPWORDS for t in _word_terms(word))


def search_terms(text: str) -> list[str]:
    """The terms store and archive search match on: stemmed content words and compound parts,
    without repeats, in first occurrence order (see ``term_groups``)."""
    seen: dict[str, None] = {}
    for group in _term_groups(text):
        for term in group:
            seen.setdefault(term, None)
    return list(seen)


def sentences(text: str) -> list[str]:
    """Split prose into sentences and list lines (a numbered step is its own sentence)."""
    result: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if LIST_ITEM.match(line):
            result.append(line)  # "1. Pause the DAG." stays one step, never "1." + "Pause ..."
            continue
        result.extend(part.strip() for part in _split_line(line) if part.strip())
    return result


def _split_line(line: str) -> list[str]:
    """One line's sentences: split at each sentence end that is not an abbreviation's period."""
    protected = {m.end() for m in ABBREVIATION_PERIOD.finditer(line)}
    parts, start = [], 0
    for end in _SENTENCE_END.finditer(line):
        # the split point sits after the whitespace; the period is the last non-space before it
        period = len(line[: end.start()].rstrip("\"'\u201d\u2019)] "))
        if period in protected:
            continue
        parts.append(line[start : end.start()])
        start = end.end()
    parts.append(line[start:])
    return parts


def normalise(text: str) -> str:
    """Case- and whitespace-insensitive form used for duplicate detection."""
    return " ".join(text.lower().split())


def idf_overlap_score(
    overlap: Iterable[str],
    doc_count: int,
    frequency: Mapping[str, int],
    weights: Mapping[str, int] | None = None,
) -> float:
    """Idf-weighted score of the words a document shares with a query (store and archive search),
    each times its ``weights`` (the query's ``term_counts``; 1 when absent).

    ``math.fsum`` is exactly rounded, so the score does not depend on the order of ``overlap``
    (a set, whose order follows the per-process hash seed): equal scores stay equal, ties keep
    their stable order, and the same run sends the same requests (a cache replay finds them).
    """
    return math.fsum(
        (weights.get(t, 1) if weights else 1) * math.log(1 + doc_count / frequency[t]) for t in overlap
    )
