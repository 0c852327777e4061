"""Deterministic reference policies: honest offline baselines that act like a (simple) model.

A policy sees only what a model sees — the conversation and the tool list — never the
episode's evidence or checks. It decides its next message by replaying a fixed plan against
the tool results already in the conversation, so it is a pure function of the messages.

- ``blind``: never touches the store; uses world tools and the prompt only.
- ``recall``: searches memory before answering, stores every statement it is told (noise and
  secrets included), never deletes or supersedes anything.
- ``curator``: like recall, plus skills for numbered procedures, and it keeps knowledge, not the
  conversation: it skips one-off remarks, credentials (by their shape, whatever they are called),
  duplicates, requests for the task at hand and the user's remarks about themselves when they
  carry nothing to keep, and the narrative of a new case its notes already speak to (what such a
  turn changes, a value, a name or a word of change, is kept). It is selective about
  reading too: a question about a document (an archived retrospective, a handoff) goes straight
  to the archive, without a memory search. It knows a correction by plain words of change ("now",
  "no longer", "as of", "took over"), not by any phrasing of the data; it infers no unstated rule.

All three do the work that needs no store (issue 29, "the control arm measures competence"): when
the request refers to a record of the world — a note, a ticket or a queue, an archived document,
what is deployed or live — they look it up with the world's own tools (``notes_list`` /
``notes_read``, ``tickets_list``, ``archive_search`` / ``archive_read``, ``deploys_list``), use what
comes back (in the answer, and in the body of a ticket they open), and restate the values the
user's own message gives. They differ where the present and their notes disagree: ``recall``
pastes notes and records side by side (it keeps stale), the curator goes with the present — a
record of the world or a statement of the user that is newer than a note about the same thing —
and names the note's value as outdated, and ``blind`` has only the present.

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
import re
from dataclasses import dataclass
from typing import Any

from pytest_pastbench.core.text import STOPWORDS, content_words, normalise, sentences, words
from pytest_pastbench.protocols.shared.curation import (
    CODENAME,
    CORRECTION_CUES,
    OVERRIDE_CUES,
    TOKEN_EDGES,
    key_overlap,
    lookup_keys,
    names_in,
    replaced_notes,
    stem,
    store_statements,
    value_words,
    worth_keeping,
)
from pytest_pastbench.protocols.shared.replay import (
    Emit,
    OfferedTools,
    Policy,
    Replay,
    Turn,
    current_turn,
    is_held,
    note_entries,
    offered_tools,
)

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
# A queue is a code of words ("DC-FAC", "IAM-GRANTS"); a code that ends in a number is a record's
# id ("HR-1187", "INC-8802": the tracker's PROJECT-NUMBER convention), never a queue, nor is the head of
# one ("INC-T" of "INC-T-311").
QUEUE = re.compile(r"\b[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)*-[A-Z0-9]*[A-Z][A-Z0-9]*\b(?!-[A-Z0-9])")
PRIORITY = re.compile(r"\bP[0-4]\b(?!-)")  # not a desk or room id ("P2-14")
HANDLE = re.compile(r"@[a-z][a-z0-9._-]*[a-z0-9]")
# The handle a rule assigns work to ("assigned to @kiri.tane"), before any handle (a reporter's).
ASSIGNEE = re.compile(
    r"\b(?:assign(?:ed|ee)?(?:\s+to)?|owner(?:\s+is)?|owned\s+by|routed\s+to|triaged?\s+by)\W+(@[a-z][a-z0-9._-]*[a-z0-9])",
    re.IGNORECASE,
)
# A question about a document: the selective curator goes to the archive and skips its memory.
DOCUMENT_QUESTION = re.compile(
    r"\b(archived?|retrospective|retro|handoff|hand-off|post-?mortem|minutes)\b", re.IGNORECASE
)
ACTION_NOTES = ("Deployed ", "I did not deploy", "Opened ticket")
# A request that refers to a record of the world by the place it lives in (issue 29): these are
# how people point at the present ("it's in their queue", "the review pack note", "what is live").
NOTE_LOOKUP = re.compile(
    r"\b(?:the|a|an|their|his|her|our|my|its|this|that|in)\s+(?:[\w'-]+\s+){0,4}notes?\b|\bnotes\b",
    re.IGNORECASE,
)
NOTE_VERB = re.compile(r"\b(?:make|take|leave|add|write)\s+(?:a|the)\s+note\b", re.IGNORECASE)
TICKET_WORD = re.compile(r"\btickets?\b|\bqueues?\b|\bticketed\b", re.IGNORECASE)
TICKET_ID = re.compile(r"\b[A-Z]{2,}(?:-[A-Z0-9]+)*-\d{2,}\b")  # "OPS-1234", "INC-H-5120", "OPS-HW-440"
DEPLOY_LOOKUP = re.compile(
    r"\b(?:live|running|deployed|in production|deploy log|which version|what version|current version)\b",
    re.IGNORECASE,
)
# Documents a request may point at by kind; the archive is where they are filed.
DOCUMENT_WORDS = re.compile(
    r"\b(?:documents?|docs?|filed|calendar|changelog|policy|runbook|wiki|spec|schedule|menu|pack|brief)\b",
    re.IGNORECASE,
)
# A question about how things stand now, or about something that just happened: a competent
# agent checks the world's records before answering from what it remembers.
CURRENT_STATE = re.compile(
    r"\b(?:now|right now|currently|at the moment|as things stand|this week|tonight|today|latest|still"
    r"|again|just came in|came in|new|logged|posted|flagged|reported|booked|opened|raised|sent|put out"
    r"|this time|since)\b",
    re.IGNORECASE,
)
# A request that says a record of the world is newer than what the agent may remember: it was
# revised, reissued, posted, or is the latest one ("the council put out the July revision", "the
# capacity page was updated last week", "today's site diary"). A competent agent reads that record
# before answering from its notes (issue 29: the present supersedes the store).
NEWER_RECORD = re.compile(
    r"\b(?:revised|revision|revisions|updated|an update|the update|amended|amendment|reissued|re-issued"
    r"|issued|published|posted|put out|sent out|sent round|sent around|went out|circulated|is out|are out"
    r"|put up|is up|are up|went up|up this week|up this month"
    r"|came out|latest|newest"
    r"|new one|new version|new edition"
    r"|today's|this week's|this month's)\b",
    re.IGNORECASE,
)
NAMED_QUEUE = re.compile(r"\b(?:in|to|into|on|from)\s+(?:the|their|our|its)\s+([a-z][\w-]*)\s+queue\b", re.I)
# A record that is not in force: a draft, a proposal, a request not yet granted.
NOT_IN_FORCE = re.compile(
    r"\b(draft|proposed|proposal|to be (?:named|confirmed|decided|agreed)|candidates?|tbc|tbd|requested)\b",
    re.IGNORECASE,
)
_CALENDAR_TEXT = (
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july "
    "august september october november december"
)
_CALENDAR_WORDS = frozenset(_CALENDAR_TEXT.split())
# A record that says it changes something: a renewal, an extension, a revision, a swap, cover.
RECORD_CHANGE = re.compile(
    r"\b(renewal|renewed|extension|extended|revised|revision|updated?|swap(?:ped)?|cover|replacement"
    r"|re-review|amended|amendment|changed|moved|superseded?|from now)\b",
    re.IGNORECASE,
)
REPORTED = re.compile(
    r"\b(?:asks?|asking|asked|reports?|reporting|wants? to know|wonders?|says?|said|questions?)\b",
    re.IGNORECASE,
)
QUESTION = re.compile(r"\?|\b(?:what|which|who|whom|whose|when|where|how|whether)\b", re.IGNORECASE)
YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
# How many records of one service a lookup brings into the answer: the ones the request is about,
# not the whole service (pasting everything asserts every wrong value in it too).
LOOKUP_LIMIT = 2


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


@dataclass(frozen=True)
class Record:
    """One record of the world a lookup returned: where it came from, and its text."""

    source: str  # "the ticket EVT-0907 (Room booking)", "the note 'Runbook'", "the deploy log"
    text: str


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
    records = _consult_world(user_text, replay, archive_doc, recalled)
    if policy.uses_store and query and not directed and not memory_hits:
        more = _recall_by_records(replay, records)
        memory_hits += more
        recalled += [h["text"] for h in more]
    if turn.gated:
        # Redo the answer with what memory holds; the draft's actions stand and are not repeated.
        done = [p for p in turn.draft.split("\n\n") if p.startswith(ACTION_NOTES)]
        return _compose_answer(recalled, archive_doc, done, policy, records, user_text)
    action_notes = _act(policy, user_text, recalled, archive_doc, replay, records)
    if policy.uses_store:
        follow_up = len(turn.session_user_texts) > 1  # the user answering the work done so far
        store_statements(policy, user_text, memory_hits, replay, tools, follow_up)
    return _compose_answer(recalled, archive_doc, action_notes, policy, records, user_text)


HOP_QUERY_WORDS = 40  # a record's first content words: a query, not a whole ticket body


def _recall_by_records(replay: Replay, records: list[Record]) -> list[dict[str, Any]]:
    """Memory reached through the records the request points at, when its own words recalled
    nothing: "the accounts hit by INC-H-5120" shares no word with the stored rule for enterprise
    customers, but the incident's ticket does. One memory search per record, with its first words.
    (Following up the recalled notes too reached more of what an answer needs, but surfaced
    related notes that were stale or beside the point in real runs: Mech fell in update.)"""
    queries = [" ".join(content_words(r.text)[:HOP_QUERY_WORDS]) for r in records[:LOOKUP_LIMIT]]
    queries = [q for q in queries if q]
    found = replay.batch([("memory_search", {"query": q}) for q in queries]) if queries else []
    more = {str(h["text"]): h for result in found for h in note_entries(result)}
    return list(more.values())


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
    records: list[Record] = (),  # type: ignore[assignment]
) -> list[str]:
    notes: list[str] = []

    def still_holds(stored: list[str]) -> list[str]:
        """A stored routing the present replaced is not acted on: a queue, priority or assignee of a
        note's clause that a newer record or the user's override gives otherwise is struck from the
        note before the ticket is routed and written from it (the answer names it as outdated);
        the rest of the note, the clause's other fields too, still holds."""
        if not policy.curates:
            return stored
        weighed = _against_the_present(stored, _present(list(records), archive_doc), user_text)
        kept = []
        for text, (_, old) in zip(stored, weighed, strict=True):
            for value in {v for clause, newer, _ in old for v in _rerouted(clause, newer)}:
                text = re.sub(rf"(?<![\w@-]){re.escape(value)}(?![\w-])", "", text)
            kept.append(text)
        return kept

    # What the new ticket carries: what the world showed first (the present), then notes.
    context = "\n".join(
        [*(r.text for r in records), *still_holds(recalled), *([archive_doc["body"]] if archive_doc else [])]
    )
    # A deploy request names what to deploy ("ship payments v2.4"); "the release train" is not one.
    if DEPLOY_REQUEST.search(user_text) and _deploy_target(user_text) and replay.has("deploys_create"):
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
    if _asks_for_ticket(user_text, context) and replay.has("tickets_create"):
        result = replay.call("tickets_create", _ticket(user_text, context))
        if is_held(result):
            # E1: re-plan the ticket with the stored notes it was held with.
            shown = still_holds(_held_texts(result)) if policy.uses_store else []
            result = replay.call("tickets_create", _ticket(user_text, "\n".join([*shown, context])))
        notes.append(f"Opened ticket: {json.dumps(result)}")
    return notes


