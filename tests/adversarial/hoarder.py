"""Mech anchor agents: scripts that play one memory strategy each, on any family.

They call the session's tools directly (no model), so they run as fast as the harness and plug in
as any user's agent does: ``--pastbench-agent=tests.adversarial.hoarder:make_hoarder``.

- ``NeverWrites``: searches its (empty) memory and answers from the question alone. Mech must be 0.
- ``Hoarder`` (the silent hoarder): stores every user message it is sent, eval questions included,
  searches before each answer and then answers "Noted." (nothing useful).
- ``PasteAll`` (store-all-and-paste-all): stores every user turn word for word, eval prompts
  included, and answers by pasting every memory hit of its searches.
- ``Oracle``: a test agent that may read its episode (the reference policies may not). Its store
  is exactly the key facts, written once in the first learn session; in an eval session it
  searches for each of them, takes the actions the session's credit checks ask for (a ticket in
  the checked queue) and answers with the values they ask for followed by the retrieved facts, so
  the chain runs perfectly.

None has a rule for any one family: each works on any PAST family file.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_pastbench.agents.base import AgentResult, SessionContext
from pytest_pastbench.protocols.past.mech import canonical, holds
from pytest_pastbench.protocols.past.schema import Episode
from pytest_pastbench.protocols.shared.schema import (
    AnyOfCheck,
    Check,
    ContainsCheck,
    RubricCheck,
    ToolCalledCheck,
    ValueCheck,
    WorldStateCheck,
    is_guard,
)


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


def _hits(output: str) -> list[str]:
    """The note texts of a memory_search result."""
    try:
        value = json.loads(output)
    except json.JSONDecodeError:
        return []
    items = value if isinstance(value, list) else value.get("results", []) if isinstance(value, dict) else []
    return [str(item["text"]) for item in items if isinstance(item, dict) and "text" in item]


class PasteAll:
    """Stores every user turn verbatim and answers by pasting every memory hit.

    Each turn is searched before it is stored, so the paste is what memory held, not the
    question read back."""

    name = "paste-all"
    mechanisms: list[str] = []

    def run_session(self, ctx: SessionContext) -> AgentResult:
        pasted: list[str] = []
        for turn in ctx.user_turns:
            _, output = ctx.run_tool("memory_search", {"query": turn})
            pasted += _hits(output)
            ctx.run_tool("memory_write", {"text": turn})
        return AgentResult(answer="\n".join(dict.fromkeys(pasted)))


def _answer_values(check: Check) -> list[str]:
    """One accepted form of each value a text credit check wants (never a decoy or stale value)."""
    if isinstance(check, ValueCheck):
        return [check.value]
    if isinstance(check, ContainsCheck):
        return list(check.values)
    if isinstance(check, AnyOfCheck):
        for alternative in check.checks:
            values = _answer_values(alternative)
            if values:
                return values
        return []
    if isinstance(check, RubricCheck):
        return [v for c in check.fallback for v in _answer_values(c)]
    return []


Action = tuple[str, dict[str, Any], int]  # tool, arguments, how many records the check wants


def _ruled_out(check: Check) -> list[str]:
    """The values a text credit check fails when asserted (superseded and decoys)."""
    if isinstance(check, ValueCheck):
        return [*check.superseded, *check.decoys]
    if isinstance(check, AnyOfCheck):
        return [v for c in check.checks for v in _ruled_out(c)]
    if isinstance(check, RubricCheck):
        return [v for c in check.fallback for v in _ruled_out(c)]
    return []


def _actions(check: Check) -> list[Action]:
    """The world calls a credit check wants (a ticket in a queue, a note written), with the
    number of matching records it counts (``min_count``: two tickets, one per case)."""
    if isinstance(check, ToolCalledCheck):
        required = {"title": "Follow-up"} if check.tool == "tickets_create" else {}
        return [(check.tool, {**required, **{k: str(v) for k, v in check.args.items()}}, 1)]
    if isinstance(check, WorldStateCheck) and check.min_count > 0:
        fields = {k: str(v) for k, v in check.match.items()}
        n = check.min_count
        if check.service == "tickets":
            return [("tickets_create", {"title": fields.get("title", "Follow-up"), **fields}, n)]
        if check.service == "notes":
            note = {"title": fields.get("title", "Note"), "body": fields.get("body", "")}
            return [("notes_write", note, n)]
        if check.service == "deploys":
            return [("deploys_create", fields, n)]
    if isinstance(check, AnyOfCheck):
        return _actions(check.checks[0])
    if isinstance(check, RubricCheck):
        return [a for c in check.fallback for a in _actions(c)]
    return []


def _merged(actions: list[Action]) -> list[tuple[str, dict[str, Any]]]:
    """Calls of one tool merged into one when their arguments agree (one ticket, several checks),
    made as many times as the most demanding of those checks counts."""
    merged: list[Action] = []
    for tool, args, count in actions:
        for i, (other, known, times) in enumerate(merged):
            if other == tool and all(known.get(k, v) == v for k, v in args.items() if k != "title"):
                merged[i] = (tool, {**args, **known}, max(times, count))
                break
        else:
            merged.append((tool, args, count))
    return [(tool, args) for tool, args, count in merged for _ in range(count)]


class Oracle:
    """The store holds exactly the key facts; eval sessions retrieve them and do what the checks ask."""

    name = "oracle"
    mechanisms: list[str] = []

    def __init__(self, episode: Episode) -> None:
        self.episode = episode
        self.written = False

    def run_session(self, ctx: SessionContext) -> AgentResult:
        session = self.episode.sessions[ctx.session_index]
        if session.stage == "learn":
            if not self.written:  # each key fact once, in the first learn session
                for fact in self.episode.evidence.key_facts:
                    ctx.run_tool("memory_write", {"text": fact.text})
                self.written = True
            return AgentResult(answer="Done.")
        if session.stage == "distractor":
            return AgentResult(answer="Done.")
        for fact in self.episode.evidence.key_facts:
            ctx.run_tool("memory_search", {"query": fact.text})
        credit = [c for c in session.checks if not is_guard(c)]
        for tool, args in _merged([a for c in credit for a in _actions(c)]):
            ctx.run_tool(tool, args)
        values = list(dict.fromkeys(v for c in credit for v in _answer_values(c)))
        # What the checks ask for, then the retrieved facts themselves (a pattern check, "pause
        # ... before ... dedupe", is met by the fact as stored) — less a fact the session's present
        # has replaced (its value is the check's superseded one): used, the note is weighed against
        # the present, not pasted as current beside it.
        ruled_out = [v for c in credit for v in _ruled_out(c)]
        facts = [
            f.text
            for f in self.episode.evidence.key_facts
            if not any(holds(canonical(f.text), v) for v in ruled_out)
        ]
        return AgentResult(answer="\n".join(["; ".join(values) + "." if values else "", *facts]).strip())


def make_never_writes() -> NeverWrites:
    return NeverWrites()


def make_hoarder() -> Hoarder:
    return Hoarder()


def make_paste_all() -> PasteAll:
    return PasteAll()
