"""Mech-side adversaries: agents that game write → retrieve → reuse, and what Mech must give them.

They call the session's tools directly (no model), so they run as fast as the harness and plug in
as any user's agent does: ``--pastbench-agent=tests.adversarial.hoarder:make_hoarder``.

- ``NeverWrites``: searches its (empty) memory and answers from the question alone. Mech must be 0.
- ``Hoarder``: stores every user message it is sent, eval questions included, searches before
  each answer and then answers "Noted." (nothing useful). Overall Mech must stay ≤ 0.4.
"""

from __future__ import annotations

from pytest_pastbench.agents.base import AgentResult, SessionContext


class NeverWrites:
    name = "never-writes"
    mechanisms: list[str] = []

    def run_session(self, ctx: SessionContext) -> AgentResult:
        for turn in ctx.user_turns:
            ctx.run_tool("memory_search", {"query": turn})
        return AgentResult(answer=f"From what you said: {ctx.user_turns[-1]}")


class Hoarder:
    name = "hoarder"
    mechanisms: list[str] = []

    def run_session(self, ctx: SessionContext) -> AgentResult:
        for turn in ctx.user_turns:
            ctx.run_tool("memory_write", {"text": turn})
            ctx.run_tool("memory_search", {"query": turn})
        return AgentResult(answer="Noted.")


def make_never_writes() -> NeverWrites:
    return NeverWrites()


def make_hoarder() -> Hoarder:
    return Hoarder()