def _asks_for_ticket(user_text: str, context: str) -> bool:
    """A ticket asked for by name ("open a ticket"), or an order to file something ("Please file the
    reissue", "raise what's needed") where what is known routes such requests to a queue: filing
    is how that work is done there."""
    if TICKET_REQUEST.search(user_text):
        return True
    ordered = any(FILE_ORDER.match(s) for s in sentences(user_text) if not s.rstrip().endswith("?"))
    return ordered and bool(QUEUE.search(context))


# An order that starts the sentence: "Please file ...", "Could you raise ...", "Submit ...".
FILE_ORDER = re.compile(
    r"^\W*(?:(?:please|can you|could you|would you)\s+)?(?:file|raise|log|submit)\b", re.IGNORECASE
)


def _ticket(user_text: str, context: str) -> dict[str, Any]:
    args: dict[str, Any] = {"title": sentences(user_text)[0][:100], "body": context[:1500]}
    # "open a ticket in the procurement queue": the queue the user names for the new ticket (in
    # the sentence that asks for it, so "the one in their queue" is not taken for it) comes first.
    asking = next((s for s in sentences(user_text) if TICKET_REQUEST.search(s) or FILE_ORDER.match(s)), "")
    named = NAMED_QUEUE.search(asking)
    if named and not QUEUE.search(user_text):
        args["queue"] = named.group(1)
    # Otherwise a field from the line of the context most about the request: of two stored
    # routing rules, the one for what the user is talking about.
    # A line that says it revises the rule ("Revised 11 May: ... now given by @s.vandermeer") is
    # newer than one that does not, so among the lines about the request it routes first.
    wanted = lookup_keys(user_text)
    lines = sorted(
        enumerate(line for line in context.splitlines() if line.strip()),
        key=lambda item: (
            -min(key_overlap(lookup_keys(item[1]), wanted), 1),
            -bool(RECORD_CHANGE.search(item[1])),
            -key_overlap(lookup_keys(item[1]), wanted),
            item[0],
        ),
    )
    routed = [_routing_text(line) for _, line in lines]
    for key, pattern in (
        ("queue", QUEUE),
        ("priority", PRIORITY),
        ("assignee", ASSIGNEE),
        ("assignee", HANDLE),
    ):
        if key in args:
            continue
        # A plain handle names the assignee first in a line that revises the rule ("now given by
        # @s.vandermeer"), before any "assigned to" of an older line.
        revised = HANDLE if pattern is ASSIGNEE else None
        found = pattern.search(user_text) or next(
            (
                m
                for line in routed
                for p in (pattern, revised)
                if p is not None and (p is pattern or RECORD_CHANGE.search(line)) and (m := p.search(line))
            ),
            None,
        )
        if found:
            args[key] = found.group(found.lastindex or 0)  # ASSIGNEE's handle is its group
    return args


