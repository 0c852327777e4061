from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.agents.base import Budgets, HermesAgent
from pytest_pastbench.agents.registry import make_agent
from pytest_pastbench.core.store import Store
from pytest_pastbench.errors import InfraError, WallBackstop
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.protocols.past.engine import run_agent_session
from pytest_pastbench.protocols.past.schema import WorldSeed
from pytest_pastbench.protocols.past.world import World


class ScriptedModel:
    """Replies from a list; records what it was sent."""

    model = "scripted"

    def __init__(self, replies: list[ModelReply], delay_s: float = 0.0) -> None:
        self.replies = replies
        self.delay_s = delay_s
        self.seen: list[list[dict[str, Any]]] = []

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        self.seen.append([dict(m) for m in messages])
        time.sleep(self.delay_s)
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


def call(name: str, **arguments: Any) -> ModelReply:
    return ModelReply(
        content=None,
        tool_calls=[{"id": f"c-{name}", "name": name, "arguments": json.dumps(arguments)}],
        prompt_tokens=10,
        completion_tokens=2,
        cost_usd=0.001,
    )


def answer(text: str) -> ModelReply:
    return ModelReply(content=text, prompt_tokens=5, completion_tokens=3, cost_usd=0.002)


def session(model: ScriptedModel, tmp_path: Path, turns: list[str], budgets: Budgets | None = None):
    return run_agent_session(
        HermesAgent(), model, Store(tmp_path), World(WorldSeed()), turns, budgets=budgets
    )


def test_tool_results_go_back_to_the_model_and_usage_adds_up(tmp_path: Path) -> None:
    model = ScriptedModel([call("memory_write", text="likes tea"), answer("saved")])
    run = session(model, tmp_path, ["I like tea."])
    assert run.answer == "saved"
    assert [c.name for c in run.tool_calls] == ["memory_write"]
    assert model.seen[1][-1] == {
        "role": "tool",
        "tool_call_id": "c-memory_write",
        "content": '{"id": "m0001"}',
    }
    assert (run.model_calls, run.prompt_tokens, run.completion_tokens) == (2, 15, 5)
    assert run.cost_usd == pytest.approx(0.003)


def test_every_user_turn_is_answered_in_one_conversation(tmp_path: Path) -> None:
    model = ScriptedModel([answer("first"), answer("second")])
    run = session(model, tmp_path, ["one", "two"])
    assert run.answer == "second"
    assert [m["role"] for m in model.seen[1]] == ["system", "user", "assistant", "user"]


def test_unknown_cost_stays_unknown(tmp_path: Path) -> None:
    reply = answer("x")
    reply.cost_usd = None
    assert session(ScriptedModel([reply]), tmp_path, ["hi"]).cost_usd is None


def test_tool_call_budget_stops_the_session(tmp_path: Path) -> None:
    model = ScriptedModel([call("memory_search", query="loop")])
    run = session(model, tmp_path, ["go"], Budgets(tool_calls=3))
    assert run.budget_exceeded == "tool_calls" and len(run.tool_calls) == 3


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class SlowModel(ScriptedModel):
    """Each call takes ``took_s`` on the fake clock, ``waited_s`` of it queued in the harness
    (a connection slot, a retry's backoff), as ``ModelReply.waited_s`` reports it."""

    def __init__(self, replies: list[ModelReply], clock: FakeClock, took_s: float, waited_s: float) -> None:
        super().__init__(replies)
        self.clock, self.took_s, self.waited_s = clock, took_s, waited_s

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        reply = super().complete(messages, tools, **params)
        self.clock.now += self.took_s
        return dataclasses.replace(reply, waited_s=self.waited_s)


def test_the_wall_backstop_is_infra_blocked_never_a_score(tmp_path: Path) -> None:
    """Wall time moves with the machine's load: a session past the backstop is an InfraError
    (the item infra_blocked with the reason), not ``budget:wall_time`` scored 0."""
    clock = FakeClock()
    model = SlowModel([call("memory_search", query="loop")], clock, took_s=120.0, waited_s=0.0)
    with pytest.raises(
        WallBackstop, match=r"session 0 passed the wall-clock backstop .*=300 s; 360 s of its own"
    ):
        session(model, tmp_path, ["go"], Budgets(wall_s=300, clock=clock))
    assert issubclass(WallBackstop, InfraError)


def test_waiting_on_the_harness_does_not_spend_the_agent_s_wall_budget(tmp_path: Path) -> None:
    """A queued provider (each call 200 s, 199.5 s of it waiting for a slot): 1,000 s of wall
    time, 2.5 s of the agent's own; the session answers and is scored as on a quiet machine."""
    clock = FakeClock()
    replies = [call("memory_search", query="tea") for _ in range(4)] + [answer("tea")]
    model = SlowModel(replies, clock, took_s=200.0, waited_s=199.5)
    run = session(model, tmp_path, ["what do I like?"], Budgets(wall_s=300, clock=clock))
    assert clock.now == pytest.approx(1000.0)
    assert run.budget_exceeded is None and run.answer == "tea" and len(run.tool_calls) == 4


def test_a_malformed_tool_call_is_an_error_the_agent_can_recover_from(tmp_path: Path) -> None:
    bad = ModelReply(content=None, tool_calls=[{"id": "x", "name": "memory_write", "arguments": "{oops"}])
    model = ScriptedModel([bad, call("memory_write", text="ok"), answer("done")])
    run = session(model, tmp_path, ["save ok"])
    assert [c.ok for c in run.tool_calls] == [False, True]
    assert "not valid JSON" in model.seen[1][-1]["content"]


def test_make_agent_from_agent_file_and_factory() -> None:
    registered = {"hermes": HermesAgent}
    assert make_agent("hermes", registered).name == "hermes"
    factory_agent = make_agent("pytest_pastbench.agents.base:HermesAgent", registered)
    assert factory_agent.mechanisms == []
    with pytest.raises(ValueError, match="unknown agent 'zeus'; choose one of hermes"):
        make_agent("zeus", registered)
