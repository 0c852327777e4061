"""Hermes' five runtime mechanisms (docs/design.md §6), each switched on by name, each independent.

- E1 plan: before an irreversible world action the runtime looks the action up in the store and,
  when something stored may apply, holds the call once and shows the model what it found.
- E2 render: structured memory tools (entity, scope, expiry, supersedes / superseded_by); reads
  hide dead entries (superseded or expired: ``StoreEntry.is_live``, the same rule Mech uses).
- E3 route: skills matching the task are offered at session start; procedures are to be saved
  as skills with tags saying when they apply.
- E4 gate: a draft answer given without any store read, on a task the store holds history about,
  is sent back once for retrieval.
- E5 close: an end-of-session pass in which the model writes corrected facts and retires the
  entries they supersede.

Every intervention is a ``mechanism`` trace event saying what was injected, held, sent back or
written. Runtime messages to the model start with ``RUNTIME_PREFIX`` so a reader (or an offline
reference model) can tell them from the user's words.

The mechanisms know nothing of protocols: they act on what a session's tool box declares (its
memory tools, whether its store is writable and kept for later sessions, which of its tools are
irreversible). A switched-on mechanism that cannot act on a tool box is left off for the session
with a ``cannot_apply`` event that says why (``cannot_apply()``); ``mechanism_use`` tallies an
item's events for the ablation tables.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..core.store import MAX_QUERY_CHARS
from ..core.tools import STORE_READS, STORE_TOOLS
from ..errors import MechanismError

if TYPE_CHECKING:
    from ..core.records import ToolCall
    from ..core.tools import SessionToolBox
    from .base import SessionContext

MECHANISMS: dict[str, str] = {"E1": "plan", "E2": "render", "E3": "route", "E4": "gate", "E5": "close"}
RUNTIME_PREFIX = "[Hermes runtime]"
E1_HELD = "E1 plan"
E3_OFFER = f"{RUNTIME_PREFIX} E3 route: saved skills that match this task"
E4_SEND_BACK = f"{RUNTIME_PREFIX} E4 gate:"
E5_CLOSE = f"{RUNTIME_PREFIX} E5 close:"
_OFFERED_SKILLS = 3
# The event action that says a mechanism acted in a session (what ``mechanism_use`` counts).
ACTED = {"E1": "held", "E2": "hid", "E3": "injected", "E4": "sent_back", "E5": "wrote"}

SYSTEM_ADDENDA: dict[str, str] = {
    "E1": "Plan (E1): before an irreversible action ({irreversible}) the runtime "
    "shows you stored notes and skills that may apply; re-issue the call only if it still fits them.",
    "E2": "Structured memory (E2): give notes an entity, a scope and, for time-bound facts, an "
    "expiry; when a note corrects an older one, write it with supersedes=<old id>. Searches show "
    "live notes only.",
    "E3": "Skills (E3): when the user walks you through a multi-step procedure, save it with "
    "skill_write and tags saying when it applies; skills matching a task are offered at the start.",
    "E4": "Gate (E4): answering a request that depends on earlier work without searching memory "
    "gets your draft sent back once.",
    "E5": "Close (E5): when the session ends you will be asked to record corrected facts and "
    "retire the notes they replace.",
}


def parse_mechanisms(value: str | list[str] | None) -> list[str]:
    """``"E1,E5"`` / ``"all"`` / ``"none"`` (or a list of names) -> sorted names, no repeats."""
    parts = value if isinstance(value, list) else str(value or "").split(",")
    names = [str(p).strip().upper() for p in parts if str(p).strip()]
    if names in (["ALL"], ["NONE"]):
        return sorted(MECHANISMS) if names == ["ALL"] else []
    unknown = [n for n in names if n not in MECHANISMS]
    if unknown:
        choices = ", ".join(f"{k} ({v})" for k, v in MECHANISMS.items())
        raise MechanismError(f"unknown mechanism(s) {', '.join(unknown)}; choose from {choices}, all or none")
    return sorted(set(names))


def mechanism_set_label(mechanisms: list[str]) -> str:
    """Short id of a set: ``base``, ``E1``, ``E1+E5``, ``all``."""
    if not mechanisms:
        return "base"
    return "all" if sorted(mechanisms) == sorted(MECHANISMS) else "+".join(sorted(mechanisms))


def ablation_sets() -> list[list[str]]:
    """The paper's ablation: base, each mechanism alone, all five."""
    return [[], *([name] for name in MECHANISMS), sorted(MECHANISMS)]


