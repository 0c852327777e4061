"""The tool box of the ``own`` harness: the agent's persistent store as memory tools."""

from __future__ import annotations

from typing import Any

from pytest_pastbench.core.records import ToolCall
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.tools import MemoryTools, record_call


class StoreTools:
    """The memory and skill tools only (a stream has no notes, tickets or deploys to touch), or
    no tool at all without a store; implements ``tools.SessionToolBox``. ``persists`` False: the
    session's writes are discarded (a test ticket's frozen store)."""

    clock = None
    irreversible: frozenset[str] = frozenset()  # memory tools only: nothing the agent does is final

    def __init__(self, store: Store | None, *, persists: bool = True) -> None:
        self.store = store
        self._store_tools = MemoryTools(store, persists=persists) if store is not None else None
        self.calls: list[ToolCall] = []

    @property
    def memory(self) -> MemoryTools | None:
        """The memory tools Hermes' mechanisms act on (None without a store)."""
        return self._store_tools

    def specs(self) -> list[dict[str, Any]]:
        return [spec.to_openai() for spec in self._store_tools.specs()] if self._store_tools else []

    def call(self, name: Any, raw_arguments: Any) -> ToolCall:
        store_tools = self._store_tools
        if store_tools is not None and isinstance(name, str) and store_tools.spec(name) is not None:
            record = record_call(
                len(self.calls), name, raw_arguments, lambda arguments: store_tools.run(name, arguments)
            )
        else:
            record = ToolCall(
                index=len(self.calls), name=str(name)[:100], ok=False, error=f"unknown tool {name!r}"
            )
        self.calls.append(record)
        return record

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        return {}
