"""Hermes' mechanisms E1..E5 on hand-made sessions: what each injects, holds, sends back or writes,
and that each is off unless switched on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.agents.base import HERMES_SYSTEM_PROMPT, HermesAgent
from pytest_pastbench.agents.mechanisms import (
    E3_OFFER,
    E4_SEND_BACK,
    E5_CLOSE,
    ablation_sets,
    mechanism_set_label,
    parse_mechanisms,
)
from pytest_pastbench.core.records import SessionRecord
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.trace import TraceRecorder
from pytest_pastbench.errors import MechanismError
from pytest_pastbench.protocols.past.engine import run_agent_session
from pytest_pastbench.protocols.past.mech import pollution_rate
from pytest_pastbench.protocols.past.schema import WorldSeed
from pytest_pastbench.protocols.past.toolbox import ToolBox
from pytest_pastbench.protocols.past.world import World
from tests.agents.test_base import ScriptedModel, answer, call

NOW = "2026-03-02T10:00:00"


def run(
    store: Store, model: ScriptedModel, turns: list[str], mechanisms: list[str]
) -> tuple[SessionRecord, list[dict[str, Any]]]:
    trace = TraceRecorder()
    result = run_agent_session(
        HermesAgent(mechanisms=mechanisms),
        model,
        store,
        World(WorldSeed(now=NOW)),
        turns,
        index=1,
        trace=trace,
    )
    return result, trace.events


def events(trace: list[dict[str, Any]], mechanism: str) -> list[dict[str, Any]]:
    return [e for e in trace if e["kind"] == "mechanism" and e["mechanism"] == mechanism]


# -- names -----------------------------------------------------------------------------------------


def test_mechanism_names_parse_and_label() -> None:
    assert parse_mechanisms("e5, E1,E1") == ["E1", "E5"]
    assert parse_mechanisms("all") == ["E1", "E2", "E3", "E4", "E5"]
    assert parse_mechanisms("none") == parse_mechanisms("") == []
    with pytest.raises(MechanismError, match=r"E6.*E1 \(plan\).*E5 \(close\)"):
        parse_mechanisms("E1,E6")
    labels = [mechanism_set_label(s) for s in ablation_sets()]
    assert labels == ["base", "E1", "E2", "E3", "E4", "E5", "all"]
    assert mechanism_set_label(["E5", "E1"]) == "E1+E5"


# -- E1 plan -----------------------------------------------------------------------------------------


def test_e1_holds_an_irreversible_call_once_and_shows_what_is_stored(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_memory("Payments deploys are in a change freeze until March 14.")
    deploy = call("deploys_create", service="payments", version="2.4")
    model = ScriptedModel([deploy, deploy, answer("done")])
    result, trace = run(store, model, ["Deploy payments 2.4."], ["E1"])
    held = json.loads(model.seen[1][-1]["content"])
    assert held["held"] == "E1 plan" and "change freeze" in held["notes"][0]["text"]
    assert [c.name for c in result.tool_calls] == ["deploys_create"]  # the re-issued call ran, once
    [event] = events(trace, "E1")
    assert event["action"] == "held" and event["tool"] == "deploys_create" and event["notes"] == ["m0001"]


def test_without_e1_or_with_nothing_stored_the_call_runs_at_once(tmp_path: Path) -> None:
    deploy = call("deploys_create", service="payments", version="2.4")
    stored = Store(tmp_path / "stored")
    stored.write_memory("Payments deploys are in a change freeze until March 14.")
    for store, mechanisms in ((stored, []), (Store(tmp_path / "empty"), ["E1"])):
        model = ScriptedModel([deploy, answer("done")])
        result, trace = run(store, model, ["Deploy payments 2.4."], mechanisms)
        assert [c.name for c in result.tool_calls] == ["deploys_create"]
        assert "held" not in model.seen[1][-1]["content"]
        assert [e["action"] for e in events(trace, "E1")] == (["checked"] if mechanisms else [])


# -- E2 render ---------------------------------------------------------------------------------------


def test_e2_tools_supersede_and_reads_hide_dead_entries(tmp_path: Path) -> None:
    store = Store(tmp_path)
    old = store.write_memory("Marlow invoices go out on the 5th business day.")
    store.write_memory("Marlow gate code 4411 holds this week.", expires="2026-03-01T00:00:00")
    write = call(
        "memory_write",
        text="Marlow invoices go out on the 8th business day.",
        entity="Marlow",
        supersedes=old.id,
    )
    model = ScriptedModel([write, call("memory_search", query="Marlow invoices"), answer("ok")])
    result, trace = run(store, model, ["Marlow invoices moved to the 8th."], ["E2"])
    assert result.tool_calls[0].ok, result.tool_calls[0].error
    assert store.entries()[0].superseded_by == "m0003"
    shown = json.loads(model.seen[2][-1]["content"])
    assert [(e["id"], e.get("entity")) for e in shown] == [("m0003", "Marlow")]
    [event] = events(trace, "E2")
    assert event["action"] == "hid" and sorted(event["entries"]) == ["m0001", "m0002"]
    # Mech's "live" is the same rule: what E2 hides is what Mech does not count.
    live = [e for e in store.entries() if e.is_live(NOW)]
    assert [e.id for e in live] == ["m0003"]
    assert pollution_rate(live, [], [], []) == 0.0


def test_base_tools_have_no_e2_fields_and_reads_show_every_undeleted_entry(tmp_path: Path) -> None:
    store = Store(tmp_path)
    old = store.write_memory("Marlow invoices go out on the 5th business day.")
    new = store.write_memory("Marlow invoices go out on the 8th business day.")
    store.update_memory(old.id, superseded_by=new.id)
    model = ScriptedModel(
        [
            call("memory_write", text="x y z", supersedes=old.id),
            call("memory_search", query="Marlow"),
            answer("ok"),
        ]
    )
    result, trace = run(store, model, ["Marlow?"], [])
    assert not result.tool_calls[0].ok and "supersedes" in (result.tool_calls[0].error or "")
    assert len(json.loads(model.seen[2][-1]["content"])) == 2
    sent = {t["function"]["name"]: t["function"]["parameters"]["properties"] for t in ToolBox.specs()}
    assert "supersedes" not in sent["memory_write"] and "superseded_by" not in sent["memory_update"]
    assert events(trace, "E2") == []


def test_superseded_by_must_name_another_existing_note(tmp_path: Path) -> None:
    store = Store(tmp_path)
    note = store.write_memory("Marlow invoices go out on the 5th business day.")
    model = ScriptedModel(
        [
            call("memory_update", id=note.id, superseded_by="m0099"),
            call("memory_update", id=note.id, superseded_by=note.id),
            answer("ok"),
        ]
    )
    result, _ = run(store, model, ["tidy up"], ["E2"])
    assert [c.ok for c in result.tool_calls] == [False, False]
    assert store.entries()[0].is_live(NOW)


# -- E3 route ----------------------------------------------------------------------------------------


def test_e3_offers_matching_skills_at_session_start(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_skill("rotate tls cert", ["drain the gateway", "swap the cert", "undrain"], ["tls", "cert"])
    store.write_skill("onboard engineer", ["laptop", "accounts"], ["onboarding"])
    for mechanisms, offered in ((["E3"], True), ([], False)):
        model = ScriptedModel([answer("ok")])
        _, trace = run(store, model, ["Rotate the TLS cert on the billing gateway."], mechanisms)
        system = [m["content"] for m in model.seen[0] if m["role"] == "system"]
        assert any(c.startswith(E3_OFFER) for c in system) is offered
        if offered:
            assert "rotate tls cert" in system[-1] and "onboard engineer" not in system[-1]
            assert [e["skills"] for e in events(trace, "E3")] == [["rotate tls cert"]]


# -- E4 gate -----------------------------------------------------------------------------------------


def test_e4_sends_a_draft_without_retrieval_back_once(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_memory("The escalation contact for the Pinecrest account is @amara.d.")
    model = ScriptedModel([answer("no idea"), answer("still no idea")])
    result, trace = run(store, model, ["Who is the Pinecrest escalation contact?"], ["E4"])
    assert model.seen[1][-1]["content"].startswith(E4_SEND_BACK)
    assert result.answer == "still no idea" and len(model.seen) == 2  # once, not a loop
    assert [e["action"] for e in events(trace, "E4")] == ["sent_back"]


@pytest.mark.parametrize(
    "stored, replies",
    [
        ("The escalation contact for the Pinecrest account is @amara.d.", "searched"),
        ("Basil likes a sunny windowsill.", "direct"),  # nothing related: not history-dependent
    ],
)
def test_e4_accepts_a_retrieved_or_history_free_answer(tmp_path: Path, stored: str, replies: str) -> None:
    store = Store(tmp_path)
    store.write_memory(stored)
    script = [answer("@amara.d")]
    if replies == "searched":
        script = [call("memory_search", query="Pinecrest escalation"), answer("@amara.d")]
    model = ScriptedModel(script)
    _, trace = run(store, model, ["Who is the Pinecrest escalation contact?"], ["E4"])
    assert events(trace, "E4") == []


# -- E5 close ----------------------------------------------------------------------------------------


def test_e5_runs_a_close_pass_that_writes_but_keeps_the_answer(tmp_path: Path) -> None:
    store = Store(tmp_path)
    stale = store.write_memory("Marlow invoices go out on the 5th business day.")
    model = ScriptedModel(
        [
            answer("Noted: the 8th business day."),
            call("memory_write", text="Marlow invoices go out on the 8th business day."),
            call("memory_delete", id=stale.id),
            answer("DONE"),
        ]
    )
    result, trace = run(store, model, ["From now on Marlow invoices go out on the 8th business day."], ["E5"])
    assert model.seen[1][-1]["content"].startswith(E5_CLOSE)
    assert result.answer == "Noted: the 8th business day."
    assert [e.text for e in store.entries()] == ["Marlow invoices go out on the 8th business day."]
    opened, wrote = events(trace, "E5")
    assert opened["action"] == "opened" and [c["name"] for c in wrote["calls"]] == [
        "memory_write",
        "memory_delete",
    ]


def test_no_mechanism_runs_unless_switched_on(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_memory("The escalation contact for the Pinecrest account is @amara.d.")
    model = ScriptedModel([answer("no idea")])
    _, trace = run(store, model, ["Who is the Pinecrest escalation contact?"], [])
    assert len(model.seen) == 1 and not [e for e in trace if e["kind"] == "mechanism"]
    assert model.seen[0][0]["content"] == HERMES_SYSTEM_PROMPT


def test_e4_judges_a_turn_by_what_was_asked_so_far(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_memory("The escalation contact for the Pinecrest account is @amara.d.")
    model = ScriptedModel([answer("basil likes sun"), answer("no idea"), answer("still no idea")])
    turns = ["How do I keep basil alive?", "Who is the Pinecrest escalation contact?"]
    _, trace = run(store, model, turns, ["E4"])
    # Not after the first answer (a later turn is not known yet); once after the second.
    assert [m["content"].startswith(E4_SEND_BACK) for m in model.seen[-1] if m["role"] == "user"] == [
        False,
        False,
        True,
    ]
    assert len(events(trace, "E4")) == 1
