"""One stream item: serving tickets scored and followed by outcome feedback, test tickets scored
with nothing kept, under each harness; a scripted model answers by ticket id."""

from __future__ import annotations

import re
from typing import Any

from pytest_pastbench.agents.base import Budgets, HermesAgent
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.protocols.stream import engine
from pytest_pastbench.protocols.stream.generator import Task, Window
from pytest_pastbench.protocols.stream.tickets import EXAMPLES_HEADER, FEEDBACK_MARKER, ORACLE_HEADER
from tests.protocols.stream.streams import GIFT_CARD_CANCEL, stream_named

STREAM = stream_named("retail_l1")
OPTIONS = STREAM.domain.actions["cancel"].options
RIGHT = "refuse:payment_restricted"
_ID = re.compile(r"^\[pastbench stream ticket\] \S+ #\d+ \S+ (\S+)$", re.M)


def ticket(seq: int, phase: str, window: int = 0) -> Task:
    return Task(f"t{seq}", seq, window, phase, "hidden", GIFT_CARD_CANCEL, OPTIONS, RIGHT, None, ())


class ScriptedModel:
    """Replies ``replies[ticket id]`` to a ticket and ``OK`` to feedback; keeps every first message."""

    model = "scripted"

    def __init__(self, replies: dict[str, str]) -> None:
        self.replies = replies
        self.seen: list[str] = []

    def complete(self, messages: list[dict[str, Any]], tools: Any = None, **_: Any) -> ModelReply:
        text = next(m["content"] for m in messages if m["role"] == "user")
        self.seen.append(text)
        found = _ID.search(text)
        reply = self.replies[found.group(1)] if found and not text.startswith(FEEDBACK_MARKER) else "OK"
        return ModelReply(content=reply, prompt_tokens=10, completion_tokens=5)


def run(harness: str, replies: dict[str, str], window: Window) -> tuple[engine.StreamRun, ScriptedModel]:
    model = ScriptedModel(replies)
    return engine.run(STREAM, [window], harness, HermesAgent(), model, Budgets()), model


WINDOW = Window(0, (), serving=(ticket(1, "serving"), ticket(2, "serving")), test=(ticket(3, "test"),))
REPLIES = {"t1": f"ANSWER: {RIGHT}", "t2": "ANSWER: cancel", "t3": "I am not sure."}


def test_tickets_are_scored_right_or_wrong_and_an_unparsed_reply_is_flagged() -> None:
    stream_run, _ = run("own", REPLIES, WINDOW)
    got = [(t.seq, t.phase, t.answer, t.score, t.unparsed) for t in stream_run.tickets]
    assert got == [
        (1, "serving", RIGHT, 100, False),
        (2, "serving", "cancel", 0, False),
        (3, "test", "", 0, True),
    ]
    expected = [e["expected"] for e in stream_run.trace if e["kind"] == "ticket"]
    assert expected == [RIGHT] * 3 and stream_run.trace[0] == {"kind": "window", "window": 0, "active": []}


def test_only_the_own_harness_gets_feedback_after_each_serving_ticket() -> None:
    own, model = run("own", REPLIES, WINDOW)
    feedback = [text for text in model.seen if text.startswith(FEEDBACK_MARKER)]
    assert len(feedback) == 2 and "Score: 0/100" in feedback[1]
    assert own.sessions == 5  # two serving tickets, their two feedback sessions, one test ticket
    assert own.tickets[0].tokens == 30  # a serving ticket counts its feedback session's tokens
    blind, model = run("blind", REPLIES, WINDOW)
    assert blind.sessions == 3 and not any(text.startswith(FEEDBACK_MARKER) for text in model.seen)


def test_rag_retrieves_earlier_serving_tickets_and_the_oracle_sees_the_active_rules() -> None:
    _, rag = run("rag", REPLIES, WINDOW)
    assert EXAMPLES_HEADER not in rag.seen[0] and "answered=cancel | score=0" in rag.seen[2]
    active = next(w for w in range(STREAM.family.windows) if any(STREAM.active(w)))
    window = Window(active, (), serving=(ticket(1, "serving", active),), test=())
    _, oracle = run("oracle", {"t1": "ANSWER: cancel"}, window)
    _, blind = run("blind", {"t1": "ANSWER: cancel"}, window)
    assert ORACLE_HEADER in oracle.seen[0] and ORACLE_HEADER not in blind.seen[0]
