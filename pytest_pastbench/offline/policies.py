"""Deterministic reference policies: honest offline baselines that act like a (simple) model.

A policy sees only what a model sees — the conversation and the tool list — never the
episode's evidence or checks. It decides its next message by replaying a fixed plan against
the tool results already in the conversation, so it is a pure function of the messages.

- ``blind``: never touches the store; uses world tools only.
- ``recall``: searches memory before answering, stores every statement it is told (noise and
  secrets included), never deletes or supersedes anything.
- ``curator``: like recall, plus skills for numbered procedures, superseding entries on
  corrections, and skipping one-off remarks, secrets and duplicates.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..text import content_words, normalise, sentences

NOISE_CUES = re.compile(
    r"\b(just for today|only today|for today only|this time only|just this once|for this session"
    r"|right now i'?m|today i'?m|this afternoon i'?m|this morning i'?m|for now i'?m)\b",
    re.IGNORECASE,
)
CORRECTION_CUES = re.compile(
    r"\b(now|instead|no longer|changed to|moved to|correction|from now on|replaces|replaced"
    r"|going forward|has changed|updated to|effective)\b",
    re.IGNORECASE,
)
SECRET_CUES = re.compile(
    r"\b(password|passphrase|api[ _-]?key|token|secret)\b|\b[A-Za-z0-9]*\d[A-Za-z0-9]*[A-Z][A-Za-z0-9]{10,}\b"
)
PROHIBITION_CUES = re.compile(
    r"\b(freeze|frozen|do not deploy|don't deploy|no deploys?|must not|blocked|embargo)\b", re.IGNORECASE
)
ARCHIVE_CUES = re.compile(
    r"\b(archive|archived|retro|retrospective|post-?mortem|handoff|hand-off|audit|minutes|records?)\b",
    re.IGNORECASE,
)
TICKET_REQUEST = re.compile(r"\b(open|create|file|raise|log)\b[^.?!]{0,40}\bticket", re.IGNORECASE)
DEPLOY_REQUEST = re.compile(r"\b(deploy|ship|roll out|release)\b", re.IGNORECASE)
VERSION = re.compile(r"\bv?\d+\.\d+(?:\.\d+)?\b")
QUEUE = re.compile(r"\b[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)+\b")
PRIORITY = re.compile(r"\bP[0-4]\b")
HANDLE = re.compile(r"@[a-z][a-z0-9._-]*[a-z0-9]")
NUMBERED = re.compile(r"^\s*(?:step\s*)?(\d{1,2})[.)]\s+(.+)$", re.IGNORECASE)
CODENAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?:-[A-Z0-9][a-z0-9]*)*|[A-Z]{2,}[-0-9A-Z]*)\b")


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


class _Emit(Exception):
    """Control flow: the plan needs tool calls that have not run yet."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        self.calls = calls


class _Replay:
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
        raise _Emit(calls[len(self.done) - self.cursor :] if self.cursor < len(self.done) else calls)


def decide(policy: Policy, messages: list[dict[str, Any]], tool_names: set[str]) -> dict[str, Any]:
    """The next assistant message: ``{"content": str}`` or ``{"tool_calls": [(name, args), ...]}``."""
    user_text, done = _current_turn(messages)
    replay = _Replay(done, tool_names)
    try:
        answer = _plan(policy, user_text, replay)
    except _Emit as emit:
        return {"tool_calls": emit.calls}
    return {"content": answer}


def _current_turn(messages: list[dict[str, Any]]) -> tuple[str, list[tuple[str, Any]]]:
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    user_text = str(messages[last_user].get("content") or "") if last_user >= 0 else ""
    results_by_id: dict[str, Any] = {}
    order: list[tuple[str, str]] = []
    for message in messages[last_user + 1 :]:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                function = call["function"] if isinstance(call, dict) else call.function
                name = function["name"] if isinstance(function, dict) else function.name
                call_id = call["id"] if isinstance(call, dict) else call.id
                order.append((call_id, name))
        elif message.get("role") == "tool":
            results_by_id[message.get("tool_call_id", "")] = _parse(message.get("content"))
    return user_text, [(name, results_by_id.get(call_id)) for call_id, name in order]


def _parse(content: Any) -> Any:
    try:
        return json.loads(content) if isinstance(content, str) else content
    except json.JSONDecodeError:
        return content


def _plan(policy: Policy, user_text: str, replay: _Replay) -> str:
    query = " ".join(content_words(user_text))
    memory_hits: list[dict[str, Any]] = []
    skill_hits: list[dict[str, Any]] = []
    if policy.uses_store and query:
        memory_hits = _entries(replay.call("memory_search", {"query": query}))
        if policy.curates:
            skill_hits = _entries(replay.call("skill_search", {"query": query}))
    recalled = [h["text"] for h in skill_hits[:1]] + [h["text"] for h in memory_hits]

    archive_doc = _consult_archive(user_text, recalled, replay)
    action_notes = _act(user_text, recalled, archive_doc, replay)
    if policy.uses_store:
        _store(policy, user_text, memory_hits, replay)
    return _compose_answer(recalled, archive_doc, action_notes, policy)


