"""The acting agent of ServeLearnBench over the project's ``ModelClient``: one completion per turn.

Their protocol puts the loop in the harness (the engine), not in the agent, so this adapter only
turns a model reply into a ``Turn`` and counts tokens and cost. Porting note: once the project's
one session runner exists (issue 19), the engine's ``Agent.turn`` maps onto one step of it.
"""

from __future__ import annotations

from typing import Any

from pytest_pastbench.models.client import ModelClient

from .engine import ToolCall, Turn


class ModelAgent:
    def __init__(self, client: ModelClient) -> None:
        self.client = client
        self.tokens = 0
        self.cost_usd: float | None = 0.0

    def turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Turn:
        reply = self.client.complete(messages, tools, temperature=0.0)
        self.tokens += reply.prompt_tokens + reply.completion_tokens
        self.cost_usd = (
            None if self.cost_usd is None or reply.cost_usd is None else self.cost_usd + reply.cost_usd
        )
        calls = tuple(
            ToolCall(
                id=str(c.get("id", "")), name=str(c.get("name", "")), arguments=str(c.get("arguments") or "")
            )
            for c in reply.tool_calls
        )
        return Turn(text=reply.content or "", calls=calls, output_tokens=reply.completion_tokens)
