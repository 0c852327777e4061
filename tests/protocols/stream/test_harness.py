"""Harness parts: the frozen store of test tickets, and the BM25 index."""

from __future__ import annotations

from pathlib import Path

from pytest_pastbench.core.store import Store
from pytest_pastbench.protocols.stream.harness import FrozenStore, RagIndex


def test_test_tickets_see_the_frozen_store_and_their_writes_are_discarded(tmp_path: Path) -> None:
    live = Store(tmp_path / "store")
    live.write_memory("learned during serving")
    frozen = FrozenStore(tmp_path / "store", tmp_path / "frozen")
    during_test = frozen.open()
    assert [e.text for e in during_test.entries()] == ["learned during serving"]
    during_test.write_memory("written during a test ticket")
    frozen.discard()
    assert [e.text for e in frozen.open().entries()] == ["learned during serving"]
    assert [e.text for e in Store(tmp_path / "store").entries()] == ["learned during serving"]


def test_rag_returns_the_most_similar_past_tickets_oldest_first() -> None:
    index = RagIndex()
    assert index.search("anything") == []
    index.add("#0 action=cancel; payment=gift_card | answered=cancel | score=0")
    index.add("#1 action=return; payment=paypal | answered=return:original | score=100")
    index.add("#2 action=cancel; payment=gift_card | answered=refuse:payment_restricted | score=100")
    assert index.search("action=cancel; payment=gift_card", k=2) == [index.documents[0], index.documents[2]]
