"""The four harnesses a stream runs under (ServeLearnBench §4):

- ``blind``: no store, no feedback kept; the documented policy is all the agent has.
- ``oracle``: the rules active in the current window are shown on every ticket.
- ``own``: the agent's own persistent store (memory tools), with the score of every serving
  ticket sent back in a follow-up session; frozen during test tickets (writes discarded).
- ``rag``: no store; the harness retrieves the most similar past serving tickets, with the
  answer given and its score, by BM25 (rank-bm25) and puts them on the ticket.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from pytest_pastbench.core.store import Store
from pytest_pastbench.core.text import words

RAG_TOP_K = 5


class FrozenStore:
    """Test tickets see the store as it was after serving; each one's writes are discarded."""

    def __init__(self, live: Path, scratch: Path) -> None:
        self.live = live
        self.scratch = scratch

    def open(self) -> Store:
        shutil.rmtree(self.scratch, ignore_errors=True)
        shutil.copytree(self.live, self.scratch, symlinks=True)
        return Store(self.scratch)

    def discard(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)


class RagIndex:
    """BM25 over past serving tickets and their feedback (rank-bm25's BM25+: its idf stays
    positive when a term is in most documents, as field names and common values are here;
    Okapi's goes negative and ranks the least similar tickets first in a small history)."""

    def __init__(self) -> None:
        self.documents: list[str] = []
        self._tokens: list[list[str]] = []
        self._bm25: Any = None

    def add(self, document: str) -> None:
        self.documents.append(document)
        self._tokens.append(_tokens(document))
        self._bm25 = None  # rebuilt on the next search

    def search(self, query: str, k: int = RAG_TOP_K) -> list[str]:
        if not self.documents:
            return []
        if self._bm25 is None:
            from rank_bm25 import BM25Plus  # lazy: rank_bm25, only for the retrieval harness

            self._bm25 = BM25Plus(self._tokens)
        scores = self._bm25.get_scores(_tokens(query))
        # Best first; ties go to the more recent ticket. Returned oldest first, as history reads.
        ranked = sorted(range(len(scores)), key=lambda i: (-scores[i], -i))[:k]
        return [self.documents[i] for i in sorted(ranked)]


def _tokens(text: str) -> list[str]:
    # "payment=gift_card" -> "payment", "gift_card": field names and values are both terms.
    return words(text.replace("=", " ").replace(";", " ").replace("|", " "))
