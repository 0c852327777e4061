"""Their RAG baseline as a ``Learner``: the agent's own past serving episodes, retrieved by BM25.

As documented (docs/methods.md of ServeLearnBench): the serving stream runs in blocks of 12
episodes and the case store is frozen within a block (every record is added after it); for each
task the 8 most similar past cases are retrieved with Okapi BM25 (k1 = 1.5, b = 0.75) over the
task text without its timestamp line, and shown in the system prompt under ``# Past cases``, each
with its score and stream position. Test tasks retrieve but are never added.
"""

from __future__ import annotations

from typing import Any

from pytest_pastbench.core.text import words

from .engine import Experience
from .scoring import feedback_line

BLOCK, TOP_K, K1, B = 12, 8, 1.5, 0.75
TIMESTAMP_PREFIX = "Current timestamp: "


def task_text(instruction: str) -> str:
    """The instruction without its ``Current timestamp: t`` line."""
    if instruction.startswith(TIMESTAMP_PREFIX):
        return instruction.split("\n\n", 1)[-1]
    return instruction


class RagLearner:
    def __init__(self, block: int = BLOCK, top_k: int = TOP_K) -> None:
        self.block, self.top_k = block, top_k
        self.cases: list[Experience] = []
        self.pending: list[Experience] = []
        self._bm25: Any = None

    def context(self, instruction: str) -> str:
        hits = self.search(task_text(instruction))
        if not hits:
            return ""
        shown = [
            f"## Case at position {case.timestamp} ({feedback_line(case.reward)})\n{case.record}"
            for case in hits
        ]
        return "# Past cases\n\n" + "\n\n".join(shown)

    def update(self, experience: Experience) -> None:
        self.pending.append(experience)
        if len(self.pending) >= self.block:
            self.cases.extend(self.pending)
            self.pending.clear()
            self._bm25 = None

    def search(self, query: str) -> list[Experience]:
        if not self.cases:
            return []
        if self._bm25 is None:
            from rank_bm25 import BM25Okapi

            self._bm25 = BM25Okapi([words(task_text(c.instruction)) for c in self.cases], k1=K1, b=B)
        scores = self._bm25.get_scores(words(query))
        ranked = sorted(range(len(scores)), key=lambda i: (-scores[i], -i))[: self.top_k]
        return [self.cases[i] for i in sorted(ranked)]  # oldest first, as history reads