def _entries(result: Any) -> list[dict[str, Any]]:
    return [r for r in result if isinstance(r, dict) and "text" in r] if isinstance(result, list) else []


def _consult_archive(user_text: str, recalled: list[str], replay: _Replay) -> dict[str, Any] | None:
    if not (replay.has("archive_search") and ARCHIVE_CUES.search(user_text)):
        return None
    terms = content_words(user_text)
    # Query expansion through memory: internal names (codenames, ticket ids) the user taught
    # earlier are what the archive is indexed under.
    for text in recalled:
        for match in CODENAME.finditer(text):
            word = match.group(1).lower()
            if word not in terms and word not in ("project", "the", "we"):
                terms.append(word)
    found = replay.call("archive_search", {"query": " ".join(terms)}) if terms else None
    if not isinstance(found, list) or not found or not isinstance(found[0], dict):
        return None
    doc = replay.call("archive_read", {"id": str(found[0].get("id", ""))})
    return doc if isinstance(doc, dict) and "body" in doc else None


def _act(
    user_text: str, recalled: list[str], archive_doc: dict[str, Any] | None, replay: _Replay
) -> list[str]:
    notes: list[str] = []
    context = "\n".join(recalled) + ("\n" + archive_doc["body"] if archive_doc else "")
    prohibitions = [t for t in recalled if PROHIBITION_CUES.search(t)]
    if DEPLOY_REQUEST.search(user_text) and replay.has("deploys_create"):
        version = VERSION.search(user_text)
        service = _deploy_target(user_text)
        if prohibitions:
            notes.append("I did not deploy, because: " + prohibitions[0])
        elif version and service:
            result = replay.call("deploys_create", {"service": service, "version": version.group(0)})
            notes.append(f"Deployed {service} {version.group(0)}: {json.dumps(result)}")
    if TICKET_REQUEST.search(user_text) and replay.has("tickets_create"):
        args: dict[str, Any] = {"title": sentences(user_text)[0][:100], "body": context[:1500]}
        for key, pattern in (("queue", QUEUE), ("priority", PRIORITY), ("assignee", HANDLE)):
            found = pattern.search(user_text) or pattern.search(context)
            if found:
                args[key] = found.group(0)
        result = replay.call("tickets_create", args)
        notes.append(f"Opened ticket: {json.dumps(result)}")
    return notes


def _deploy_target(user_text: str) -> str | None:
    match = re.search(r"\b(?:deploy|ship|roll out|release)\s+(?:the\s+)?([a-z][a-z0-9-]*)", user_text, re.I)
    return match.group(1) if match else None


def _store(policy: Policy, user_text: str, hits: list[dict[str, Any]], replay: _Replay) -> None:
    lines = sentences(user_text)
    statements = [s for s in lines if not s.rstrip().endswith("?") and not NUMBERED.match(s)]
    steps = [NUMBERED.match(s).group(2).strip() for s in lines if NUMBERED.match(s)]  # type: ignore[union-attr]
    if not policy.curates:
        # recall keeps everything it is told, numbered steps included, one entry each.
        replay.batch([("memory_write", {"text": s}) for s in [*statements, *steps]])
        return
    if len(steps) >= 3:
        intro = next((s for s in statements if not _skip(s)), user_text)
        name = " ".join(content_words(intro)[:5]) or "procedure"
        replay.call("skill_write", {"name": name, "steps": steps, "tags": content_words(intro)[:8]})
    known = {normalise(h["text"]) for h in hits}
    for statement in statements:
        if _skip(statement) or normalise(statement) in known or len(content_words(statement)) < 3:
            continue
        known.add(normalise(statement))
        target = None
        if CORRECTION_CUES.search(statement):
            similar = _entries(replay.call("memory_search", {"query": statement}))
            target = _most_similar(statement, similar)
        if target:
            replay.call("memory_update", {"id": target, "text": statement})
        else:
            replay.call("memory_write", {"text": statement})


def _skip(statement: str) -> bool:
    return bool(NOISE_CUES.search(statement) or SECRET_CUES.search(statement))


def _most_similar(statement: str, candidates: list[dict[str, Any]]) -> str | None:
    words = set(content_words(statement))
    best, best_overlap = None, 1
    for candidate in candidates:
        overlap = len(words & set(content_words(candidate["text"])))
        if overlap > best_overlap and "id" in candidate:
            best, best_overlap = str(candidate["id"]), overlap
    return best


def _compose_answer(
    recalled: list[str], archive_doc: dict[str, Any] | None, actions: list[str], policy: Policy
) -> str:
    parts: list[str] = []
    if recalled:
        parts.append("From my notes:\n" + "\n".join(f"- {text}" for text in recalled))
    if archive_doc:
        parts.append(
            f"From the archive ({archive_doc.get('id')}: {archive_doc.get('title')}):\n{archive_doc['body']}"
        )
    parts.extend(actions)
    if not parts:
        parts.append(
            "I have nothing stored about this, so I can't rely on earlier context; "
            "tell me the details and I'll take it from there."
            if policy.uses_store
            else "I don't have earlier context for this; tell me the details and I'll take it from there."
        )
    return "\n\n".join(parts)