def cannot_apply(name: str, tools: SessionToolBox) -> str | None:
    """Why mechanism ``name`` cannot act on this session's tool box, or None when it can: read
    from what the tool box declares, never from which protocol built it."""
    memory = tools.memory
    if memory is None:
        return "the session offers no memory or skill tools"
    # A tool box written before ``irreversible`` was part of the interface declares none.
    if name == "E1" and not getattr(tools, "irreversible", None):
        return "no tool of the session is declared irreversible"
    if name in ("E2", "E5") and not memory.writable:
        what = "nothing is written, superseded or given an expiry" if name == "E2" else "nothing to write"
        return f"the session's memory is read-only ({what})"
    if name == "E5" and not memory.persists:
        return "what the session writes is discarded when it ends (no later session sees it)"
    return None


class MechanismRuntime:
    """The mechanisms of one session: the agent loop calls it at its five decision points."""

    def __init__(self, enabled: list[str], ctx: SessionContext) -> None:
        self.ctx = ctx
        # The mechanisms act on the memory and skill tools a tool box offers them (its store, clock
        # and views) and on the irreversible tools it declares. One that cannot act on this box is
        # left off for the session, and the trace says why.
        self.memory = ctx.tools.memory
        applicable = []
        for name in sorted(enabled):
            why = cannot_apply(name, ctx.tools)
            if why is None:
                applicable.append(name)
            else:
                self.event(name, "cannot_apply", why=why)
        self.enabled = frozenset(applicable)
        self.irreversible = frozenset(getattr(ctx.tools, "irreversible", ()))
        self.store = self.memory.store if self.memory is not None else None
        self.render = "E2" in self.enabled
        if self.memory is not None:
            self.memory.render = self.render
        self.turn = ""  # the user turn being answered
        self.asked: list[str] = []  # the user turns so far (never a later one)
        self._planned: set[str] = set()  # irreversible tools already looked up this session (E1)
        self._shown_memory = False  # E1 put stored notes in front of the model
        self._gated = False
        self._calls_before_close = 0

    def start_turn(self, turn: str) -> None:
        self.turn = turn
        self.asked.append(turn)

    def event(self, mechanism: str, action: str, **data: Any) -> None:
        self.ctx.trace.add(
            "mechanism", session=self.ctx.session_index, mechanism=mechanism, action=action, **data
        )

    def specs(self) -> list[dict[str, Any]]:
        return self.ctx.tools.specs()

    def system_prompt(self, base: str) -> str:
        irreversible = ", ".join(sorted(self.irreversible))
        addenda = [SYSTEM_ADDENDA[name].format(irreversible=irreversible) for name in sorted(self.enabled)]
        return "\n\n".join([base, *addenda]) if addenda else base

    # -- E3 route ----------------------------------------------------------------------------------

    def offer_skills(self, messages: list[dict[str, Any]]) -> None:
        """Put the skills that match the session's first request in front of the model."""
        if "E3" not in self.enabled or not self.ctx.user_turns:
            return
        query = _store_query(self.ctx.user_turns[0])
        hits = self.store.search(query, kind="skill", limit=_OFFERED_SKILLS, min_overlap=2)
        if not hits:
            return
        self.memory.shown(hits)
        views = [{"name": e.name, "tags": e.tags, "text": e.text} for e in hits]
        messages.append(
            {"role": "system", "content": f"{E3_OFFER} (apply them if they fit):\n{json.dumps(views)}"}
        )
        self.event("E3", "injected", skills=[e.name for e in hits])

    # -- E1 plan -----------------------------------------------------------------------------------

    def hold(self, name: Any, raw_arguments: Any) -> str | None:
        """The tool result to return instead of running an irreversible call, or None to run it."""
        if "E1" not in self.enabled or name not in self.irreversible or name in self._planned:
            return None
        self._planned.add(name)
        query = _store_query(" ".join([self.turn, name.replace("_", " "), _argument_text(raw_arguments)]))
        clock = self.memory.read_clock()
        found = self.store.search(query, live_at=clock)
        found_skills = self.store.search(query, kind="skill", limit=2)
        notes = [self.memory.entry_view(e) for e in found]
        skills = [{"name": e.name, "text": e.text} for e in found_skills]
        if not notes and not skills:
            self.event("E1", "checked", tool=name, found=0)
            return None
        self._shown_memory = True
        self.memory.shown([*found, *found_skills])
        self.event(
            "E1", "held", tool=name, notes=[n["id"] for n in notes], skills=[s["name"] for s in skills]
        )
        return json.dumps(
            {
                "held": E1_HELD,
                "tool": name,
                "message": "Not run yet: this action cannot be undone. Check it against these stored "
                "notes and skills, then call the tool again if it still fits (or change the plan).",
                "notes": notes,
                "skills": skills,
            },
            ensure_ascii=False,
        )

    # -- E2 render ---------------------------------------------------------------------------------

    def after_tool(self, record: ToolCall) -> None:
        if self.render and record.ok and record.name == "memory_search" and self.store.hidden_by_last_search:
            self.event("E2", "hid", tool=record.name, entries=list(self.store.hidden_by_last_search))

    # -- E4 gate -----------------------------------------------------------------------------------

    def send_back(self, draft: str) -> str | None:
        """The runtime note that returns ``draft`` for retrieval, or None to accept it."""
        if "E4" not in self.enabled or self._gated or self._shown_memory:
            return None
        if any(c.ok and c.name in self.memory.reads for c in self.ctx.tools.calls):
            return None
        related = self.store.matching_ids(" ".join(self.asked), live_at=self.memory.read_clock())
        if not related:
            return None  # nothing stored touches this task: not history-dependent
        self._gated = True
        self.event("E4", "sent_back", related_entries=len(related), draft_chars=len(draft))
        return (
            f"{E4_SEND_BACK} your memory holds {len(related)} entr{'y' if len(related) == 1 else 'ies'} "
            "related to this request and you have not searched it. Search memory (and skills), "
            "then give your final answer."
        )

    # -- E5 close ----------------------------------------------------------------------------------

    def close_note(self) -> str | None:
        if "E5" not in self.enabled:
            return None
        self._calls_before_close = len(self.ctx.tools.calls)
        self.event("E5", "opened")
        return (
            f"{E5_CLOSE} the session is over. Review what the user told you in it: write any corrected "
            "fact that is not stored yet, and retire the stored notes it replaces "
            f"({'memory_update with superseded_by' if self.render else 'memory_delete'}). "
            "Reply DONE when memory is up to date."
        )

    def closed(self) -> None:
        calls = self.ctx.tools.calls[self._calls_before_close :]
        writes = [c for c in calls if c.ok and c.name in {t.name for t in STORE_TOOLS} - STORE_READS]
        self.event(
            "E5",
            "wrote",
            calls=[{"name": c.name, "arguments": c.arguments} for c in writes],
        )