def _routing_text(line: str) -> str:
    """A context line as a source of routing: an existing record's own fields ("(status open,
    priority P3)", as ``_ticket_text`` shows them) describe that record, not the ticket to open."""
    return RECORD_FIELDS.sub("", line)


RECORD_FIELDS = re.compile(r"\((?:status|priority|assignee) [^)]*\)$")


def _held_texts(result: Any) -> list[str]:
    if not is_held(result):
        return []
    return [e["text"] for e in note_entries(result.get("notes")) + note_entries(result.get("skills"))]


# What follows "release" or "ship" in "the release queue", "release notes": not a service.
_NOT_A_SERVICE_TEXT = (
    "queue plan notes note train manager date channel window calendar schedule process checklist it"
)
NOT_A_SERVICE = frozenset(_NOT_A_SERVICE_TEXT.split())


def _deploy_target(user_text: str) -> str | None:
    match = re.search(r"\b(?:deploy|ship|roll out|release)\s+(?:the\s+)?([a-z][a-z0-9-]*)", user_text, re.I)
    return match.group(1) if match and match.group(1).lower() not in NOT_A_SERVICE else None


def _close_pass(policy: Policy, turn: Turn, replay: Replay, tools: OfferedTools) -> str:
    """E5: record each correction of the session and retire the note it replaces."""
    if not policy.curates:
        return "DONE"
    structured = tools.accepts("memory_update", "superseded_by")
    for text in turn.session_user_texts:
        for statement in worth_keeping(sentences(text)):
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
                        for i in replaced_notes(statement, others)
                    ]
                )
            else:
                replay.batch([("memory_delete", {"id": i}) for i in replaced_notes(statement, others)])
    return "DONE"


