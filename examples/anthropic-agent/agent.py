#!/usr/bin/env python3
"""An Anthropic-SDK agent for pytest-pastbench: streamed Messages API calls with tools.

The harness's gateway serves the Anthropic Messages API (``ANTHROPIC_BASE_URL``,
``ANTHROPIC_API_KEY``); the agent streams each answer (``messages.stream``), runs the model's
``tool_use`` blocks through the harness (pastbench-agent/1 ``tool_call``) and answers the user.

    python -m venv .venv-anthropic
    .venv-anthropic/bin/pip install -r examples/anthropic-agent/requirements.txt
    pytest families/memory -n 2 --pastbench-agent-label=anthropic-sdk \\
        --pastbench-agent="subprocess:.venv-anthropic/bin/python examples/anthropic-agent/agent.py"
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anthropic

SYSTEM = (
    "You are a work assistant. Each conversation starts empty: you remember earlier sessions only "
    "through the memory_* and skill_* tools. Search memory before answering anything that may depend "
    "on earlier work; save what a later session will need. Never store or repeat secrets."
)


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive() -> dict[str, Any]:
    line = sys.stdin.readline()
    if not line:
        raise SystemExit("the harness closed the channel")
    return json.loads(line)


def main() -> int:
    start = receive()
    client = anthropic.Anthropic()  # ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY: the session's gateway
    budgets = start["budgets"]
    tools = [
        {"name": f["name"], "description": f.get("description", ""), "input_schema": f["parameters"]}
        for f in (spec["function"] for spec in start["tools"])
    ]
    messages: list[dict[str, Any]] = []
    while (incoming := receive())["type"] != "session_end":
        messages.append({"role": "user", "content": incoming["content"]})
        while True:
            with client.messages.stream(
                model=start["model"]["name"],
                max_tokens=budgets["max_output_tokens"],
                system=SYSTEM,
                messages=messages,
                tools=tools,
            ) as stream:
                reply = stream.get_final_message()
            messages.append(
                {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]}
            )
            uses = [block for block in reply.content if block.type == "tool_use"]
            if not uses:
                send(
                    {"type": "answer", "content": "".join(b.text for b in reply.content if b.type == "text")}
                )
                break
            results = []
            for use in uses:
                send({"type": "tool_call", "id": use.id, "name": use.name, "arguments": use.input})
                result = receive()
                results.append({"type": "tool_result", "tool_use_id": use.id, "content": result["content"]})
            messages.append({"role": "user", "content": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
