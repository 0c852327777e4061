"""Their RAG baseline as a ``Learner``: the agent's own past serving episodes, retrieved by BM25.

As the authors run it: each window's serving tasks run in blocks of 12 with the case store frozen
within a block (the block's records are added when it ends, and a window's last, shorter block
ends before the window's test tasks); for each task the 8 most similar past cases with a
positive score are retrieved with Okapi BM25 (k1 = 1.5, b = 0.75, idf = ln(1 + (N - df + 0.5) /
(df + 0.5))) over the task text without its timestamp line, best first, and shown in the system
prompt with their score and stream position. Test tasks retrieve but are never added.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from .engine import Experience
from .scoring import feedback_line

BLOCK, TOP_K, K1, B = 12, 8, 1.5, 0.75
RECORD_CAP = 100_000  # characters of one record shown
TIMESTAMP_PREFIX = "Current timestamp: "
# What the agent reads is the published method's text, verbatim (their methods/rag.py HEADER,
# DRIFT_NOTE, the case heading and the truncation mark).
HEADER = (
    "# Past cases\n"
    "These are complete records of YOUR OWN earlier episodes in this environment, retrieved because "
    "their questions are similar to the current one. Each carries the score it received. "
    "The environment may change over time; each example's 'Current timestamp' line gives the "
    "stream position at which it was observed.\n"
)
CASE_HEADING = "## Case observed at stream position {timestamp} — {score}"
TRUNCATED = "\n  (record truncated)"
_TOKEN = re.compile(r"[a-z0-9]+")


def task_text(instruction: str) -> str:
    """The instruction without its ``Current timestamp: t`` line."""
    if instruction.startswith(TIMESTAMP_PREFIX):
        return instruction.split("\n\n", 1)[-1]
    return instruction


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _timestamp(instruction: str) -> int | None:
    head = instruction.split("\n", 1)[0]
    if head.startswith(TIMESTAMP_PREFIX) and head[len(TIMESTAMP_PREFIX) :].strip().isdigit():
        return int(head[len(TIMESTAMP_PREFIX) :])
    return None


def bm25_top(query: list[str], documents: list[list[str]], k: int) -> list[int]:
    """Indices of the ``k`` best documents with a positive score, best first (ties: older first)."""
    if not documents:
        return []
    n = len(documents)
    average = sum(len(d) for d in documents) / n
    frequency = Counter(term for d in documents for term in set(d))
    scored = []
    for index, document in enumerate(documents):
        counts, score = Counter(document), 0.0
        for term in query:
            if term in counts:
                idf = math.log(1 + (n - frequency[term] + 0.5) / (frequency[term] + 0.5))
                tf = counts[term]
                score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len(document) / average))
        scored.append((score, index))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [index for score, index in scored[:k] if score > 0]


class RagLearner:
    def __init__(self, block: int = BLOCK, top_k: int = TOP_K) -> None:
        self.block, self.top_k = block, top_k
        self.cases: list[Experience] = []
        self.pending: list[Experience] = []
        self._documents: list[list[str]] = []

    def context(self, instruction: str) -> str:
        at = _timestamp(instruction)
        if self.pending and at is not None and at <= self.pending[-1].timestamp:
            # A task no later than the last one served is a test of this window: the window's
            # serving part is over, so its last (shorter) block ends here.
            self._end_block()
        hits = self.search(task_text(instruction))
        if not hits:
            return ""
        shown = []
        for case in hits:
            record = case.record if len(case.record) <= RECORD_CAP else case.record[:RECORD_CAP] + TRUNCATED
            heading = CASE_HEADING.format(timestamp=case.timestamp, score=feedback_line(case.reward))
            shown.append(f"{heading}\n{record}\n")
        return "\n".join([HEADER, *shown])

    def update(self, experience: Experience) -> None:
        self.pending.append(experience)
        if len(self.pending) >= self.block:
            self._end_block()

    def _end_block(self) -> None:
        self.cases.extend(self.pending)
        self._documents.extend(tokens(task_text(c.instruction)) for c in self.pending)
        self.pending.clear()

    def search(self, query: str) -> list[Experience]:
        return [self.cases[i] for i in bm25_top(tokens(query), self._documents, self.top_k)]