def _with_handles(text: str) -> str:
    """The text plus the chat handle of each full name in it ("Dara Voss" -> "@dara.voss"), so a
    correction that names a person finds the note that gave their handle."""
    names = re.findall(r"\b([A-Z][a-z]+) ([A-Z][a-z]+)\b", text)
    return " ".join([text, *(f"@{first.lower()}.{last.lower()}" for first, last in names)])


# -- the present: the world's records and the user's own statements (issue 29) ------------------


def _consult_world(
    user_text: str,
    replay: Replay,
    seen_doc: dict[str, Any] | None = None,
    recalled: list[str] | None = None,
) -> list[Record]:
    """Look up the records the request points at with the world's tools: a note, a ticket in a
    queue, a filed document, what is live, or whatever bears on a question about how things stand
    now. Only the few that match the request well come back, so the answer uses them and not the
    whole service (pasting everything asserts every wrong value in it too)."""
    wanted = lookup_keys(user_text)
    # A question about the present (not an order that says "now": "deploy it now").
    current = any(CURRENT_STATE.search(x) and QUESTION.search(x) for x in sentences(user_text))
    records: list[Record] = []
    notes_cued = bool(NOTE_LOOKUP.search(NOTE_VERB.sub("", user_text)))
    fresh = bool(NEWER_RECORD.search(user_text))
    if replay.has("notes_list") and notes_cued:
        records += _relevant_notes(replay, wanted, notes_cued, fresh)
    # A ticket the request refers to: one named by id, or "ticket"/"queue" outside a sentence that
    # only asks to open one.
    tickets_cued = bool(TICKET_ID.search(user_text)) or any(
        TICKET_WORD.search(s) and not TICKET_REQUEST.search(s) for s in sentences(user_text)
    )
    if replay.has("tickets_list") and tickets_cued:
        tickets = replay.call("tickets_list", {})
        tickets = [t for t in tickets if isinstance(t, dict)] if isinstance(tickets, list) else []
        records += [
            Record(f"the ticket {t.get('id')} ({t.get('title')}, {t.get('queue')} queue)", _ticket_text(t))
            for t in _relevant_tickets(user_text, wanted, tickets, tickets_cued)
        ]
    # "Filed in the compliance queue" points at the queue, not the archive.
    archive_cued = any(
        ARCHIVE_CUES.search(x) or (DOCUMENT_WORDS.search(x) and not TICKET_WORD.search(x))
        for x in sentences(user_text)
    )
    # The document the request is about, when the archive was not read for it already.
    # (A record the request pointed at is what it is about: no rummaging in the archive beside it.
    # Nor when its notes already speak to it: an archived document found by a loose search is not
    # newer than what the user told it; filed documents are often last year's, or a draft. Unless
    # the user says the record is newer: then it is what the answer must go by.)
    # The request says a record is newer than what was taught ("the latest call sheet is out"):
    # it is looked for whatever the notes say, among the notes and the filed documents both.
    # With nothing recalled, a question is looked up in the world too: the team's notes and
    # filed documents are where an agent without a memory finds what it is asked.
    asks = current or any(s.rstrip().endswith("?") for s in sentences(user_text))
    loose = not records and (fresh or (asks and not recalled))
    found: list[Record] = []
    if replay.has("notes_list") and loose and not notes_cued:
        found += _relevant_notes(replay, wanted, False, fresh)
    if replay.has("archive_search") and (archive_cued or loose) and wanted and seen_doc is None:
        found += _relevant_documents(replay, user_text, wanted, seen_doc)
    # Found by a loose search in two services: only the one most about the request.
    records += _most_about(found, wanted) if loose and not archive_cued else found
    if replay.has("deploys_list") and DEPLOY_LOOKUP.search(user_text):
        deploys = replay.call("deploys_list", {})
        deploys = [d for d in deploys if isinstance(d, dict)] if isinstance(deploys, list) else []
        records += _live_versions(user_text, deploys)
    return records


def _most_about(records: list[Record], wanted: set[str]) -> list[Record]:
    """The records sharing the most words with the request (where they come from counts: a note's
    or a document's title)."""
    scores = [key_overlap(lookup_keys(f"{r.source} {r.text}"), wanted) for r in records]
    return [r for r, score in zip(records, scores, strict=True) if score == max(scores)]


