"""The ``Agent`` protocol, session budgets and the base ``hermes`` agent (selection: registry.py).

An agent runs one session: user turns in, tool calls against the session's tool box, a final
answer out. It gets a fresh conversation every session; whatever it wants to keep must go
through the store tools.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..core.records import ToolCall
from ..core.tools import SessionToolBox, result_text, result_value
from ..core.trace import TraceRecorder
from ..models.client import ModelClient, ModelReply
from .mechanisms import MechanismRuntime, parse_mechanisms


@dataclass(frozen=True)
class Budgets:
    tool_calls: int = 50
    # A backstop, not a score: a session over it is infra_blocked (``WallBackstop``), since wall
    # time moves with the machine's load. Measured on ``SessionClock`` (the harness's waits left out).
    wall_s: float = 300.0
    max_output_tokens: int = 8192
    temperature: float = 0.0
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)  # a fake in tests


@dataclass
class SessionClock:
    """The session's own time: wall time since it started less what the harness made it wait
    (``ModelReply.waited_s``: a connection slot under a provider's limit, a retry's backoff).
    The wall budget is measured on it, so a queued provider does not spend the agent's time."""

    now: Callable[[], float] = time.monotonic
    started: float = field(init=False)
    waited_s: float = 0.0

    def __post_init__(self) -> None:
        self.started = self.now()

    def elapsed_s(self) -> float:
        return self.now() - self.started

    def agent_s(self) -> float:
        return self.elapsed_s() - self.waited_s


@dataclass
class SessionContext:
    user_turns: list[str]
    tools: SessionToolBox
    model: ModelClient
    budgets: Budgets
    trace: TraceRecorder
    session_index: int = 0
    stage: str = ""
    clock: SessionClock = field(default_factory=SessionClock)
    # The protocol's own system message, for an agent that takes one (``takes_system_prompt``):
    # ServeLearnBench's scenario prompt. None: the agent's own (Hermes's), as in PAST.
    system_prompt: str | None = None

    def run_tool(self, name: Any, arguments: Any) -> tuple[ToolCall, str]:
        """Run one tool call and trace it; the record and the text the agent reads back."""
        record = self.tools.call(name, arguments)
        output = result_text(record)
        self.trace.add(
            "tool_call",
            session=self.session_index,
            name=record.name,
            arguments=record.arguments,
            ok=record.ok,
            result=result_value(record),
        )
        return record, output


@dataclass
class AgentResult:
    answer: str
    budget_exceeded: str | None = None
    # The agent itself failed (an external program crashed or broke the protocol): the session
    # scores 0 with this reason. Harness failures raise InfraError instead (infra_blocked).
    error: str | None = None
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0

    def add_usage(self, reply: ModelReply) -> None:
        """Count one model call; an unknown cost makes the session's cost unknown, not lower."""
        self.model_calls += 1
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        if self.cost_usd is not None:
            self.cost_usd = None if reply.cost_usd is None else self.cost_usd + reply.cost_usd


class Agent(Protocol):
    name: str
    mechanisms: list[str]

    def run_session(self, ctx: SessionContext) -> AgentResult: ...


AgentFactory = Callable[..., Agent]

HERMES_SYSTEM_PROMPT = """\
You are Hermes, a personal work assistant. Each conversation starts empty: you remember
earlier sessions only through your persistent memory and skills, which you reach with the
memory_* and skill_* tools. Before answering anything that may depend on earlier work,
preferences or decisions, search your memory. When you learn something that will matter in a
later session (a preference, a rule, a decision, a procedure, a correction), save it. Use the
world tools (notes, archive, tickets, deploys) to do the work itself. Never store or repeat
passwords, tokens or other secrets. Finish with a direct answer to the user."""


class HermesAgent:
    """The reference tool-using agent on litellm tool calling, with the five switchable
    mechanisms E1..E5 (``mechanisms.py``); with none it is the paper's base Hermes."""

    # A protocol's system message (``SessionContext.system_prompt``) replaces Hermes's own.
    takes_system_prompt = True

    def __init__(self, name: str = "hermes", mechanisms: list[str] | None = None) -> None:
        self.name = name
        self.mechanisms = parse_mechanisms(list(mechanisms or []))

    def with_mechanisms(self, mechanisms: list[str]) -> HermesAgent:
        """The same agent with another mechanism set (one config of an ablation run)."""
        return type(self)(name=self.name, mechanisms=mechanisms)

    def run_session(self, ctx: SessionContext) -> AgentResult:
        result = AgentResult(answer="")
        runtime = MechanismRuntime(self.mechanisms, ctx)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": runtime.system_prompt(ctx.system_prompt or HERMES_SYSTEM_PROMPT)}
        ]
        runtime.offer_skills(messages)
        for turn in ctx.user_turns:
            runtime.start_turn(turn)
            self._say(ctx, messages, turn)
            if not self._converse(ctx, runtime, messages, result):
                return result
            note = runtime.send_back(result.answer)
            if note is not None:
                self._say(ctx, messages, note)
                if not self._converse(ctx, runtime, messages, result):
                    return result
        note = runtime.close_note()
        if note is not None:
            answer = result.answer
            self._say(ctx, messages, note)
            if not self._converse(ctx, runtime, messages, result):
                return result
            runtime.closed()
            result.answer = answer  # the close pass keeps memory up to date; it is not the answer
        return result

    @staticmethod
    def _say(ctx: SessionContext, messages: list[dict[str, Any]], text: str) -> None:
        messages.append({"role": "user", "content": text})
        ctx.trace.add("message", session=ctx.session_index, role="user", content=text)

    @staticmethod
    def _converse(
        ctx: SessionContext,
        runtime: MechanismRuntime,
        messages: list[dict[str, Any]],
        result: AgentResult,
    ) -> bool:
        """Model and tools until the model answers (``result.answer``); False when a budget ran out."""
        specs = runtime.specs()
        while True:
            if ctx.clock.agent_s() > ctx.budgets.wall_s:
                result.budget_exceeded = "wall_time"
                return False
            reply = ctx.model.complete(
                messages,
                specs,
                temperature=ctx.budgets.temperature,
                max_tokens=ctx.budgets.max_output_tokens,
            )
            result.add_usage(reply)
            if not reply.tool_calls:
                result.answer = reply.content or ""
                messages.append({"role": "assistant", "content": result.answer})
                ctx.trace.add("message", session=ctx.session_index, role="assistant", content=result.answer)
                return True
            messages.append(reply.as_message())
            for call in reply.tool_calls:
                if len(ctx.tools.calls) >= ctx.budgets.tool_calls:
                    result.budget_exceeded = "tool_calls"
                    return False
                held = runtime.hold(call["name"], call["arguments"])
                if held is not None:
                    messages.append({"role": "tool", "tool_call_id": call["id"], "content": held})
                    continue
                record, output = ctx.run_tool(call["name"], call["arguments"])
                runtime.after_tool(record)
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
