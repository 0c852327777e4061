"""StoreTools: the ``own`` harness's tool box, the store's memory tools only (or none without a
store), every call logged, anything else refused."""

from __future__ import annotations

from pathlib import Path

from pytest_pastbench.core.store import Store
from pytest_pastbench.protocols.stream.toolbox import StoreTools


def test_store_tools_offer_only_the_store(tmp_path: Path) -> None:
    tools = StoreTools(Store(tmp_path / "s"))
    names = {spec["function"]["name"] for spec in tools.specs()}
    assert "memory_write" in names and "deploys_create" not in names
    assert tools.call("memory_write", '{"text": "gift cards block cancels"}').ok
    refused = tools.call("deploys_create", '{"service": "api", "version": "1.0"}')
    assert not refused.ok and "unknown tool" in (refused.error or "")
    assert len(tools.calls) == 2
    assert StoreTools(None).specs() == []  # blind, oracle and rag: no store at all


def test_a_name_that_is_not_a_string_is_refused_and_logged_short(tmp_path: Path) -> None:
    tools = StoreTools(Store(tmp_path))
    odd = tools.call(["memory_write"], "{}")
    long = tools.call("x" * 500, "{}")
    assert not odd.ok and odd.name == "['memory_write']" and "unknown tool" in (odd.error or "")
    assert not long.ok and len(long.name) == 100
    assert [c.index for c in tools.calls] == [0, 1]


def test_without_a_store_every_call_is_refused(tmp_path: Path) -> None:
    tools = StoreTools(None)
    assert tools.memory is None and tools.store is None
    refused = tools.call("memory_write", '{"text": "x"}')
    assert not refused.ok and refused.error == "unknown tool 'memory_write'"


def test_the_memory_tools_are_the_stores_and_nothing_is_irreversible(tmp_path: Path) -> None:
    store = Store(tmp_path)
    tools = StoreTools(store, persists=False)
    assert tools.memory is not None and tools.memory.store is store and tools.memory.persists is False
    written = tools.call("memory_write", {"text": "gift cards block cancels"})
    assert written.ok and not written.irreversible and tools.irreversible == frozenset()
    assert [e.text for e in store.entries()] == ["gift cards block cancels"]
    assert tools.snapshot() == {}
