"""The offline reference policies on stream tickets (protocols/stream): honest learners that see
only the conversation, never the hidden rules.

Every policy applies the rules it is shown (the documented policy, and under the Oracle harness
the active rules). What differs is learning from outcome feedback:

- ``blind`` keeps nothing and ignores retrieved examples: it always answers by the document.
- ``recall`` writes every scored ticket as its own memory note and, on a new ticket, learns from
  the few notes a lexical memory search returns (and from retrieved examples under RAG). Notes
  are never revised, so stale outcomes linger in what it retrieves.
- ``curator`` keeps one curated rulebook note per action: the most recent scored tickets (older
  ones drop out, so a withdrawn rule fades), and learns from the ones most like the new ticket
  (most facts in common), in the order they happened.

The learner (``choose``) induces exceptions to the document from scored tickets: a condition of
one or two facts shared with a ticket that scored 100 with a non-documented answer, kept while the
most recent tickets under that condition agree. With no such exception it answers by the document,
except that on serving tickets, after repeated failures under a condition, it explores: it tries
the options in turn, skipping those whose latest outcome under that condition was a failure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from ..shared.replay import Emit, Policy, Replay, current_turn, note_entries, runtime_reply
from .rules import Clause, Facts, Rule, correct_answer, parse_rule
from .tickets import (
    DOCUMENTED_HEADER,
    EXAMPLES_HEADER,
    FACTS_HEADER,
    FEEDBACK_MARKER,
    OPTIONS_PREFIX,
    ORACLE_HEADER,
    TICKET_MARKER,
)

RECENT = 3  # scored tickets under a condition that decide whether it holds now
EXPLORE_MEMORY = 8  # scored tickets under a doubted condition that say what was tried
RULEBOOK_SIZE = 80  # curator: scored tickets kept per action
NEAREST = 6  # curator: the rulebook tickets most like a new one, which it learns from
_HEADER = re.compile(r"^\[pastbench stream (?:ticket|feedback)\] (\w+) #(\d+) (serving|test) (\S+)")
_OBSERVATION = re.compile(r"#(\d+) (\S+=\S+(?:; \S+=\S+)*) \| answered=(\S+) \| score=(\d+)")
_SCORE = re.compile(r"^Score: (\d+)/100", re.MULTILINE)
_GIVEN = re.compile(r"^Your answer to serving ticket \S+ was: (\S+)", re.MULTILINE)


@dataclass(frozen=True)
class Observation:
    seq: int
    facts: dict[str, str | int]
    answer: str
    score: int

    def line(self) -> str:
        facts = "; ".join(f"{k}={v}" for k, v in self.facts.items())
        return f"#{self.seq} {facts} | answered={self.answer} | score={self.score}"


@dataclass
class Ticket:
    domain: str
    seq: int
    phase: str
    facts: dict[str, str | int]
    documented: list[Rule]
    oracle: list[Rule]
    examples: list[Observation]
    options: list[str]

    @property
    def action(self) -> str:
        return str(self.facts.get("action", ""))

    def documented_answer(self, facts: Facts) -> str:
        return correct_answer(facts, self.documented)


def is_stream_conversation(messages: list[dict[str, Any]]) -> bool:
    # The user's own turn, not a runtime note of Hermes' mechanisms (E4, E5) that followed it.
    return current_turn(messages).user_text.startswith((TICKET_MARKER, FEEDBACK_MARKER))


def decide(policy: Policy, messages: list[dict[str, Any]], tool_names: set[str]) -> dict[str, Any]:
    """The next assistant message on a stream ticket or feedback (same shape as policies.decide)."""
    turn = current_turn(messages)
    user_text, done = turn.user_text, turn.done
    reply = runtime_reply(turn)
    if reply is not None:
        return {"content": reply}
    replay = Replay(done, tool_names)
    try:
        if user_text.startswith(FEEDBACK_MARKER):
            _remember(policy, user_text, replay)
            return {"content": "OK"}
        return {"content": f"ANSWER: {_answer(policy, parse_ticket(user_text), replay)}"}
    except Emit as emit:
        return {"tool_calls": emit.calls}


# -- reading the messages ---------------------------------------------------------------------------


def parse_ticket(text: str) -> Ticket:
    lines = text.splitlines()
    header = _HEADER.match(lines[0]) if lines else None
    domain, seq, phase = (
        (header.group(1), int(header.group(2)), header.group(3)) if header else ("", 0, "test")
    )
    blocks: dict[str, list[str]] = {}
    current = None
    options: list[str] = []
    for line in lines[1:]:
        if line in (FACTS_HEADER, DOCUMENTED_HEADER, ORACLE_HEADER, EXAMPLES_HEADER):
            current = line
            blocks[current] = []
        elif line.startswith(OPTIONS_PREFIX):
            options = [o.strip() for o in line[len(OPTIONS_PREFIX) :].split("|") if o.strip()]
            current = None
        elif current is not None and line.startswith("- "):
            blocks[current].append(line[2:])
        else:
            current = None
    facts: dict[str, str | int] = {}
    for line in blocks.get(FACTS_HEADER, []):
        name, _, value = line.partition(": ")
        facts[name.strip()] = _value(value.strip())
    rules = {
        key: [r for r in map(parse_rule, blocks.get(key, [])) if r]
        for key in (DOCUMENTED_HEADER, ORACLE_HEADER)
    }
    examples = [o for o in map(parse_observation, blocks.get(EXAMPLES_HEADER, [])) if o]
    return Ticket(
        domain, seq, phase, facts, rules[DOCUMENTED_HEADER], rules[ORACLE_HEADER], examples, options
    )


def parse_observation(text: str) -> Observation | None:
    match = _OBSERVATION.search(text)
    if match is None:
        return None
    facts = {}
    for pair in match.group(2).split("; "):
        name, _, value = pair.partition("=")
        facts[name] = _value(value)
    return Observation(int(match.group(1)), facts, match.group(3), int(match.group(4)))


def _value(raw: str) -> str | int:
    return int(raw) if raw.isdigit() else raw


# -- acting -----------------------------------------------------------------------------------------


def _answer(policy: Policy, ticket: Ticket, replay: Replay) -> str:
    if ticket.oracle or not policy.uses_store:
        # Rules in view decide; blind learns nothing (and ignores retrieved examples).
        return (
            correct_answer(ticket.facts, ticket.documented, ticket.oracle)
            if ticket.documented
            else ticket.options[0]
        )
    observations = list(ticket.examples)
    if policy.curates:
        observations += _nearest(ticket, _rulebook(replay, ticket.domain, ticket.action)[1])
    else:
        hits = note_entries(replay.call("memory_search", {"query": _ticket_query(ticket)}))
        observations += [o for o in (parse_observation(h["text"]) for h in hits) if o]
    return choose(ticket, observations, explore=ticket.phase == "serving")


def _remember(policy: Policy, text: str, replay: Replay) -> None:
    if not policy.uses_store:
        return
    ticket = parse_ticket(
        text[text.index("The ticket was:") :].replace("The ticket was:", text.splitlines()[0], 1)
    )
    given, score = _GIVEN.search(text), _SCORE.search(text)
    if given is None or score is None:
        return
    observation = Observation(ticket.seq, ticket.facts, given.group(1), int(score.group(1)))
    if not policy.curates:
        replay.call("memory_write", {"text": f"stream ticket {ticket.domain} {observation.line()}"})
        return
    entry_id, kept = _rulebook(replay, ticket.domain, ticket.action)
    kept = [*kept, observation][-RULEBOOK_SIZE:]
    body = "\n".join([_rulebook_title(ticket.domain, ticket.action), *(o.line() for o in kept)])
    if entry_id is None:
        replay.call("memory_write", {"text": body, "tags": ["stream", ticket.domain, ticket.action]})
    else:
        replay.call("memory_update", {"id": entry_id, "text": body})


def _nearest(ticket: Ticket, observations: list[Observation]) -> list[Observation]:
    """The scored tickets most like this one (most facts in common; the latest on ties)."""

    def shared(observation: Observation) -> int:
        return sum(1 for k, v in ticket.facts.items() if observation.facts.get(k) == v)

    ranked = sorted(observations, key=lambda o: (shared(o), o.seq), reverse=True)[:NEAREST]
    return sorted(ranked, key=lambda o: o.seq)


def _rulebook_title(domain: str, action: str) -> str:
    return f"stream rulebook {domain} {action}"


def _rulebook(replay: Replay, domain: str, action: str) -> tuple[str | None, list[Observation]]:
    title = _rulebook_title(domain, action)
    for hit in note_entries(replay.call("memory_search", {"query": title})):
        lines = hit["text"].splitlines()
        if lines and lines[0] == title:
            return str(hit.get("id")), [o for o in map(parse_observation, lines[1:]) if o]
    return None, []


def _ticket_query(ticket: Ticket) -> str:
    return " ".join(["stream", "ticket", ticket.domain, *(str(v) for v in ticket.facts.values())])


# -- learning ---------------------------------------------------------------------------------------


def choose(ticket: Ticket, observations: list[Observation], explore: bool) -> str:
    """The answer for ``ticket`` given scored past tickets (see the module docstring)."""
    documented = ticket.documented_answer(ticket.facts)
    seen: dict[int, Observation] = {}
    for observation in observations:
        if observation.facts.get("action") == ticket.action:
            seen.setdefault(observation.seq, observation)
    group = [
        o for _, o in sorted(seen.items()) if ticket.documented_answer(o.facts) == documented
    ]  # same action, same documented answer: deviations from it are what there is to learn
    if not group:
        return documented
    cache: dict[tuple[Clause, ...], list[Observation]] = {}

    def under(condition: tuple[Clause, ...]) -> list[Observation]:
        if condition not in cache:
            cache[condition] = [o for o in group if all(c.matches(o.facts) for c in condition)]
        return cache[condition]

    def failed_since_support(condition: tuple[Clause, ...], answer: str) -> bool:
        """The answer failed after its latest success under the condition or under any one of
        its facts: the exception has been withdrawn (or was never this general)."""
        support = max((o.seq for o in under(condition) if o.score == 100 and o.answer == answer), default=-1)
        return any(
            o.score == 0 and o.answer == answer and o.seq > support
            for part in (condition, *((clause,) for clause in condition))
            for o in under(part)[-RECENT:]
        )

    best: tuple[Any, ...] | None = None
    for source in group:
        if source.score != 100 or source.answer == documented:
            continue
        for condition in _conditions(source.facts, ticket.facts):
            history = under(condition)
            recent = history[-RECENT:]
            hits = sum(1 for o in recent if o.score == 100 and o.answer == source.answer)
            others = sum(1 for o in recent if o.score == 100 and o.answer != source.answer)
            # ... and over a longer stretch it must still be what works most often there.
            longer = history[-2 * RECENT :]
            longer_hits = sum(1 for o in longer if o.score == 100 and o.answer == source.answer)
            longer_others = sum(1 for o in longer if o.score == 100 and o.answer != source.answer)
            if (
                hits > others
                and longer_hits > longer_others
                and not failed_since_support(condition, source.answer)
            ):
                key = (hits - others, len(history), len(condition), recent[-1].seq, source.answer)
                best = max(best, key) if best else key
    if best is not None:
        return str(best[-1])
    if explore:
        return _explore(ticket, group, documented, under)
    return documented


def _explore(ticket: Ticket, group: list[Observation], documented: str, under: Any) -> str:
    doubt: tuple[Any, ...] | None = None
    for source in group:
        if source.score != 0:
            continue
        for condition in _conditions(source.facts, ticket.facts):
            history = under(condition)
            recent = history[-RECENT:]
            failures = sum(1 for o in recent if o.score == 0)
            if recent[-1].score == 0 and failures >= len(recent) - failures:
                key = (failures, len(condition), recent[-1].seq)
                if doubt is None or key > doubt[0]:
                    doubt = (key, condition)
    if doubt is None:
        return documented
    # Answers whose latest outcome under that condition was a failure have been tried.
    latest: dict[str, int] = {}
    for observation in under(doubt[1])[-EXPLORE_MEMORY:]:
        latest[observation.answer] = observation.score
    for candidate in [documented, *ticket.options]:
        if latest.get(candidate) != 0:
            return candidate
    return documented


def _conditions(source: Facts, target: Facts) -> list[tuple[Clause, ...]]:
    """Conditions of one or two facts that hold on both tickets (numbers: the side of the
    source's value the target is on)."""
    agreements = []
    for name, value in target.items():
        if name == "action" or name not in source:
            continue
        other = source[name]
        if isinstance(value, int) and isinstance(other, int):
            if value >= other:
                agreements.append(Clause(name, "above", other - 1))
            if value <= other:
                agreements.append(Clause(name, "at most", other))
        elif str(value) == str(other):
            agreements.append(Clause(name, "is", str(value)))
    return [(a,) for a in agreements] + [
        pair for pair in combinations(agreements, 2) if pair[0].field != pair[1].field
    ]