def _clear_matches(items: list[Any], scores: list[int], cued: bool, limit: int = 1) -> list[Any]:
    """The best-matching items: two shared words at least, or, when the request points at this
    service, the only item sharing one."""
    if not items:
        return []
    top = max(scores)
    best = [item for item, score in zip(items, scores, strict=True) if score == top]
    if top >= 2 or (cued and top == 1 and len(best) == 1):
        return best[:limit]
    return []


def _relevant_notes(replay: Replay, wanted: set[str], cued: bool, fresh: bool = False) -> list[Record]:
    titles = replay.call("notes_list", {})
    titles = [t for t in titles if isinstance(t, str)] if isinstance(titles, list) else []
    # Read the few whose titles share words with the request, then keep the clear matches.
    ranked = sorted(titles, key=lambda t: (-key_overlap(lookup_keys(t), wanted), t))
    candidates = [t for t in ranked if key_overlap(lookup_keys(t), wanted) > 0][:3]
    notes = replay.batch([("notes_read", {"title": t}) for t in candidates]) if candidates else []
    notes = [n for n in notes if isinstance(n, dict) and "body" in n]
    # The request asks for the update ("the notes had an update on ..."): the notes that say they
    # revise something are the ones it means, when there are any.
    revised = [n for n in notes if RECORD_CHANGE.search(f"{n.get('title', '')} {n['body']}")]
    notes = revised if fresh and revised else notes
    scores = [key_overlap(lookup_keys(f"{n.get('title', '')} {n['body']}"), wanted) for n in notes]
    return [
        Record(f"the note '{n.get('title')}'", str(n["body"]))
        for n in _clear_matches(notes, scores, cued, LOOKUP_LIMIT)
    ]


def _names(text: str) -> list[tuple[str, set[str]]]:
    """The names a request is about ("Fernhill Payments", "MFA"), as written and as keys: runs of
    capitalised words, less a lone capitalised word that only starts its sentence, and less days
    and months."""
    names = []
    for sentence in sentences(text):
        for match in re.finditer(r"\b[A-Z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*)*", sentence):
            # (The pronoun "I" is capitalised too, and names nothing.)
            run = [
                w
                for w in match.group(0).split()
                if w.lower() not in _CALENDAR_WORDS and not PRONOUN_I.match(w)
            ]
            if match.start() == 0 and len(match.group(0).split()) == 1:
                continue
            if run:
                names.append((" ".join(run), {stem(w) for w in run}))
    return names


PRONOUN_I = re.compile(r"I(?:['’][a-z]+)?$")
ACRONYM = re.compile(r"[A-Z]{2,3}$")


def _record_text(record: dict[str, Any]) -> str:
    strings = [str(v) for v in record.values() if isinstance(v, str)]
    return " ".join([*strings, *(record.get("tags") or [])])


def _record_keys(record: dict[str, Any]) -> set[str]:
    text = _record_text(record)
    return lookup_keys(text) | {stem(w) for w in re.findall(r"[\w&'.-]+", text)}


def _known_names(names: list[tuple[str, set[str]]], records: list[dict[str, Any]]) -> list[set[str]]:
    """The names that tell records apart. A short acronym ("PO", "HR") often stands for a common
    noun that a record spells out or leaves out, so it only counts when some record mentions it;
    a proper name always counts."""
    keys = [_record_keys(r) for r in records]
    return [n for written, n in names if not ACRONYM.match(written) or any(n <= k for k in keys)]


def _in_force(record: dict[str, Any], names: list[set[str]], years: set[int]) -> bool:
    """A record about what the request names (every word of every name), not a draft or a request
    not yet granted, and of the latest year its peers mention (a later one replaces it)."""
    text = _record_text(record)
    keys = _record_keys(record)
    if NOT_IN_FORCE.search(text) or any(not name <= keys for name in names):
        return False
    own = {int(y) for y in YEAR.findall(text)}
    return not own or not years or max(own) >= max(years)


def _relevant_documents(
    replay: Replay, user_text: str, wanted: set[str], seen_doc: dict[str, Any] | None
) -> list[Record]:
    """The archived document the request is about: the clear best match among those in force."""
    hits = replay.call("archive_search", {"query": " ".join(content_words(user_text))})
    hits = [h for h in hits if isinstance(h, dict)] if isinstance(hits, list) else []
    seen = str(seen_doc.get("id")) if seen_doc else None
    hits = [h for h in hits if str(h.get("id")) != seen]
    years = {int(y) for h in hits for y in YEAR.findall(f"{h.get('title', '')} {h.get('snippet', '')}")}
    names = _known_names(_names(user_text), hits)
    hits = [h for h in hits if _in_force(h, names, years)]
    scores = [
        key_overlap(
            lookup_keys(f"{h.get('title', '')} {h.get('snippet', '')} {' '.join(h.get('tags') or [])}"),
            wanted,
        )
        for h in hits
    ]
    # Filed documents are alike (a retrospective and its follow-up): only a clear winner is read.
    ranked = sorted(scores, reverse=True)
    if not ranked or ranked[0] < 2 or (len(ranked) > 1 and ranked[1] == ranked[0]):
        return []
    chosen = [hits[scores.index(ranked[0])]]
    docs = replay.batch([("archive_read", {"id": str(h.get("id"))}) for h in chosen]) if chosen else []
    return [
        Record(f"the archived document {d.get('id')} ({d.get('title')})", str(d["body"]))
        for d in docs
        if isinstance(d, dict) and "body" in d
    ]


