#!/usr/bin/env python3
"""An OpenAI Agents SDK agent for pytest-pastbench, unchanged: default Responses API, tools over MCP.

The harness's gateway serves the Responses API (``OPENAI_BASE_URL``) and the session's tool box
as an MCP server (``session_start.mcp``); the SDK's own agent loop does the rest. Only user turns
and answers travel over pastbench-agent/1 (JSON lines on stdin/stdout).

    python -m venv .venv-agents && .venv-agents/bin/pip install -r examples/openai-agents/requirements.txt
    pytest families/memory -n 2 --pastbench-agent-label=openai-agents \\
        --pastbench-agent="subprocess:.venv-agents/bin/python examples/openai-agents/agent.py"
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from agents.mcp import MCPServerStreamableHttp
from openai import AsyncOpenAI

from agents import Agent, ModelSettings, OpenAIResponsesModel, Runner, set_tracing_disabled

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
    model, budgets, mcp = start["model"], start["budgets"], start["mcp"]
    client = AsyncOpenAI(base_url=model["base_url"], api_key=model["api_key"])
    set_tracing_disabled(True)  # traces would go to OpenAI's servers
    tools = MCPServerStreamableHttp(
        params={"url": mcp["url"], "headers": mcp["headers"]}, cache_tools_list=True, name="pastbench"
    )
    async with tools:
        agent = Agent(
            name="pastbench-agent",
            instructions=INSTRUCTIONS,
            # The SDK's default model class, given the name as is ("pastbench/recall" would be
            # read as a provider prefix by the SDK's model-name lookup).
            model=OpenAIResponsesModel(model=model["name"], openai_client=client),
            mcp_servers=[tools],
            model_settings=ModelSettings(
                temperature=budgets["temperature"], max_tokens=budgets["max_output_tokens"]
            ),
        )
        history: list[Any] = []
        while (incoming := await receive())["type"] != "session_end":
            result = await Runner.run(
                agent,
                [*history, {"role": "user", "content": incoming["content"]}],
                max_turns=budgets["tool_calls"],
            )
            history = result.to_input_list()
            send({"type": "answer", "content": str(result.final_output or "")})
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
