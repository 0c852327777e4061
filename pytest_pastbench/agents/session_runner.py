"""The one loop that drives an agent session, whatever the protocol: the agent gets the user
turns and the session's tool box, and the session comes back as a ``SessionRecord``.

Every protocol builds its own tool box (``tools.SessionToolBox``: PAST's store + world, the
intervention domain's, the stream harness's, the plasticity inventory's) and calls
``run_session``; Hermes, external programs and users' own agents are driven the same way.
"""

from __future__ import annotations

import time
from typing import Any

from ..core.records import SessionRecord, ToolCall
from ..core.tools import SessionToolBox, result_value
from ..core.trace import TraceRecorder
from ..errors import WallBackstop
from ..models.client import ModelClient, ModelReply
from .base import Agent, AgentResult, Budgets, SessionClock, SessionContext


class MeteredModel:
    """The session's model client as the agent gets it: every call through it is counted here,
    so tokens and cost reach the report whether or not the agent calls ``result.add_usage``
    (a Python factory agent written from the docs did not, and its items showed 0 tokens)."""

    def __init__(self, model: ModelClient, clock: SessionClock | None = None) -> None:
        self.metered = model  # the run's client (external agents reach its gateway through it)
        self.model = getattr(model, "model", "")  # the protocol's field; a test double may lack it
        self.usage = AgentResult(answer="")
        self.clock = clock or SessionClock()

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **params: Any
    ) -> ModelReply:
        reply = self.metered.complete(messages, tools, **params)
        self.usage.add_usage(reply)
        self.clock.waited_s += reply.waited_s  # the harness's wait, not the agent's time
        return reply

    def __getattr__(self, name: str) -> Any:  # the rest of a client (a judge's, a gateway's) as is
        return getattr(self.metered, name)


def run_session(
    agent: Agent,
    model: ModelClient,
    tools: SessionToolBox,
    user_turns: list[str],
    *,
    index: int = 0,
    stage: str = "",
    budgets: Budgets | None = None,
    trace: TraceRecorder | None = None,
    system_prompt: str | None = None,
) -> SessionRecord:
    """Run session ``index`` of ``agent`` over ``tools``; what it answered, called, read and wrote."""
    trace = trace if trace is not None else TraceRecorder()
    store = tools.store
    if store is not None:
        store.session = index  # what the session writes carries its index (Mech, propagation)
    first_access = len(store.access_log) if store is not None else 0
    clock = tools.clock
    trace.add("session", session=index, stage=stage, **({"now": clock} if clock is not None else {}))
    started = time.monotonic()
    first_event = len(trace.events)
    budgets = budgets or Budgets()
    own_time = SessionClock(budgets.clock)
    metered = MeteredModel(model, own_time)
    result = agent.run_session(
        SessionContext(
            user_turns=user_turns,
            tools=tools,
            model=metered,
            budgets=budgets,
            trace=trace,
            session_index=index,
            stage=stage,
            clock=own_time,
            system_prompt=system_prompt,
        )
    )
    if result.budget_exceeded == "wall_time":
        raise WallBackstop(
            f"session {index} passed the wall-clock backstop (--pastbench-session-timeout="
            f"{budgets.wall_s:g} s; {own_time.agent_s():.0f} s of its own, {own_time.waited_s:.0f} s more "
            "waiting on the harness): wall time moves with the machine's load, so it is not scored"
        )
    _trace_what_the_agent_did_not(trace, first_event, index, user_turns, tools.calls, result.answer)
    # Calls through the harness's client are counted by it; an external program's come from the
    # gateway, through the agent's own result.
    usage = metered.usage if metered.usage.model_calls else result
    return SessionRecord(
        index=index,
        stage=stage,
        now=clock or "",
        answer=result.answer,
        question=user_turns[-1] if user_turns else "",
        tool_calls=tools.calls,
        store_accesses=store.access_log[first_access:] if store is not None else [],
        store_after=store.snapshot() if store is not None else [],
        world_after=tools.snapshot(),
        budget_exceeded=result.budget_exceeded,
        agent_error=result.error,
        model_calls=usage.model_calls,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        cost_usd=usage.cost_usd,
        wall_s=round(time.monotonic() - started, 4),
    )


def _trace_what_the_agent_did_not(
    trace: TraceRecorder, first: int, index: int, user_turns: list[str], calls: list[ToolCall], answer: str
) -> None:
    """The harness saw the session's turns, tool calls and answer; an agent that traced none of
    them itself (it called ``ctx.tools.call``, not ``ctx.run_tool``) still gets a full trace."""
    events = trace.events[first:]
    traced_calls = sum(1 for e in events if e.get("kind") == "tool_call")
    if not any(e.get("kind") == "message" for e in events):
        for turn in user_turns:
            trace.add("message", session=index, role="user", content=turn)
    for call in calls[traced_calls:] if traced_calls < len(calls) else []:
        trace.add(
            "tool_call",
            session=index,
            name=call.name,
            arguments=call.arguments,
            ok=call.ok,
            result=result_value(call),
        )
    if not any(e.get("kind") == "message" and e.get("role") == "assistant" for e in events):
        trace.add("message", session=index, role="assistant", content=answer)
