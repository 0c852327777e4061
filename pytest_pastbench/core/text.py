"""Tokenising and sentence splitting shared by store search, archive search and the offline models.

One definition of "a word" keeps lexical search and the reference policies consistent: a query
the policy builds finds exactly what the store would rank.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

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
        result.extend(part.strip() for part in _SENTENCE_END.split(line) if part.strip())
    return result


def normalise(text: str) -> str:
    """Case- and whitespace-insensitive form used for duplicate detection."""
    return " ".join(text.lower().split())


def idf_overlap_score(overlap: Iterable[str], doc_count: int, frequency: Mapping[str, int]) -> float:
    """Idf-weighted score of the words a document shares with a query (store and archive search).

    ``math.fsum`` is exactly rounded, so the score does not depend on the order of ``overlap``
    (a set, whose order follows the per-process hash seed): equal scores stay equal, ties keep
    their stable order, and the same run sends the same requests (a cache replay finds them).
    """
    return math.fsum(math.log(1 + doc_count / frequency[t]) for t in overlap)