def _ticket_text(ticket: dict[str, Any]) -> str:
    fields = ", ".join(f"{k} {ticket[k]}" for k in ("status", "priority", "assignee") if ticket.get(k))
    return f"{ticket.get('title', '')}. {ticket.get('body', '')}".strip() + (f" ({fields})" if fields else "")


def _relevant_tickets(
    user_text: str, wanted: set[str], tickets: list[dict[str, Any]], cued: bool
) -> list[dict[str, Any]]:
    """Tickets the request names (by id), else the clear match in the queue it names (its newest
    ticket when none matches clearly: "it's in their queue"), else the clear match anywhere."""
    named = set(TICKET_ID.findall(user_text))
    by_id = [t for t in tickets if str(t.get("id")) in named]
    if by_id:
        return by_id[:LOOKUP_LIMIT]
    queues = {stem(m.group(1)) for m in re.finditer(r"\b([\w-]+)\s+queue\b", user_text, re.IGNORECASE)}
    in_queue = [t for t in tickets if stem(str(t.get("queue", ""))) in queues]
    pool = in_queue or tickets
    scores = [key_overlap(lookup_keys(f"{t.get('title', '')} {t.get('body', '')}"), wanted) for t in pool]
    best = _clear_matches(pool, scores, cued or bool(in_queue))
    return best or (pool[-1:] if in_queue else [])


def _live_versions(user_text: str, deploys: list[dict[str, Any]]) -> list[Record]:
    """The latest deploy of each service the request names (of every service when it names none)."""
    latest: dict[str, dict[str, Any]] = {}
    for deploy in sorted(deploys, key=lambda d: str(d.get("at", ""))):
        latest[str(deploy.get("service", ""))] = deploy
    text = user_text.lower()
    named = [s for s in latest if s and s.lower() in text]
    return [
        Record(
            "the deploy log",
            f"{d.get('service')} {d.get('version')} is live, deployed {d.get('at')}"
            + (f" by {d.get('by')}" if d.get("by") else ""),
        )
        for s, d in sorted(latest.items())
        if s in (named or list(latest))
    ]


def _stated(user_text: str) -> list[str]:
    """The user's own statements that give a value (a deadline, an amount, a handle) or override
    what was taught ("this time, X instead"): the present the answer acts on and restates. A
    question restates nothing; nor does a statement that reports someone's question ("the team
    reports how many Pier 4 devices run ..."): restating it would assert what it names in passing."""
    return [
        s
        for s in sentences(user_text)
        if not s.rstrip().endswith("?")
        and not REPORTED.search(s)
        and (OVERRIDE_CUES.search(s) or any(c.isdigit() for c in s) or HANDLE.search(s))
    ]


def _overrides(user_text: str) -> list[Record]:
    """The user's statements that replace what was taught ("this time, X instead"): newer than
    any note."""
    return [Record("what you said", s) for s in _stated(user_text) if OVERRIDE_CUES.search(s)]


def _superseding(note: str, present: list[Record], asked: str = "") -> list[tuple[Record, str]]:
    """The present sentences that may replace a note, with their records: about the same thing
    (two shared words) and either giving other values than the note or saying it changed ("now",
    "instead", "this time")."""
    note_keys, note_values = lookup_keys(note), _typed_values(note)
    # The request saying the world holds a newer note, notice or page ("QA put out a new bulletin
    # this month", "the notes had an update") makes the records it looked up newer than any note,
    # whether or not they say so themselves. Not a ticket: "engineering posted a fault ticket"
    # reports what happened beside the rule, it does not restate the rule (a clause each: "open
    # the ticket; the note was revised" speaks of a revised note).
    # (A clause ends at ";", "!", "?" or a period before a space: "6.4.0" is one version.)
    clauses = re.split(r"[;!?]|\.(?=\s|$)", asked)
    told_newer = any(NEWER_RECORD.search(c) and not TICKET_WORD.search(c) for c in clauses)
    found = []
    for record in present:
        record_changed = bool(
            RECORD_CHANGE.search(f"{record.source} {record.text}")
            or CORRECTION_CUES.search(record.text)
            or OVERRIDE_CUES.search(record.text)
            or (told_newer and record.source != "what you said")
        )
        for sentence in sentences(record.text):
            # The user's own override is about their request as a whole ("this time, file it in
            # OPS-NIGHT instead" about the disk alert the message is about).
            about = (
                lookup_keys(f"{sentence} {asked}")
                if record.source == "what you said"
                else lookup_keys(sentence)
            )
            changed = CORRECTION_CUES.search(sentence) or OVERRIDE_CUES.search(sentence)
            # Two shared words make a note about the same thing; so does one, when it is what the
            # request asks about and the sentence says that changed ("where do they rehearse?":
            # "they now rehearse at the church hall" against "rehearsals are at the Wesley Rooms").
            topic = about & lookup_keys(asked)
            if key_overlap(about, note_keys) < 2 and not (changed and key_overlap(note_keys, topic) >= 1):
                continue
            values = _typed_values(sentence)
            # Other values alone may be another attribute ("37 devices today" beside "a limit of
            # 40"): they replace the note when the record says it changed something.
            revised = changed or record_changed
            if revised and ((note_values - values and values - note_values) or changed):
                found.append((record, sentence))
    return found


