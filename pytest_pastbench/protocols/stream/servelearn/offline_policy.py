"""The offline ``pastbench/<policy>`` models on a ServeLearnBench session: they follow the published
turn rules (one tool call per turn, ``finish`` to end) so an offline run serves every task in
one or two turns instead of spinning to the turn budget.

They see only the conversation and the tools. What they can act on without a language model:

- a ``finish`` whose required arguments are text (Pitch's ``pitch``) is written from the list
  items of the request (the product sheet's facts), filtered by the rules in view: a fact that a
  line of the instructions names without a negation is said, one named on a line with a negation
  ("dislike", "not", "avoid", ...) is left out. With no such line (Blind), every fact is said. A
  quoted tool call (a RAG case's ``action: finish({...})``) is a record, not a rule: skipped.
  So the Oracle bulletin changes what is submitted, as it does for a model;
- every other ``finish`` is submitted with no arguments. A free-text bulletin of Retail or Banking
  ("orders paid with a split payment can NOT be modified") names conditions on records the agent
  would have to look up and match; no rule in here could follow it without being fitted to the
  published wording, so the offline policies do not try (``collect`` reports the replay oracle
  for those scenarios on an offline model instead of their scores).

Nothing is learned: after ``finish`` (the score line, under ``own``) the reply is text and ends
the turn. Every policy (blind, recall, curator) answers the same here.
"""

from __future__ import annotations

import re
from typing import Any

FINISH = "finish"
FINISH_ACK = '{"accepted": true}'
# Generic English negation: a rule line with one of these tells the agent to keep a thing out.
_NEGATION = re.compile(r"\b(?:not|no|never|avoid|avoids|dislike|dislikes|don't|without)\b", re.I)
_ITEM = re.compile(r"^\s*[-*•]\s+(.+?)\s*$")


def _function(tool: dict[str, Any]) -> dict[str, Any]:
    return tool.get("function") or tool


def is_published_conversation(tools: list[dict[str, Any]]) -> bool:
    """A session under the published turn rules: its tools end the episode with ``finish``."""
    return any(_function(t).get("name") == FINISH for t in tools)


def decide(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    """The next assistant message (``{"content"}`` or ``{"tool_calls"}``), one call per turn."""
    if any(m.get("role") == "tool" and m.get("content") == FINISH_ACK for m in messages):
        return {"content": "OK"}  # the episode is over (a score line may follow): nothing to learn offline
    spec = next(_function(t) for t in tools if _function(t).get("name") == FINISH)
    return {"tool_calls": [(FINISH, finish_arguments(spec, messages))]}


def finish_arguments(spec: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The required text arguments written from the request and the rules in view; none else."""
    params = spec.get("parameters") or {}
    props: dict[str, Any] = params.get("properties") or {}
    texts = [k for k in params.get("required") or [] if (props.get(k) or {}).get("type") == "string"]
    if not texts:
        return {}
    request = _request(messages)
    return {key: compose(request, _instructions(messages)) for key in texts}


def compose(request: str, instructions: str) -> str:
    """The request's list items that the rules want said (all of them when no rule names any),
    never one a rule says to keep out; one sentence each."""
    items = [m.group(1) for m in map(_ITEM.match, request.splitlines()) if m]
    if not items:
        return request.strip().splitlines()[-1] if request.strip() else "Done."
    # A rule is a line of the instructions that is neither one of the request's own items nor a
    # quoted tool call (a retrieved record's ``action: finish({...})`` is what was done, not a rule).
    rule_lines = [
        line
        for line in instructions.splitlines()
        if line.strip() and '{"' not in line and _ITEM.sub(r"\1", line).strip() not in items
    ]
    wanted, avoided = [], []
    for item in items:
        naming = [line for line in rule_lines if item.casefold() in line.casefold()]
        if any(_NEGATION.search(line) for line in naming):
            avoided.append(item)
        elif naming:
            wanted.append(item)
    chosen = wanted or [item for item in items if item not in avoided] or items[:1]
    return " ".join(f"{item[:1].upper()}{item[1:].rstrip('.')}." for item in chosen)


def _request(messages: list[dict[str, Any]]) -> str:
    """The first user message: the task's instruction (after the system text, when it is there)."""
    return next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")


def _instructions(messages: list[dict[str, Any]]) -> str:
    """What the agent was told before acting: the system messages and the first user message."""
    system = [str(m.get("content") or "") for m in messages if m.get("role") == "system"]
    return "\n".join([*system, _request(messages)])
