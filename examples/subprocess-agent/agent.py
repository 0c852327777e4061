#!/usr/bin/env python3
"""A complete external agent for pytest-pastbench, standard library only.

It speaks pastbench-agent/1 on stdin/stdout (JSON lines) and calls the model itself through the
harness's OpenAI-compatible gateway: POST {base_url}/chat/completions with the session token.
The loop is the usual tool-calling one: ask the model; run each tool call it asks for through the
harness (tool_call -> tool_result); answer the user when the model stops calling tools.

Run it with the plugin (from the repository root):

    pytest families --pastbench-agent=examples/subprocess-agent/agent.yaml
"""

from __future__ import annotations

import json
import sys
import urllib.request
from typing import Any

SYSTEM_PROMPT = (
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


def chat(start: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """One model call through the gateway; returns the assistant message."""
    model, budgets = start["model"], start["budgets"]
    body = {
        "model": model["name"],
        "messages": messages,
        "tools": start["tools"],
        "temperature": budgets["temperature"],
        "max_tokens": budgets["max_output_tokens"],
    }
    request = urllib.request.Request(
        model["base_url"].rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {model['api_key']}"},
    )
    with urllib.request.urlopen(request, timeout=budgets["wall_s"]) as response:
        return json.loads(response.read())["choices"][0]["message"]


def main() -> int:
    start = receive()
    if start.get("type") != "session_start" or start.get("protocol") != "pastbench-agent/1":
        print(f"unsupported first message: {start.get('type')} {start.get('protocol')}", file=sys.stderr)
        return 2
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT}]
    while True:
        incoming = receive()
        if incoming["type"] == "session_end":
            return 0
        messages.append({"role": "user", "content": incoming["content"]})
        while True:
            reply = chat(start, messages)
            calls = reply.get("tool_calls") or []
            if not calls:
                messages.append({"role": "assistant", "content": reply.get("content")})
                send({"type": "answer", "content": reply.get("content") or ""})
                break
            messages.append({"role": "assistant", "content": reply.get("content"), "tool_calls": calls})
            for call in calls:
                function = call["function"]
                send(
                    {
                        "type": "tool_call",
                        "id": call["id"],
                        "name": function["name"],
                        "arguments": function["arguments"],
                    }
                )
                result = receive()
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": result["content"]})


if __name__ == "__main__":
    sys.exit(main())