def _split_outdated(note: str, newer: str, record: str = "", asked: str = "") -> tuple[list[str], list[str]]:
    """(clauses that still hold, clauses the newer sentence replaces) of a note. A clause is
    replaced when it is about what the sentence is about and the sentence gives another value of
    the same kind ("the retention is 45 days" against "the retention is now 90 days", "the
    contract is with Inkwell" against "the contract moved to Papyra"); "the owner is @ines.b" in
    the same note still holds. With no such clause nothing is replaced: a word of change about the
    same thing is not enough to discard a note that gives no value of the kind the present does."""
    clauses = [c.strip(" .") for c in re.split(r"[,;]\s+(?:and\s+|but\s+)?|\s+(?:and|but|while)\s+", note)]
    clauses = [c for c in clauses if c]
    keys, new_values = lookup_keys(newer), _typed_values(newer)
    named = _named_in(asked)  # what the request names (the site, the customer) is not replaced
    # When the record speaks of some of the note's names ("Dev is on leave"), those are the ones
    # it replaces; a name it never mentions ("Carys Pugh") is not in question.
    spoken = {w.lower() for w in re.findall(r"\b[A-Z][a-z][\w-]*", record)} - named
    note_names = {v for k, v in _typed_values(note) if k == "name"} - named

    def replaced(clause: str) -> bool:
        # (A clause's first word is no sentence start: "Dev Malhotra" names Dev.)
        mine = {
            (k, v)
            for k, v in _typed_values(clause) | _typed_values(f"x {clause}")
            if v not in named and v not in STOPWORDS
        }
        if spoken & note_names:
            mine = {(k, v) for k, v in mine if k != "name" or v in spoken}
        kinds = {k for k, _ in mine - new_values} & {k for k, _ in new_values - mine}
        about = key_overlap(lookup_keys(clause), keys) >= 1 or any(
            k == "name" and v in spoken for k, v in mine
        )
        # A limit ("at most 250,000 rows") is replaced by another limit, not by a measurement
        # ("the dataset now holds 212,400 rows" is how much there is, under the same cap).
        other_attribute = bool(BOUND.search(clause)) and not BOUND.search(newer)
        return bool(kinds) and about and not other_attribute

    old = [c for c in clauses if replaced(c)]
    if not old:
        return [note], []
    return [c for c in clauses if c not in old], old


BOUND = re.compile(
    r"\b(?:at most|at least|up to|no more than|not more than|no less than|no fewer than|maximum|minimum"
    r"|cap|capped|limit|limited|ceiling|floor|threshold)\b",
    re.IGNORECASE,
)


def _named_in(asked: str) -> set[str]:
    """Every word and value of the user's request, lower-cased and stemmed too."""
    words_ = {w.strip(TOKEN_EDGES) for w in asked.lower().split()} | lookup_keys(asked)
    return {v for _, v in _typed_values(asked)} | words_ | {stem(w) for w in words_}


def _mark_old(clause: str, newer: str, asked: str = "") -> str:
    """The clause with "(old)" after each run of value words holding a value the newer sentence
    replaced ("1,800 (old) requests per minute", "Dev Malhotra (old)"): each old value is named as
    old where it stands, not only at the end of a long clause. Only values of a kind the newer
    sentence gives anew are replaced, and never what the user's request itself names (the
    customer, the service)."""
    mine, theirs = _typed_values(clause), _typed_values(newer)
    kinds = {k for k, _ in mine - theirs} & {k for k, _ in theirs - mine}
    named = _named_in(asked)
    replaced = {v for k, v in mine - theirs if k in kinds and v not in named and stem(v) not in named}
    tokens = clause.split()
    marked: list[str] = []
    run_has_old = False
    for n, token in enumerate(tokens):
        values = {v for _, v in _typed_values(token)} | {v for _, v in _typed_values(f"x {token}")}
        marked.append(token)
        run_has_old = run_has_old or bool(values & replaced)
        following = tokens[n + 1] if n + 1 < len(tokens) else ""
        next_is_value = bool(following) and bool(_typed_values(f"x {following}"))
        if run_has_old and (not values or not next_is_value):
            if values:
                marked[-1] = f"{token} (old)"
            run_has_old = False
        elif not values:
            run_has_old = False
    if not any(m.endswith("(old)") for m in marked):
        return " ".join(marked)
    # What the note called new or current no longer is: restated as old, it says so without those
    # words ("New date is 24 March (old)" is the old date, and reads "date is 24 March (old)").
    return " ".join(m for m in marked if m.strip(TOKEN_EDGES).lower() not in CURRENCY_WORDS)


