"""Deterministic reference policies: honest offline baselines that act like a (simple) model.

A policy sees only what a model sees — the conversation and the tool list — never the
episode's evidence or checks. It decides its next message by replaying a fixed plan against
the tool results already in the conversation, so it is a pure function of the messages.

- ``blind``: never touches the store; uses world tools only.
- ``recall``: searches memory before answering, stores every statement it is told (noise and
  secrets included), never deletes or supersedes anything.
- ``curator``: like recall, plus skills for numbered procedures, and skipping one-off remarks,
  credentials (by their shape, whatever they are called) and duplicates. It is selective about
  reading too: a question about a document (an archived retrospective, a handoff) goes straight
  to the archive, without a memory search. It knows a correction by plain words of change ("now",
  "no longer", "as of", "took over"), not by any phrasing of the data; it infers no unstated rule.

The reference models use what Hermes' mechanisms (``mechanisms.py``) put in front of them, and
only that — the runtime's messages and the tool schemas. Their base behaviour carries the
paper's five defects on purpose, so the mechanisms have something to fix:

- E1 plan: an irreversible call held with stored notes is re-planned against them (a freeze
  stops a deploy; a stored queue or priority goes into the ticket). ``blind`` re-issues it.
- E2 render: with the structured ``memory_write`` (``supersedes``) the curator retires the note a
  correction replaces at once; with the base tools it writes the correction as a new note and
  old and new stay side by side (the base defect).
- E3 route: skills the runtime offers at session start are used instead of a skill search.
- E4 gate: a draft sent back for retrieval is redone with a memory search (no action is
  repeated, nothing is written twice).
- E5 close: in the close pass the curator finds each correction of the session and retires the
  note it replaces (``superseded_by`` with E2, else ``memory_delete``); recall and blind reply DONE.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from pytest_pastbench.agents.mechanisms import E1_HELD, E3_OFFER, E4_SEND_BACK, E5_CLOSE, RUNTIME_PREFIX
from pytest_pastbench.core.text import content_words, normalise, sentences, words

NOISE_CUES = re.compile(
    r"\b(just for today|only today|for today only|this time only|just this once|for this session"
    r"|right now|today i'?m|this afternoon|this morning|tonight|at the moment|for now i'?m)\b",
    re.IGNORECASE,
)
# Plain words of change, as a correction arrives at work (a forwarded notice, a bounce, a reply).
CORRECTION_CUES = re.compile(
    r"\b(now|instead|no longer|changed to|moved to|correction|from now on|replaces|replaced"
    r"|going forward|has changed|updated to|effective|as of|retired|dropped|discontinued|took over"
    r"|taken over|takes over|switched|superseded|obsolete|outdated|anymore|any more|old process)\b",
    re.IGNORECASE,
)
# Credentials (issue 28 item 5) are found by two general rules, the ones secret scanners use
# (detect-secrets' keyword and high-entropy plugins), restated for prose instead of source code;
# nothing in them comes from the dataset's secrets.
# 1. Keyword: a credential noun, then its value ("PIN 4471", "the wifi password is Gull7harbour!",
#    "API key: ..."). The value is a secret unless it is a plain word or a value of a known
#    non-secret shape (a handle, an address, a version, a date, an amount); bare digits are a
#    secret only after a numeric credential (a PIN or a code), not after "token limit is 4096".
# 2. Shape, whatever it is called: a token built like a password (password rules ask for three
#    of lower case, upper case, digits and symbols; people meet them irregularly: a digit or
#    symbol inside a word, a capital after a lower-case part), or a machine key (letters and
#    digits with the Shannon entropy of a random string, as below).
_NUMERIC_CREDENTIAL = (
    r"pins?|pin[ -]?codes?|passcodes?|otps?|(?:access|door|entry|gate|alarm|keypad|lock|security|safe"
    r"|verification|confirmation|auth(?:entication)?|one[ -]time|backup|recovery|2fa|mfa|sms)[ -]?codes?"
)
_CREDENTIAL = (
    _NUMERIC_CREDENTIAL + r"|codes?|pass(?:word|phrase)s?|passwd|pwd|logins?|secrets?|credentials?|tokens?"
    r"|creds|(?:api|access|secret|private|auth|ssh|signing|encryption|deploy|master|licen[cs]e|product)"
    r"[ _-]?keys?"
)
# The credential noun, up to four words ("for the staging VPN"), then "is" / ":" / "="; or the
# value right after the noun ("PIN 4471", "token ghp_...").
SECRET_CUES = re.compile(
    rf"\b(?P<noun>{_CREDENTIAL})\b(?:(?:\s+[\w'-]+){{0,4}}?(?:\s*[:=]\s*|\s+(?:is|was|are|were|reads|remains"
    r"|stays|becomes|will be|has been|set to|changed to)(?:\s+(?:now|still|currently))?\s+)|\s+)"
    r"[\"'“‘]?(?P<value>[^\s\"'”’]+(?:\s*/\s*[^\s\"'”’]+)?)",
    re.IGNORECASE,
)
_NUMERIC_NOUN = re.compile(rf"^(?:{_NUMERIC_CREDENTIAL}|codes?)$", re.IGNORECASE)
# A bare "code" is a credential when the statement is about opening something ("disarm the
# alarm (code 2280)"), not in "error code 5041" or "HS code 8471.30".
_ACCESS = re.compile(
    r"\b(?:door|gate|alarm|lock|unlock|locker|safe|keypad|entry|entrance|disarm|vault|padlock|log ?in)\b",
    re.IGNORECASE,
)
_TOKEN_EDGES = "\"'()[]{}<>,;:.?“”‘’"
# Shapes of values that are not secrets: handles, e-mail and web addresses, versions, dates and
# times, amounts and plain numbers with a unit or a decimal point, ordinals.
_NOT_SECRET = re.compile(
    r"^(?:@[\w.-]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|[a-z][a-z0-9+.-]*://\S+|www\.\S+"
    r"|v?\d+(?:\.\d+)+[a-z]?|\d{4}-\d{2}-\d{2}(?:t[\d:.]+z?)?|\d{1,2}[/.]\d{1,2}(?:[/.]\d{2,4})?|\d{1,2}:\d{2}(?:am|pm)?"
    r"|\d{1,2}(?:am|pm)|[$€£¥₹]?\d[\d,]*(?:\.\d+)?(?:%|k|m|bn|eur|usd|gbp|[$€£¥₹])?"
    r"|\d+(?:st|nd|rd|th)"
    r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$",  # a UUID names a record
    re.IGNORECASE,
)
_SEPARATORS = re.compile(r"[-_./]")
# A value introduced as an identifier names a record or an account, whatever its shape
# ("device ID 5f2a-88c1", "commit 3f9a1c7e", "account ops-bot-7"); the keyword rule still
# catches a credential named as one.
_ID_NOUNS = frozenset(
    """
    id ids identifier serial ref reference number no nr # order invoice ticket case job build commit
    batch lot sku part model tracking record account user username host hostname device
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
_HEX = frozenset("0123456789abcdefABCDEF")
_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_")
# A retraction only says the old value is gone; it asserts nothing new worth keeping.
RETRACTION_CUES = re.compile(
    r"\b(no longer|retired|dropped|discontinued|anymore|any more|obsolete|outdated|old process)\b",
    re.IGNORECASE,
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
# A question about a document: the selective curator goes to the archive and skips its memory.
DOCUMENT_QUESTION = re.compile(
    r"\b(archived?|retrospective|retro|handoff|hand-off|post-?mortem|minutes)\b", re.IGNORECASE
)
ACTION_NOTES = ("Deployed ", "I did not deploy", "Opened ticket")
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


def decide(policy: Policy, messages: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
    """The next assistant message: ``{"content": str}`` or ``{"tool_calls": [(name, args), ...]}``.

    ``tools``: the request's tool list (OpenAI format), or just a set of tool names.
    """
    turn = current_turn(messages)
    available = offered_tools(tools)
    replay = Replay(turn.done, set(available.names))
    try:
        if turn.closing:
            answer = _close_pass(policy, turn, replay, available)
        else:
            answer = _plan(policy, turn, replay, available)
    except Emit as emit:
        return {"tool_calls": emit.calls}
    return {"content": answer}


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


def _plan(policy: Policy, turn: Turn, replay: Replay, tools: OfferedTools) -> str:
    user_text = turn.user_text
    query = " ".join(content_words(user_text))
    memory_hits: list[dict[str, Any]] = []
    skill_hits: list[dict[str, Any]] = []
    # The curator reads selectively: a question about a document goes to the archive (E4's
    # send-back is what makes it look in its memory too).
    directed = policy.curates and bool(DOCUMENT_QUESTION.search(user_text)) and not turn.gated
    if policy.uses_store and query and not directed:
        memory_hits = note_entries(replay.call("memory_search", {"query": query}))
    if policy.curates and turn.offered_skills is not None:
        skill_hits = turn.offered_skills  # E3 offered them: no search needed
    elif policy.curates and query and not directed:
        skill_hits = note_entries(replay.call("skill_search", {"query": query}))
    recalled = [h["text"] for h in skill_hits[:1]] + [h["text"] for h in memory_hits]

    archive_doc = _consult_archive(user_text, recalled, replay)
    if turn.gated:
        # Redo the answer with what memory holds; the draft's actions stand and are not repeated.
        done = [p for p in turn.draft.split("\n\n") if p.startswith(ACTION_NOTES)]
        return _compose_answer(recalled, archive_doc, done, policy)
    action_notes = _act(policy, user_text, recalled, archive_doc, replay)
    if policy.uses_store:
        store_statements(policy, user_text, memory_hits, replay, tools)
    return _compose_answer(recalled, archive_doc, action_notes, policy)


def note_entries(result: Any) -> list[dict[str, Any]]:
    return [r for r in result if isinstance(r, dict) and "text" in r] if isinstance(result, list) else []


def _consult_archive(user_text: str, recalled: list[str], replay: Replay) -> dict[str, Any] | None:
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
    policy: Policy,
    user_text: str,
    recalled: list[str],
    archive_doc: dict[str, Any] | None,
    replay: Replay,
) -> list[str]:
    notes: list[str] = []
    context = "\n".join(recalled) + ("\n" + archive_doc["body"] if archive_doc else "")
    if DEPLOY_REQUEST.search(user_text) and replay.has("deploys_create"):
        version = VERSION.search(user_text)
        service = _deploy_target(user_text)
        prohibitions = [t for t in recalled if PROHIBITION_CUES.search(t)]
        if not prohibitions and version and service:
            args = {"service": service, "version": version.group(0)}
            result = replay.call("deploys_create", args)
            shown = _held_texts(result) if policy.uses_store else []
            prohibitions = [t for t in shown if PROHIBITION_CUES.search(t)]
            if is_held(result) and not prohibitions:
                result = replay.call("deploys_create", args)  # E1: checked, still fits
            if not prohibitions:
                notes.append(f"Deployed {service} {version.group(0)}: {json.dumps(result)}")
        if prohibitions:
            notes.append("I did not deploy, because: " + prohibitions[0])
    if TICKET_REQUEST.search(user_text) and replay.has("tickets_create"):
        result = replay.call("tickets_create", _ticket(user_text, context))
        if is_held(result):
            # E1: re-plan the ticket with the stored notes it was held with.
            shown = _held_texts(result) if policy.uses_store else []
            result = replay.call("tickets_create", _ticket(user_text, "\n".join([*shown, context])))
        notes.append(f"Opened ticket: {json.dumps(result)}")
    return notes


def _ticket(user_text: str, context: str) -> dict[str, Any]:
    args: dict[str, Any] = {"title": sentences(user_text)[0][:100], "body": context[:1500]}
    for key, pattern in (("queue", QUEUE), ("priority", PRIORITY), ("assignee", HANDLE)):
        found = pattern.search(user_text) or pattern.search(context)
        if found:
            args[key] = found.group(0)
    return args


def is_held(result: Any) -> bool:
    """Was the call held by E1 (not run yet, stored notes shown)?"""
    return isinstance(result, dict) and result.get("held") == E1_HELD


def _held_texts(result: Any) -> list[str]:
    if not is_held(result):
        return []
    return [e["text"] for e in note_entries(result.get("notes")) + note_entries(result.get("skills"))]


def _deploy_target(user_text: str) -> str | None:
    match = re.search(r"\b(?:deploy|ship|roll out|release)\s+(?:the\s+)?([a-z][a-z0-9-]*)", user_text, re.I)
    return match.group(1) if match else None


def store_statements(
    policy: Policy, user_text: str, hits: list[dict[str, Any]], replay: Replay, tools: OfferedTools
) -> None:
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
    structured = tools.accepts("memory_write", "supersedes")  # E2
    known = {normalise(h["text"]) for h in hits}
    for statement in _worth_keeping(statements):
        if normalise(statement) in known:
            continue
        known.add(normalise(statement))
        args: dict[str, Any] = {"text": statement}
        if structured:
            entity = _entity(statement)
            if entity:
                args["entity"] = entity
            if CORRECTION_CUES.search(statement):
                similar = note_entries(replay.call("memory_search", {"query": statement}))
                # One note per write (its ``supersedes``); E5's close pass retires the others.
                stale = _replaced(statement, similar)
                if stale:
                    args["supersedes"] = stale[0]
        # Without E2 a correction is written as a new note: the one it replaces stays live.
        replay.call("memory_write", args)


def _worth_keeping(statements: list[str]) -> list[str]:
    return [s for s in statements if not _skip(s) and len(content_words(s)) >= 3]


def _entity(statement: str) -> str:
    """The first name-like word of a statement (E2's entity field)."""
    match = CODENAME.search(statement)
    return match.group(1) if match else ""


def _close_pass(policy: Policy, turn: Turn, replay: Replay, tools: OfferedTools) -> str:
    """E5: record each correction of the session and retire the note it replaces."""
    if not policy.curates:
        return "DONE"
    structured = tools.accepts("memory_update", "superseded_by")
    for text in turn.session_user_texts:
        for statement in _worth_keeping(sentences(text)):
            if not CORRECTION_CUES.search(statement) or statement.rstrip().endswith("?"):
                continue
            hits = note_entries(replay.call("memory_search", {"query": _with_handles(statement)}))
            current = next((h for h in hits if normalise(h["text"]) == normalise(statement)), None)
            if current is None:
                written = replay.call("memory_write", {"text": statement})
                current = {"id": written.get("id"), "text": statement} if isinstance(written, dict) else None
            others = [h for h in hits if current is None or h.get("id") != current.get("id")]
            if not (current and current.get("id")):
                continue
            if structured:
                replay.batch(
                    [
                        ("memory_update", {"id": i, "superseded_by": str(current["id"])})
                        for i in _replaced(statement, others)
                    ]
                )
            else:
                replay.batch([("memory_delete", {"id": i}) for i in _replaced(statement, others)])
    return "DONE"


def _skip(statement: str) -> bool:
    return bool(NOISE_CUES.search(statement) or _has_credential(statement))


def _has_credential(text: str) -> bool:
    """Does the statement give a credential (a password, PIN, key, token), by either rule above?"""
    for match in SECRET_CUES.finditer(text):
        if match["noun"].lower() in ("code", "codes") and not _ACCESS.search(text):
            continue
        numeric = bool(_NUMERIC_NOUN.match(match["noun"]))
        # "user / password": either side of a slash pair is the value.
        value = match["value"]
        if any(_secret_value(v, numeric) for v in ([value] if "://" in value else value.split("/"))):
            return True
    tokens = text.split()
    return any(
        _credential_like(t) and not (i and _bare(tokens[i - 1]).lower() in _ID_NOUNS)
        for i, t in enumerate(tokens)
    )


def _bare(token: str) -> str:
    return token.strip(_TOKEN_EDGES).removesuffix("'s")


def _secret_value(value: str, numeric: bool) -> bool:
    """The value after a credential noun: a secret unless it is a plain word or a non-secret
    shape. Bare digits (four or more) count after a numeric credential only."""
    value = _bare(value)
    if value.isdigit():
        return numeric and len(value) >= 4
    if len(value) < 4 or _NOT_SECRET.match(value):
        return False
    # Words, or words joined by - _ . ("ops-admin", "portal.example.com"), name things.
    return not all(
        part.isalpha() and (part.islower() or part.istitle() or part.isupper())
        for part in _SEPARATORS.split(value)
    )


def _credential_like(token: str) -> bool:
    """A password or a key by its shape alone, whatever it is called (rule 2 above).

    Not: ticket ids and queues ("OPS-1234", "DC-FAC"), rack and dock codes ("C-14", "4B"),
    versions, handles, dates and amounts: their parts are each a word or a number, and their
    letters and digits repeat like a word's, not a random string's.
    """
    token = _bare(token)
    if len(token) < 8 or token.startswith("-") or _NOT_SECRET.match(token):
        return False  # "--tz=UTC": a command-line option (the keyword rule reads "--password=...")
    return (_classes(token) >= 3 and _irregular(token)) or _random_key(token)


def _classes(token: str) -> int:
    """How many of lower case, upper case, digits and symbols the token uses."""
    return sum(
        (
            any(c.islower() for c in token),
            any(c.isupper() for c in token),
            any(c.isdigit() for c in token),
            any(not c.isalnum() for c in token),
        )
    )


def _irregular(token: str) -> bool:
    """Password-like irregularity: a part (between - _ . /) that switches between letters,
    digits and symbols twice or more ("Gull7harbour!", "93bd07ee", "Zr81p"), or a capitalised
    part after an all-lower-case one ("tulip-Orbit-42"; "Follow-up" and "Corp-Std-3" are not)."""
    parts = [p for p in _SEPARATORS.split(token) if p]
    for part in parts:
        kinds = ["a" if c.isalpha() else "d" if c.isdigit() else "s" for c in part]
        if sum(1 for a, b in zip(kinds, kinds[1:], strict=False) if a != b) >= 2:
            return True
    words_only = [p for p in parts if p.isalpha()]
    return any(
        earlier.islower() and later[0].isupper()
        for i, earlier in enumerate(words_only)
        for later in words_only[i + 1 :]
    )


def _random_key(token: str) -> bool:
    """A machine-made key or token: 16+ characters of the hex or base64 alphabet, letters and
    digits both, whose Shannon entropy is at least 3/4 of the most a string of that length over
    that alphabet can have. (detect-secrets' limits, 3.0 bits for hex and 4.5 for base64, are
    3/4 of those alphabets' 4 and 6 bits; scaling by length lets 16-40 character keys qualify.)"""
    if len(token) < 16 or not set(token) <= _BASE64:
        return False
    # Random output mixes letters and digits inside a part; words and numbers joined by
    # separators ("pg-orders-replica-2", "0142_add_ledger_index") are a name, however varied.
    if not any(re.search(r"[A-Za-z]", p) and re.search(r"\d", p) for p in _SEPARATORS.split(token)):
        return False
    alphabet = 16 if set(token) <= _HEX else 64
    counts = [token.count(c) for c in set(token)]
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts)
    return entropy >= 0.75 * math.log2(min(len(token), alphabet))


