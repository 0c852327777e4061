"""What every protocol's offline reference policy builds on (``pastbench/blind``, ``recall``,
``curator``): the three policies, the turn as read from the conversation (the user's request,
the tool results so far, Hermes' runtime signals) and the replay of a fixed plan over those
results, so that a policy is a pure function of the messages.

Each protocol's ``offline_policy.py`` writes its own plan on these; nothing here knows a protocol.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pytest_pastbench.agents.mechanisms import E1_HELD, E3_OFFER, E4_SEND_BACK, E5_CLOSE, RUNTIME_PREFIX


@dataclass(frozen=True)
class Policy:
    name: str
    uses_store: bool
    curates: bool


POLICIES: dict[str, Policy] = {
    "blind": Policy("blind", uses_store=False, curates=False),
    "recall": Policy("recall", uses_store=True, curates=False),
    "curator": Policy("curator", uses_store=True, curates=True),
}


@dataclass
class Turn:
    """What the policy reads from the conversation: the user's request and the runtime's signals."""

    user_text: str
    done: list[tuple[str, Any]]
    session_user_texts: list[str]
    gated: bool = False  # E4 sent the draft back
    closing: bool = False  # E5 close pass
    draft: str = ""
    offered_skills: list[dict[str, Any]] | None = None  # E3


@dataclass(frozen=True)
class OfferedTools:
    names: frozenset[str]
    params: dict[str, frozenset[str]]

    def accepts(self, tool: str, param: str) -> bool:
        return param in self.params.get(tool, frozenset())


def offered_tools(tools: Any) -> OfferedTools:
    """Tool names and parameter names from the request's tool list (or a bare set of names)."""
    if isinstance(tools, set | frozenset):
        return OfferedTools(frozenset(tools), {})
    params: dict[str, frozenset[str]] = {}
    for tool in tools or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            properties = (function.get("parameters") or {}).get("properties") or {}
            params[function["name"]] = frozenset(properties)
    return OfferedTools(frozenset(params), params)


class Emit(Exception):
    """Control flow: the plan needs tool calls that have not run yet."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        self.calls = calls


class Replay:
    """Feeds a plan the results of calls already made in this turn, in order."""

    def __init__(self, done: list[tuple[str, Any]], tools: set[str]) -> None:
        self.done = done
        self.cursor = 0
        self.tools = tools

    def has(self, name: str) -> bool:
        return name in self.tools

    def call(self, name: str, args: dict[str, Any]) -> Any:
        """The tool's result, or None when the session does not offer that tool."""
        results = self.batch([(name, args)])
        return results[0] if results else None

    def batch(self, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
        calls = [c for c in calls if c[0] in self.tools]
        if not calls:
            return []
        if self.cursor + len(calls) <= len(self.done):
            results = [result for _, result in self.done[self.cursor : self.cursor + len(calls)]]
            self.cursor += len(calls)
            return results
        raise Emit(calls[len(self.done) - self.cursor :] if self.cursor < len(self.done) else calls)


def runtime_reply(turn: Turn) -> str | None:
    """The reply of a policy that does nothing more for Hermes' E4 and E5 (the stream,
    intervention and plasticity policies): a sent-back draft stands as it was, a close pass
    writes nothing. None: an ordinary turn."""
    if turn.closing:
        return "DONE"
    return turn.draft if turn.gated else None


def _is_runtime(message: dict[str, Any]) -> bool:
    return str(message.get("content") or "").startswith(RUNTIME_PREFIX)


def current_turn(messages: list[dict[str, Any]]) -> Turn:
    users = [i for i, m in enumerate(messages) if m.get("role") == "user" and not _is_runtime(m)]
    last_user = users[-1] if users else -1
    turn = Turn(
        user_text=str(messages[last_user].get("content") or "") if users else "",
        done=[],
        session_user_texts=[str(messages[i].get("content") or "") for i in users],
    )
    start = last_user
    for index, message in enumerate(messages):
        content = str(message.get("content") or "")
        if message.get("role") == "system" and content.startswith(E3_OFFER):
            turn.offered_skills = note_entries(_parse(content.partition("\n")[2]))
        if index <= last_user or message.get("role") != "user":
            continue
        if content.startswith(E4_SEND_BACK):
            turn.gated, start = True, index
            turn.draft = next(
                (
                    str(m.get("content") or "")
                    for m in reversed(messages[:index])
                    if m.get("role") == "assistant"
                ),
                "",
            )
        elif content.startswith(E5_CLOSE):
            turn.closing, start = True, index
    turn.done = _calls_after(messages, start)
    return turn


def _calls_after(messages: list[dict[str, Any]], start: int) -> list[tuple[str, Any]]:
    """(tool name, parsed result) of the calls made after ``messages[start]``, in order."""
    results_by_id: dict[str, Any] = {}
    order: list[tuple[str, str]] = []
    for message in messages[start + 1 :]:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                function = call["function"] if isinstance(call, dict) else call.function
                name = function["name"] if isinstance(function, dict) else function.name
                call_id = call["id"] if isinstance(call, dict) else call.id
                order.append((call_id, name))
        elif message.get("role") == "tool":
            results_by_id[message.get("tool_call_id", "")] = _parse(message.get("content"))
    return [(name, results_by_id.get(call_id)) for call_id, name in order]


def _parse(content: Any) -> Any:
    try:
        return json.loads(content) if isinstance(content, str) else content
    except json.JSONDecodeError:
        return content


def note_entries(result: Any) -> list[dict[str, Any]]:
    return [r for r in result if isinstance(r, dict) and "text" in r] if isinstance(result, list) else []


def is_held(result: Any) -> bool:
    """Was the call held by E1 (not run yet, stored notes shown)?"""
    return isinstance(result, dict) and result.get("held") == E1_HELD