CURRENCY_WORDS = frozenset({"new", "now", "currently", "current", "latest", "instead", "still"})


def _typed_values(text: str) -> set[tuple[str, str]]:
    """(kind, value) of the value-like words: handles, numbers and codes, and names."""
    found = {
        ("handle" if v.startswith("@") else _shape(v), v)
        for v in value_words(text)
        if v.startswith("@") or any(c.isdigit() for c in v)
    }
    found |= {
        ("code", v) for v in value_words(text) if not v.startswith("@") and not any(c.isdigit() for c in v)
    }
    found |= {("handle", h.lower()) for h in HANDLE.findall(text.lower())}
    # A hyphenated term is a label or a name too ("post-cut", "cut-exception").
    found |= {("term", w) for w in words(text) if "-" in w.strip("-") and not any(c.isdigit() for c in w)}
    return found | {("name", v) for v in names_in(text)}


def _shape(value: str) -> str:
    """The kind of a value with digits, from its form: a value replaces another of the same form
    (a rate another rate, a version another version, a code another code of its pattern), not a
    value of another attribute the same record happens to give ("99.91% of sessions" leaves a
    "2.9" release as it was; a change id "CHG-30417" does not replace a region "ap-southeast-2").
    Amounts, counts and durations are one form: "1,800", "$950" and "2.5" may replace each other."""
    bare = value.lstrip("$€£¥").replace(",", "")
    if ":" in bare:
        return "time"
    if bare.endswith("%"):
        return "percent"
    if re.fullmatch(r"\d+(?:\.\d+)?[a-z]{0,3}", bare):
        return "number"
    if re.fullmatch(r"v?\d+(?:\.\d+){2,}", bare):
        return "version"
    return "code:" + re.sub(r"[a-z]+", "a", re.sub(r"\d+", "9", bare))


def _present(records: list[Record], archive_doc: dict[str, Any] | None) -> list[Record]:
    """The world's records the turn looked up, the archived document it read among them."""
    present = list(records)
    if archive_doc:
        source = f"the archived document {archive_doc.get('id')} ({archive_doc.get('title')})"
        present.append(Record(source, str(archive_doc["body"])))
    return present


def _against_the_present(
    recalled: list[str], present: list[Record], user_text: str
) -> list[tuple[list[str], list[tuple[str, str, Record]]]]:
    """Per note: (the clauses that still hold, the clauses the present replaced, each with the
    sentence and the record that replaced it). The present wins over a note about the same thing:
    the user's override ("this time, X instead") and a record of the world that is newer."""
    told = _overrides(user_text)
    weighed: list[tuple[list[str], list[tuple[str, str, Record]]]] = []
    for text in recalled:
        holds: list[str] = [text]
        old: list[tuple[str, str, Record]] = []
        for record, sentence in _superseding(text, [*told, *present], user_text):
            holds, replaced = (
                _split_outdated(", ".join(holds), sentence, record.text, user_text) if holds else ([], [])
            )
            old += [(clause, sentence, record) for clause in replaced]
        weighed.append((holds, old))
    return weighed


def _rerouted(clause: str, newer: str) -> set[str]:
    """The clause's queues, priorities and assignees the newer sentence gives otherwise: a record
    that changes how long a grant lasts leaves the queue the grant is filed in as it was."""
    found: set[str] = set()
    for pattern in (QUEUE, PRIORITY, HANDLE):
        mine, theirs = set(pattern.findall(clause)), set(pattern.findall(newer))
        if mine and theirs and not mine & theirs:
            found |= mine
    return found


def _compose_answer(
    recalled: list[str],
    archive_doc: dict[str, Any] | None,
    actions: list[str],
    policy: Policy,
    records: list[Record] = (),  # type: ignore[assignment]
    user_text: str = "",
) -> str:
    parts: list[str] = []
    stated = _stated(user_text)
    outdated: list[tuple[str, Record]] = []
    if policy.curates:
        # The clauses the present replaced are named as outdated, each on its own line, their old
        # values marked where they stand; the rest of the note still holds.
        weighed = _against_the_present(recalled, _present(records, archive_doc), user_text)
        recalled = [", ".join(holds) for holds, _ in weighed if holds]
        outdated = [(_mark_old(c, newer, user_text), r) for _, old in weighed for c, newer, r in old]
    if recalled:
        parts.append("From my notes:\n" + "\n".join(f"- {text}" for text in recalled))
    if archive_doc:
        parts.append(
            f"From the archive ({archive_doc.get('id')}: {archive_doc.get('title')}):\n{archive_doc['body']}"
        )
    for record in records:
        parts.append(f"From {record.source}:\n{record.text}")
    if stated:
        parts.append("As you said:\n" + "\n".join(f"- {s}" for s in stated))
    for old, newer in outdated:
        parts.append(f"Outdated: my old note said {old} (old, replaced: {newer.source} is newer).")
    parts.extend(actions)
    if not parts:
        parts.append(
            "I have nothing stored about this, so I can't rely on earlier context; "
            "tell me the details and I'll take it from there."
            if policy.uses_store
            else "I don't have earlier context for this; tell me the details and I'll take it from there."
        )
    return "\n\n".join(parts)