def _replaced(statement: str, candidates: list[dict[str, Any]]) -> list[str]:
    """Ids of the notes a correction replaces: the most similar one (two shared words at least; a
    note holding a value the correction does not repeat wins a tie), then every other note that
    states one of that note's replaced values ("Dock 11") about the same thing."""
    terms, values = _terms(statement), _values(statement)
    best: dict[str, Any] | None = None
    best_score = 1
    for candidate in candidates:
        overlap = len(terms & _terms(candidate["text"]))
        score = overlap + (0.5 if _values(candidate["text"]) - values else 0)
        if overlap >= 2 and score > best_score and "id" in candidate:
            best, best_score = candidate, score
    if best is None:
        return []
    old_values = _values(best["text"]) - values
    others = [
        str(c["id"])
        for c in candidates
        if "id" in c and c is not best and old_values & _values(c["text"]) and terms & _terms(c["text"])
    ]
    return [str(best["id"]), *others]


def _with_handles(text: str) -> str:
    """The text plus the chat handle of each full name in it ("Dara Voss" -> "@dara.voss"), so a
    correction that names a person finds the note that gave their handle."""
    names = re.findall(r"\b([A-Z][a-z]+) ([A-Z][a-z]+)\b", text)
    return " ".join([text, *(f"@{first.lower()}.{last.lower()}" for first, last in names)])


def _terms(text: str) -> set[str]:
    """Content words, with a handle's parts too ("@dara.voss" is also "dara", "voss")."""
    found = set(content_words(text))
    return found | {part for w in found if w.startswith("@") for part in re.split(r"[@._-]", w) if part}


def _values(text: str) -> set[str]:
    """The value-like words of a note: numbers, ids, handles and upper-case codes."""
    found = {w for w in words(text) if w.startswith("@") or any(c.isdigit() for c in w)}
    return found | {m.lower() for m in re.findall(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*\b", text) if len(m) >= 2}


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