def mechanism_use(events: Iterable[dict[str, Any]], sessions: int) -> dict[str, Any]:
    """What the mechanisms did over an item's ``sessions``, from its ``mechanism`` trace events:
    per mechanism the sessions it acted in (``ACTED``; E5 only when its close pass wrote) and the
    sessions it could not apply in, with the first reason given."""
    acted: dict[str, set[Any]] = {}
    blocked: Counter[str] = Counter()
    why: dict[str, str] = {}
    for event in events:
        if event.get("kind") != "mechanism":
            continue
        name, action = str(event.get("mechanism")), event.get("action")
        if action == "cannot_apply":
            blocked[name] += 1
            why.setdefault(name, str(event.get("why")))
        elif action == ACTED.get(name) and (name != "E5" or event.get("calls")):
            acted.setdefault(name, set()).add(event.get("session"))
    return {
        "sessions": sessions,
        "acted": {name: len(acted.get(name, ())) for name in sorted(MECHANISMS)},
        "cannot_apply": {name: {"sessions": blocked[name], "why": why[name]} for name in sorted(blocked)},
    }


def _store_query(text: str) -> str:
    """``text`` as a store query: a long request (a plasticity reflection prompt) is cut at a word
    boundary below the store's query limit, which refuses longer ones."""
    if len(text) <= MAX_QUERY_CHARS:
        return text
    return text[:MAX_QUERY_CHARS].rsplit(" ", 1)[0]


def _argument_text(raw: Any) -> str:
    """The words of a tool call's arguments (for the E1 lookup query)."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return raw[:500]
    if isinstance(raw, dict):
        return " ".join(str(v) for v in raw.values() if isinstance(v, str | int | float))[:500]
    return ""
