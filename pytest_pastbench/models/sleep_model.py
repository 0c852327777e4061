"""``pastbench/sleep``: an offline model that only waits, so that a benchmark measures the harness.

Served by the ``pastbench/`` provider like the reference policies (with ``?latency_ms=N`` it sleeps
N ms per call), but it reads nothing of the conversation beyond where the current turn starts:
each turn it makes one memory search (``memory_search`` when offered, else the first offered tool
named ``*search`` that takes a ``query``), as a real model would before answering, then gives a
fixed answer. Its own CPU per call is a scan of the messages, so what a run spends beyond the
latency is the harness's (client, trace, tool box, store, scoring, gateway). Its scores mean
nothing: it never uses what it finds.
"""

from __future__ import annotations

from typing import Any

NAME = "sleep"
ANSWER = "I searched my memory for this request and have nothing further to add."
_QUERY_WORDS = 12  # a short query, as a model writes one, not the whole request


def reply(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"tool_calls": [("<search tool>", {"query": ...})]}`` when the current turn (everything
    after the last user message, a runtime message included) has no tool result yet, else
    ``{"content": ANSWER}``, in the shape of ``OfflinePolicy.decide``."""
    for message in reversed(messages):
        role = message.get("role")
        if role == "tool":
            return {"content": ANSWER}
        if role == "user":
            search = _search_tool(tools)
            if search is None:
                return {"content": ANSWER}
            words = str(message.get("content") or "").split()[:_QUERY_WORDS]
            return {"tool_calls": [(search, {"query": " ".join(words) or "notes"})]}
    return {"content": ANSWER}


def _search_tool(tools: list[dict[str, Any]]) -> str | None:
    found = None
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict):
            continue
        name = str(function.get("name") or "")
        properties = (function.get("parameters") or {}).get("properties") or {}
        if name.endswith("search") and "query" in properties:
            if name == "memory_search":
                return name
            found = found or name
    return found
