"""An item's records: which store entries are live, and the JSON round trip a worker's records
take to the controller (and a trace file back to re-scoring)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pytest_pastbench.core.records import SessionRecord, StoreAccess, StoreEntry, ToolCall

NOW = "2026-03-02T10:00:00"


@pytest.mark.parametrize(
    ("fields", "now", "live"),
    [
        ({}, None, True),
        ({}, NOW, True),
        ({"deleted": True}, None, False),
        ({"superseded_by": "n2"}, NOW, False),
        ({"expires": "2026-03-02T09:59:59"}, NOW, False),
        ({"expires": NOW}, NOW, False),  # expiring now is expired
        ({"expires": "2026-03-02T10:00:01"}, NOW, True),
        ({"expires": "2000-01-01T00:00:00"}, None, True),  # no clock: expiry cannot be judged
    ],
)
def test_an_entry_is_live_unless_deleted_superseded_or_expired(
    fields: dict, now: str | None, live: bool
) -> None:
    assert StoreEntry(id="n1", text="note", **fields).is_live(now) is live


def test_a_session_record_survives_the_json_round_trip() -> None:
    record = SessionRecord(
        index=1,
        stage="eval_near",
        now=NOW,
        answer="42",
        tool_calls=[ToolCall(index=0, name="memory_search", arguments={"query": "x"}, result=[{"id": "n1"}])],
        store_accesses=[StoreAccess(op="search", session=1, query="x", entry_ids=["n1"])],
        store_after=[StoreEntry(id="n1", text="note", tags=["t"])],
        cost_usd=None,
    )
    assert SessionRecord.model_validate_json(record.model_dump_json()) == record
    assert record.model_dump()["cost_usd"] is None  # an unknown cost stays unknown, never 0


def test_a_store_access_names_only_store_operations() -> None:
    with pytest.raises(ValidationError):
        StoreAccess(op="drop", session=0)
