"""DomainToolBox: the store's memory tools and the domain service's tools behind one call, every
call logged in order, garbage refused with a reason."""

from __future__ import annotations

from pathlib import Path

from pytest_pastbench.core.store import Store
from pytest_pastbench.protocols.intervention.schema import Service
from pytest_pastbench.protocols.intervention.service import SESSION_CLOCK, DomainService
from pytest_pastbench.protocols.intervention.toolbox import DomainToolBox

SERVICE = Service.model_validate(
    {
        "name": "tickets-api",
        "version": "v1",
        "tools": {
            "lookup": {
                "description": "A ticket's status.",
                "params": {"id": {"type": "string"}},
                "returns": {"status": "open", "id": "{id}"},
            },
            "publish": {
                "description": "Publish.",
                "params": {"title": {"type": "string"}},
                "returns": {"published": "{title}"},
                "irreversible": True,
            },
        },
    }
)


def test_the_toolbox_dispatches_store_and_domain_calls_and_logs_garbage(tmp_path: Path) -> None:
    tools = DomainToolBox(Store(tmp_path), DomainService(SERVICE))
    names = [s["function"]["name"] for s in tools.specs()]
    assert "memory_search" in names and "lookup" in names
    written = tools.call("memory_write", '{"text": "a note"}')
    computed = tools.call("lookup", {"id": "T-7"})
    garbage = tools.call("lookup", "{not json")
    unknown = tools.call("nope", "{}")
    assert [c.index for c in tools.calls] == [0, 1, 2, 3]
    assert written.ok and computed.ok and computed.result["id"] == "T-7"
    assert not garbage.ok and "not valid JSON" in (garbage.error or "")
    assert not unknown.ok and unknown.error == "unknown tool 'nope'"


def test_irreversible_domain_calls_are_marked_and_memory_calls_are_not(tmp_path: Path) -> None:
    tools = DomainToolBox(Store(tmp_path), DomainService(SERVICE))
    assert tools.irreversible == frozenset({"publish"})
    published = tools.call("publish", {"title": "q3"})
    noted = tools.call("memory_write", {"text": "q3 is out"})
    computed = tools.call("lookup", {"id": "T-7"})
    assert published.ok and published.irreversible and published.result["published"] == "q3"
    assert noted.ok and not noted.irreversible and not computed.irreversible


def test_the_store_is_kept_and_read_on_the_session_clock(tmp_path: Path) -> None:
    store = Store(tmp_path)
    tools = DomainToolBox(store, DomainService(SERVICE))
    assert tools.clock == SESSION_CLOCK and tools.store is store
    assert tools.call("memory_write", {"text": "use spearman for ranks"}).ok
    # The next session's box over the same store finds it: the store is the item's user state.
    again = DomainToolBox(store, DomainService(SERVICE))
    found = again.call("memory_search", {"query": "spearman"})
    assert found.ok and "use spearman for ranks" in str(found.result)
    assert tools.snapshot() == {}  # checks read the calls, not a world
