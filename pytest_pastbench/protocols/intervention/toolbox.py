"""The tool box of an intervention item: the store's memory tools plus the domain service's."""

from __future__ import annotations

from typing import Any

from pytest_pastbench.core.records import ToolCall
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.tools import MemoryTools, printable_name, record_call

from .service import SESSION_CLOCK, DomainService


class DomainToolBox:
    """Store tools plus the domain service's tools (implements ``tools.SessionToolBox``); the
    store is the item's, kept from session to session (the user state)."""

    clock = SESSION_CLOCK

    def __init__(self, store: Store, service: DomainService) -> None:
        self.memory = MemoryTools(store, clock=self.clock)
        self.service = service
        self.store = store
        self.calls: list[ToolCall] = []

    @property
    def irreversible(self) -> frozenset[str]:
        return self.service.irreversible

    def specs(self) -> list[dict[str, Any]]:
        return [spec.to_openai() for spec in self.memory.specs()] + self.service.specs()

    def call(self, name: str, raw_arguments: str | dict[str, Any] | None) -> ToolCall:
        label = printable_name(name)
        record = record_call(
            len(self.calls),
            name,
            raw_arguments,
            lambda arguments: self._run(label, arguments),
            irreversible=label in self.irreversible,
        )
        self.calls.append(record)
        return record

    def _run(self, name: str, arguments: dict[str, Any]) -> Any:
        if self.memory.spec(name) is not None:
            return self.memory.run(name, arguments)
        return self.service.call(name, arguments)

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        return {}  # what the domain returns is declared, not kept: checks read the calls
