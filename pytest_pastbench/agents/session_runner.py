"""The one loop that drives an agent session, whatever the protocol: the agent gets the user
turns and the session's tool box, and the session comes back as a ``SessionRecord``.

Every protocol builds its own tool box (``tools.SessionToolBox``: PAST's store + world, the
intervention domain's, the stream harness's, the plasticity inventory's) and calls
``run_session``; Hermes, external programs and users' own agents are driven the same way.
"""

from __future__ import annotations

import time

from ..core.records import SessionRecord
from ..core.tools import SessionToolBox
from ..core.trace import TraceRecorder
from ..models.client import ModelClient
from .base import Agent, Budgets, SessionContext


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
    result = agent.run_session(
        SessionContext(
            user_turns=user_turns,
            tools=tools,
            model=model,
            budgets=budgets or Budgets(),
            trace=trace,
            session_index=index,
            stage=stage,
        )
    )
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
        model_calls=result.model_calls,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        cost_usd=result.cost_usd,
        wall_s=round(time.monotonic() - started, 4),
    )
