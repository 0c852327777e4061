"""The one session runner: every protocol's tool box implements ``SessionToolBox`` and is driven
by ``run_session`` alike; the session record, the trace's session event and the store stamp come
from the box, and Hermes' mechanisms act on whichever box offers its memory tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.agents.base import HermesAgent
from pytest_pastbench.agents.session_runner import run_session
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.tools import SessionToolBox
from pytest_pastbench.core.trace import TraceRecorder
from pytest_pastbench.protocols.intervention.service import SESSION_CLOCK, DomainService
from pytest_pastbench.protocols.intervention.toolbox import DomainToolBox
from pytest_pastbench.protocols.past.schema import WorldSeed
from pytest_pastbench.protocols.past.toolbox import ToolBox
from pytest_pastbench.protocols.past.world import World
from pytest_pastbench.protocols.plasticity.artifacts import Inventory
from pytest_pastbench.protocols.plasticity.toolbox import ArtifactToolBox
from pytest_pastbench.protocols.stream.toolbox import StoreTools
from tests.agents.test_base import ScriptedModel, answer, call
from tests.protocols.intervention.test_service import SERVICE

NOW = "2026-03-02T10:00:00"


def boxes(root: Path) -> dict[str, Any]:
    return {
        "past": ToolBox(Store(root / "past"), World(WorldSeed(now=NOW))),
        "intervention": DomainToolBox(Store(root / "iv"), DomainService(SERVICE)),
        "stream": StoreTools(Store(root / "stream")),
        "stream-blind": StoreTools(None),
        "plasticity": ArtifactToolBox(Inventory(root / "inventory")),
    }


def test_every_protocol_tool_box_implements_the_interface(tmp_path: Path) -> None:
    for name, box in boxes(tmp_path).items():
        assert isinstance(box, SessionToolBox), name
        assert box.calls == [] and isinstance(box.specs(), list) and isinstance(box.snapshot(), dict), name
    assert not isinstance(object(), SessionToolBox)


@pytest.mark.parametrize("name", ["past", "intervention", "stream", "plasticity"])
def test_run_session_records_the_session_from_any_box(tmp_path: Path, name: str) -> None:
    box = boxes(tmp_path)[name]
    box.store.session = 2
    box.store.write_memory("written before the session")
    read = "memory_search"
    model = ScriptedModel([call(read, query="tea"), answer("done")])
    trace = TraceRecorder()
    run = run_session(HermesAgent(), model, box, ["Do I like tea?"], index=3, stage="eval", trace=trace)
    assert run.answer == "done" and run.index == 3 and run.stage == "eval"
    assert [c.name for c in run.tool_calls] == [read] and run.tool_calls[0].ok
    # Only this session's store accesses, stamped with its index.
    assert [(a.op, a.session) for a in run.store_accesses] == [("search", 3)]
    assert run.store_after == box.store.snapshot()
    assert run.world_after == box.snapshot()
    assert (run.model_calls, run.prompt_tokens, run.completion_tokens) == (2, 15, 5)
    session_event = next(e for e in trace.events if e["kind"] == "session")
    clock = {"past": NOW, "intervention": SESSION_CLOCK}.get(name)
    assert run.now == (clock or "")
    assert session_event.get("now") == clock and ("now" in session_event) == (clock is not None)


def test_a_session_without_a_store_runs_and_records_no_store(tmp_path: Path) -> None:
    run = run_session(
        HermesAgent(), ScriptedModel([call("memory_search", query="x"), answer("A")]), StoreTools(None), ["?"]
    )
    assert run.answer == "A" and run.store_accesses == [] and run.store_after == []
    assert run.tool_calls[0].ok is False and "unknown tool" in (run.tool_calls[0].error or "")


@pytest.mark.parametrize("name", ["past", "intervention", "stream", "plasticity"])
def test_mechanisms_act_on_every_protocol_box(tmp_path: Path, name: str) -> None:
    box = boxes(tmp_path)[name]
    box.store.write_skill(
        "rotate tls cert", ["drain the gateway", "swap the cert", "undrain"], ["tls", "cert"]
    )
    trace = TraceRecorder()
    turn = ["Rotate the tls cert on the gateway."]
    run_session(HermesAgent(mechanisms=["E3"]), ScriptedModel([answer("ok")]), box, turn, trace=trace)
    mechanism = [(e["mechanism"], e["action"]) for e in trace.events if e["kind"] == "mechanism"]
    assert mechanism == [("E3", "injected")]


def test_a_box_without_memory_tools_says_why_no_mechanism_applies() -> None:
    trace = TraceRecorder()
    run_session(
        HermesAgent(mechanisms=["E1", "E3"]),
        ScriptedModel([answer("ok")]),
        StoreTools(None),
        ["hi"],
        trace=trace,
    )
    events = [(e["mechanism"], e["action"], e["why"]) for e in trace.events if e["kind"] == "mechanism"]
    why = "the session offers no memory or skill tools"
    assert events == [("E1", "cannot_apply", why), ("E3", "cannot_apply", why)]


def test_e2_switches_the_memory_tools_a_box_offers(tmp_path: Path) -> None:
    box = StoreTools(Store(tmp_path / "s"))
    model = ScriptedModel([answer("ok")])
    run_session(HermesAgent(mechanisms=["E2"]), model, box, ["hi"])
    assert box.memory is not None and box.memory.render
    write = next(t for t in box.specs() if t["function"]["name"] == "memory_write")
    assert "supersedes" in write["function"]["parameters"]["properties"]
    assert (
        "supersedes"
        not in next(t for t in ToolBox.specs() if t["function"]["name"] == "memory_write")["function"][
            "parameters"
        ]["properties"]
    )


class BareFactoryAgent:
    """A Python factory agent as a user writes one from the docs' minimum: it calls the model and
    the tool box directly and never calls ``result.add_usage``, ``ctx.run_tool`` or ``ctx.trace``."""

    name = "bare"
    mechanisms: list[str] = []

    def run_session(self, ctx: Any) -> Any:
        from pytest_pastbench import AgentResult

        messages = [{"role": "user", "content": t} for t in ctx.user_turns]
        while True:
            reply = ctx.model.complete(messages, ctx.tools.specs())
            if not reply.tool_calls:
                return AgentResult(answer=reply.content or "")
            messages.append(reply.as_message())
            for tool_call in reply.tool_calls:
                done = ctx.tools.call(tool_call["name"], tool_call["arguments"])
                messages.append(
                    {"role": "tool", "tool_call_id": tool_call["id"], "content": str(done.result)}
                )


def test_the_harness_records_usage_turns_calls_and_answer_of_an_agent_that_records_nothing(
    tmp_path: Path,
) -> None:
    """Issue 30: such an agent's items showed 0 tokens and an empty trace, though every call
    passed through the harness's client and tool box."""
    box = boxes(tmp_path)["past"]
    model = ScriptedModel([call("memory_search", query="tea"), call("notes_list"), answer("green tea")])
    trace = TraceRecorder()
    run = run_session(BareFactoryAgent(), model, box, ["Which tea do I like?"], index=1, trace=trace)
    assert run.answer == "green tea"
    assert run.model_calls == 3 and run.prompt_tokens > 0 and run.completion_tokens > 0
    assert run.cost_usd is not None and run.cost_usd > 0
    kinds = [(e["kind"], e.get("role") or e.get("name")) for e in trace.events if e["kind"] != "session"]
    assert kinds == [
        ("message", "user"),
        ("tool_call", "memory_search"),
        ("tool_call", "notes_list"),
        ("message", "assistant"),
    ]


def test_an_agent_that_records_its_own_usage_and_trace_is_not_counted_twice(tmp_path: Path) -> None:
    box = boxes(tmp_path)["past"]
    model = ScriptedModel([call("memory_search", query="tea"), answer("done")])
    trace = TraceRecorder()
    run = run_session(HermesAgent(), model, box, ["Do I like tea?"], index=0, trace=trace)
    assert run.model_calls == 2
    assert sum(1 for e in trace.events if e["kind"] == "tool_call") == 1
    assert sum(1 for e in trace.events if e["kind"] == "message" and e["role"] == "assistant") == 1
