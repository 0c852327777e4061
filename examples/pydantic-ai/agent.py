#!/usr/bin/env python3
"""A pydantic-ai agent for pytest-pastbench, unchanged: OpenAI chat model, tools from MCP.

The harness's gateway serves chat completions (``session_start.model``) and the session's tool
box as an MCP server (``session_start.mcp``); pydantic-ai's agent loop does the rest. Only user
turns and answers travel over pastbench-agent/1.

    python -m venv .venv-pydantic-ai
    .venv-pydantic-ai/bin/pip install -r examples/pydantic-ai/requirements.txt
    pytest families/memory -n 2 --pastbench-agent-label=pydantic-ai \\
        --pastbench-agent="subprocess:.venv-pydantic-ai/bin/python examples/pydantic-ai/agent.py"
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

INSTRUCTIONS = (
    "You are a work assistant. Each conversation starts empty: you remember earlier sessions only "
    "through the memory_* and skill_* tools. Search memory before answering anything that may depend "
    "on earlier work; save what a later session will need. Never store or repeat secrets."
)


async def receive() -> dict[str, Any]:
    line = await asyncio.to_thread(sys.stdin.readline)
    if not line:
        raise SystemExit("the harness closed the channel")
    return json.loads(line)


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


async def main() -> int:
    start = await receive()
    model, budgets = start["model"], start["budgets"]
    chat = OpenAIChatModel(
        model["name"], provider=OpenAIProvider(base_url=model["base_url"], api_key=model["api_key"])
    )
    tools = MCPToolset(start["mcp"]["url"], auth=model["api_key"])  # the session token
    agent = Agent(
        chat,
        instructions=INSTRUCTIONS,
        toolsets=[tools],
        model_settings={"temperature": budgets["temperature"], "max_tokens": budgets["max_output_tokens"]},
    )
    history: list[Any] = []
    async with agent:
        while (incoming := await receive())["type"] != "session_end":
            result = await agent.run(incoming["content"], message_history=history)
            history = result.all_messages()
            send({"type": "answer", "content": str(result.output)})
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
