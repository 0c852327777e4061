"""A stand-in for *your* agent framework, adapted to the pytest-pastbench Agent protocol.

The adapter is all a framework needs: take the session's user turns, let the framework run its
own loop against ``ctx.tools`` (store + world) and ``ctx.model`` (the harness's model client, so
tokens and cost are counted), and return the final answer.
"""

from __future__ import annotations

import json

from pytest_pastbench import AgentResult, SessionContext

SYSTEM = (
    "You are NoteTaker. Look up your memory before answering, save durable facts you learn, "
    "and never store secrets."
)


class NoteTakerAgent:
    name = "notetaker"
    mechanisms: list[str] = []

    def run_session(self, ctx: SessionContext) -> AgentResult:
        result = AgentResult(answer="")
        messages = [{"role": "system", "content": SYSTEM}]
        for turn in ctx.user_turns:
            messages.append({"role": "user", "content": turn})
            for _ in range(ctx.budgets.tool_calls):
                reply = ctx.model.complete(messages, ctx.tools.specs(), temperature=0)
                result.add_usage(reply)  # tokens and cost land in the report
                if not reply.tool_calls:
                    result.answer = reply.content or ""
                    messages.append({"role": "assistant", "content": result.answer})
                    break
                messages.append(reply.as_message())
                for call in reply.tool_calls:
                    done = ctx.tools.call(call["name"], call["arguments"])
                    output = json.dumps(done.result if done.ok else {"error": done.error})
                    messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
        return result


def make_agent() -> NoteTakerAgent:
    return NoteTakerAgent()
