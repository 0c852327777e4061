"""Agents that try to earn S without reusing what they stored (issue #15, item 8: the S part).

Each is an ``Agent`` (``run_session(ctx) -> AgentResult``), so it plugs into the plugin the way any
agent does (``--pastbench-agent=tests.adversarial.agents:empty``) and into ``engine.run`` directly.

- ``empty``: answers nothing, does nothing.
- ``echo``: answers with the user's own words.
- ``dump``: calls every search and list tool on the prompt and pastes every result.
- ``cross_episode``: answers with the values the *other* episodes of its family check (a test
  adversary may read family files; the reference policies may not).
- ``paraphrase``: a reference policy that answers from the notes it retrieved (``ParaphraseModel``,
  the harness uses ``pastbench/curator`` on Hermes with every mechanism), restating its answer:
  numbers and ordinals spelled out, "the" dropped, lower case.
- ``verbatim``: the same policy, answering as it is.
- ``stale_trust``: trusts its store over the present (issue 29). With nothing stored it does the
  work from the prompt and the world like the reference policies; once its notes speak about the
  request it applies them alone, as current, in its answer and in its actions (a ticket routed and
  written by the stored rule), even where a record of the world or the user's own message is
  newer. Its memory makes it worse than no memory where the present supersedes the store, so its
  Δ there must be below 0 (``StaleTrustModel``, run on Hermes).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_pastbench.agents.base import AgentResult, HermesAgent, SessionContext
from pytest_pastbench.core.text import content_words
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.models.direct import PolicyModel
from pytest_pastbench.protocols.past.offline_policy import ASSIGNEE, HANDLE, PRIORITY, QUEUE
from pytest_pastbench.protocols.past.schema import Family
from pytest_pastbench.protocols.shared.replay import current_turn, note_entries
from pytest_pastbench.protocols.shared.schema import answer_values


class _Scripted:
    """An agent that needs no model: it decides from the user turns and tool results alone."""

    name = "adversary"
    mechanisms: list[str] = []

    def run_session(self, ctx: SessionContext) -> AgentResult:
        return AgentResult(answer=self.answer(ctx))

    def answer(self, ctx: SessionContext) -> str:
        raise NotImplementedError


class EmptyAgent(_Scripted):
    name = "empty"

    def answer(self, ctx: SessionContext) -> str:
        return ""


class EchoAgent(_Scripted):
    name = "echo"

    def answer(self, ctx: SessionContext) -> str:
        return "\n".join(ctx.user_turns)


# Every read-only tool that lists or searches, with the argument it takes (None: no argument).
_SEARCHES = {"memory_search": "query", "skill_search": "query", "archive_search": "query"}
_LISTS = ("notes_list", "tickets_list", "deploys_list")


class DumpAgent(_Scripted):
    """Never writes; searches everything for every content word of the prompt and pastes it all."""

    name = "dump"

    def answer(self, ctx: SessionContext) -> str:
        outputs: list[str] = []
        prompt = " ".join(ctx.user_turns)
        for tool, arg in _SEARCHES.items():
            _, text = ctx.run_tool(tool, {arg: prompt})
            outputs.append(text)
            for word in content_words(prompt):
                _, text = ctx.run_tool(tool, {arg: word})
                outputs.append(text)
        for tool in _LISTS:
            _, text = ctx.run_tool(tool, {})
            outputs.append(text)
        for doc_id in sorted(set(re.findall(r'"id": "(DOC-[^"]+)"', "\n".join(outputs)))):
            _, text = ctx.run_tool("archive_read", {"id": doc_id})
            outputs.append(text)
        for title in sorted(set(re.findall(r'"title": "([^"]+)"', "\n".join(outputs)))):
            call, text = ctx.run_tool("notes_read", {"title": title})
            if call.ok:
                outputs.append(text)
        return "\n".join(_plain(o) for o in dict.fromkeys(outputs))


def _plain(output: str) -> str:
    """Tool output as readable text (the strings of its JSON), as a dumping agent would paste it."""
    try:
        value = json.loads(output)
    except json.JSONDecodeError:
        return output
    return "\n".join(_strings(value))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


class CrossEpisodeAgent(_Scripted):
    """Answers with every value the other episodes of its family check (one agent per episode)."""

    name = "cross_episode"

    def __init__(self, family: Family, episode_id: str) -> None:
        values = [
            value
            for episode in family.episodes
            if episode.id != episode_id
            for session in episode.eval_sessions()
            for check in session.checks
            for value in answer_values(check)
        ]
        self.values = list(dict.fromkeys(values))

    def answer(self, ctx: SessionContext) -> str:
        return "Based on what we did before: " + "; ".join(self.values) + "."


_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_ORDINAL = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
            "nine": "ninth", "twelve": "twelfth"}  # fmt: skip


def spell(number: int) -> str:
    """0 <= number < 1,000,000 in words ("twenty-one", "two thousand twenty-six")."""
    if number < 20:
        return _UNITS[number]
    if number < 100:
        tens, unit = divmod(number, 10)
        return _TENS[tens] + (f"-{_UNITS[unit]}" if unit else "")
    if number < 1000:
        hundreds, rest = divmod(number, 100)
        return f"{_UNITS[hundreds]} hundred" + (f" {spell(rest)}" if rest else "")
    thousands, rest = divmod(number, 1000)
    return f"{spell(thousands)} thousand" + (f" {spell(rest)}" if rest else "")


def spell_ordinal(number: int) -> str:
    words = spell(number)
    head, sep, last = words.rpartition("-") if "-" in words else words.rpartition(" ")
    if last in _ORDINAL:
        last = _ORDINAL[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last += "th"
    return f"{head}{sep}{last}"


# A standalone integer (not part of an id, a version, a decimal, a handle or a path).
_INTEGER = re.compile(r"(?<![\w.@/-])(\d{1,3}(?:,\d{3})+|\d+)(st|nd|rd|th)?(?![\w./-]|,\d)")


def paraphrase(text: str) -> str:
    """Restate ``text``: integers and ordinals spelled out, "the" dropped, lower case."""

    def words(match: re.Match[str]) -> str:
        number = int(match[1].replace(",", ""))
        if number >= 1_000_000:
            return match[0]
        return spell_ordinal(number) if match[2] else spell(number)

    text = _INTEGER.sub(words, text)
    text = re.sub(r"\bthe\s+", "", text, flags=re.IGNORECASE)
    return text.lower()


class ParaphraseModel:
    """A reference policy whose final answers are restated by ``paraphrase`` (tool calls unchanged)."""

    def __init__(self, policy: str = "recall") -> None:
        self.inner = PolicyModel(policy)
        self.model = f"{self.inner.model}+paraphrase"

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        reply = self.inner.complete(messages, tools, **params)
        if reply.tool_calls or reply.content is None:
            return reply
        return ModelReply(content=paraphrase(reply.content))


def empty() -> EmptyAgent:
    return EmptyAgent()


def echo() -> EchoAgent:
    return EchoAgent()


def dump() -> DumpAgent:
    return DumpAgent()


def verbatim() -> HermesAgent:
    """The verbatim agent is Hermes with every mechanism; run it with ``pastbench/curator``."""
    return HermesAgent(name="verbatim", mechanisms=["all"])


# The blocks of a reference policy's answer that come from its store (offline_policy.py writes
# them: "From my notes:" lines, and "Outdated: my old note said ..." for what it found outdated).
_NOTES_BLOCK = "From my notes:\n"
_OUTDATED_NOTE = re.compile(r"^Outdated: my old note said (.*) \(old, replaced: ", re.MULTILINE)


class StaleTrustModel:
    """A reference policy (``pastbench/recall`` in the harness: it always searches its memory)
    that, once it recalled anything, applies what it stored over newer evidence, in what it says
    and in what it does:

    - its final answer is its notes alone (any it found outdated restated as current) and its
      actions; the world's records and the user's own statements are dropped;
    - a ticket it opens is filed by its notes alone: the body is what it recalled, and each routing
      field (queue, priority, assignee) is what its notes give, whatever the request or the world
      now says ("this time it goes to @deputy instead" is ignored); a field its notes do not give
      is left unset (the policy took it from the present, which this agent does not read).

    With nothing recalled it is the policy, unchanged: the present is all it has."""

    def __init__(self, policy: str = "recall") -> None:
        self.inner = PolicyModel(policy)
        self.model = f"{self.inner.model}+stale-trust"

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        reply = self.inner.complete(messages, tools, **params)
        if reply.tool_calls:
            notes = recalled(messages)
            if not notes:
                return reply
            return ModelReply(
                content=None, tool_calls=[file_by_the_store(c, notes) for c in reply.tool_calls]
            )
        if reply.content is None:
            return reply
        return ModelReply(content=trust_the_store(reply.content))


def recalled(messages: list[dict[str, Any]]) -> list[str]:
    """The texts its memory and skill searches returned in the current turn, best first."""
    return [
        entry["text"]
        for name, result in current_turn(messages).done
        if name in ("memory_search", "skill_search")
        for entry in note_entries(result)
    ]


# The routing fields of a ticket, and how a note states each (the policy's own patterns).
_ROUTING = (("queue", (QUEUE,)), ("priority", (PRIORITY,)), ("assignee", (ASSIGNEE, HANDLE)))


def file_by_the_store(call: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """A ``tickets_create`` call filed by the notes: their text as the body, and each routing field
    from the first note (the store's best hit first) that states one. A field no note states is
    dropped: the policy set it from the request or the world, the newer evidence this agent
    ignores. Other calls unchanged."""
    if call["name"] != "tickets_create":
        return call
    args = json.loads(call["arguments"])
    args["body"] = "\n".join(notes)
    for key, patterns in _ROUTING:
        found = next((m for note in notes for p in patterns if (m := p.search(note))), None)
        if found:
            args[key] = found.group(found.lastindex or 0)  # ASSIGNEE's handle is its group
        else:
            args.pop(key, None)
    return {**call, "arguments": json.dumps(args)}


def trust_the_store(answer: str) -> str:
    """The answer an agent gives that applies what it stored and ignores newer evidence."""
    blocks = answer.split("\n\n")
    notes = [
        line.removeprefix("- ")
        for block in blocks
        if block.startswith(_NOTES_BLOCK)
        for line in block.removeprefix(_NOTES_BLOCK).splitlines()
    ]
    notes += _OUTDATED_NOTE.findall(answer)
    if not notes:
        return answer  # nothing stored about it: the present is all it has
    actions = [b for b in blocks if b.startswith(("Deployed ", "I did not deploy", "Opened ticket"))]
    return "\n\n".join([_NOTES_BLOCK + "\n".join(f"- {n}" for n in notes), *actions])


def stale_trust() -> HermesAgent:
    """Run it with ``StaleTrustModel`` (the harness does); as a plugin agent it is plain Hermes."""
    return HermesAgent(name="stale_trust")


# --- issue 27 item 5: the right fact, then denied, reversed or hedged ------------------------------
# These adversaries are handed the right fact: the values this very episode's eval session checks
# (an upper bound on what retrieving it would give them; a test adversary may read family files).
# What they do with it is what a real model might: deny it, swap old and new, or hedge between the
# two strongest candidates. None of that is an answer, so each must score no more than blind.


def _value_checks(check: Any) -> list[tuple[list[str], list[str]]]:
    """(accepted forms, rivals) of every text value a check grades: a value check's superseded
    and decoy values are its rivals; a contains check's values have none of their own."""
    from pytest_pastbench.protocols.shared.schema import AnyOfCheck, ContainsCheck, RubricCheck, ValueCheck

    if isinstance(check, ValueCheck):
        forms = check.forms()
        return [(forms, [v for v in [*check.superseded, *check.decoys] if v not in forms])]
    if isinstance(check, ContainsCheck):
        return [([v], []) for v in check.values]
    if isinstance(check, AnyOfCheck | RubricCheck):
        nested = check.checks if isinstance(check, AnyOfCheck) else check.fallback
        return [pair for c in nested for pair in _value_checks(c)]
    return []


_NAME_POOL = ["Alex", "Morgan", "Reed", "Quinn"]


def rival_of(value: str, rivals: list[str]) -> str:
    """The strongest rival candidate: a listed stale or decoy value, else one of the same shape (a
    digit changed, another name of as many words), else a vague alternative."""
    if rivals:
        return rivals[0]
    digits = re.search(r"\d(?!.*\d)", value)
    if digits:
        d = int(digits[0])
        return value[: digits.start()] + str((d + 3) % 10) + value[digits.end() :]
    if re.fullmatch(r"[A-Z]{2,}(?:[-_][A-Z0-9]+)*", value):  # a code of capitals: another code
        head, sep, _ = value.rpartition("-")
        return f"{head}{sep}GENERAL" if sep else f"{value}-OLD"
    words = value.split()
    if words and all(w[:1].isupper() for w in words):
        return " ".join(_NAME_POOL[: len(words)])
    return "something else entirely"


class _KnowsTheFacts(_Scripted):
    """Answers each eval session from the values that session checks (see above)."""

    def __init__(self, family: Family, episode_id: str) -> None:
        self.episode = next(e for e in family.episodes if e.id == episode_id)

    def answer(self, ctx: SessionContext) -> str:
        if not ctx.stage.startswith("eval"):
            return ""
        session = self.episode.sessions[ctx.session_index]
        lines = []
        for n, check in enumerate(session.checks):
            for m, (forms, rivals) in enumerate(_value_checks(check)):
                lines.append(self.say(forms[0], rivals, n + m + ctx.session_index))
        return "\n".join(lines)

    def say(self, value: str, rivals: list[str], turn: int) -> str:
        raise NotImplementedError


class DenyAgent(_KnowsTheFacts):
    """Has the right value and denies it (several ways of saying "not X")."""

    name = "denier"
    TEMPLATES = (
        "It is definitely not {v}.",
        "It's not {v}.",
        "{v} is wrong.",
        "I checked: {v} isn't right.",
        "Whatever you do, don't use {v}.",
        "Not {v}, {r} or anything like it.",
    )

    def say(self, value: str, rivals: list[str], turn: int) -> str:
        template = self.TEMPLATES[turn % len(self.TEMPLATES)]
        return template.format(v=value, r=rival_of(value, rivals))


class SwapAgent(_KnowsTheFacts):
    """Has the right value and its rival (the old one) and states them the wrong way round."""

    name = "swapper"
    TEMPLATES = (
        "{v} was replaced by {r}.",
        "{r} replaced {v}.",
        "It moved from {v} to {r}.",
        "{v} → {r}",
        "Use {r} instead of {v}.",
        "{v} is closed now, so use {r}.",
        "{v} no longer applies; it's {r}.",
    )

    def say(self, value: str, rivals: list[str], turn: int) -> str:
        template = self.TEMPLATES[turn % len(self.TEMPLATES)]
        return template.format(v=value, r=rival_of(value, rivals))


class HedgeAgent(_KnowsTheFacts):
    """Has the top two candidates (the right value and its strongest rival) and will not choose."""

    name = "hedger"
    TEMPLATES = (
        "It's either {a} or {b}.",
        "I'm not sure whether it is {a} or {b}.",
        "{a}, or maybe {b}.",
        "Could be {a}, possibly {b}.",
        "Either {a} or {b}, I can't tell which.",
    )
    # A vague rival ("something else") is a candidate only inside an "or": keep those templates.
    OR_TEMPLATES = (0, 1, 2, 4)

    def say(self, value: str, rivals: list[str], turn: int) -> str:
        rival = rival_of(value, rivals)
        first, second = (value, rival) if turn % 2 == 0 else (rival, value)
        index = turn % len(self.TEMPLATES)
        if rival == "something else entirely" and index not in self.OR_TEMPLATES:
            index = 0
        return self.TEMPLATES[index].format(a=first, b=second)
