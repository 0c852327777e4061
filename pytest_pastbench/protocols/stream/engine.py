"""Run one stream item: every window's serving tickets (with outcome feedback), then its test
tickets (store frozen), under one harness, through the session's agent and model client."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_pastbench.agents.base import Agent, Budgets
from pytest_pastbench.agents.session_runner import run_session
from pytest_pastbench.core.records import SessionRecord
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.trace import TraceRecorder
from pytest_pastbench.models.client import ModelClient

from .generator import Task, Window
from .harness import FrozenStore, RagIndex
from .schema import Stream
from .tickets import example_line, facts_line, feedback_message, parse_answer, ticket_message
from .toolbox import StoreTools

SCORE_CORRECT, SCORE_WRONG = 100, 0
ANSWER_TRACE_CHARS = 300


@dataclass
class TicketResult:
    """One ticket as the metrics read it (plain values only)."""

    seq: int
    window: int
    phase: str
    case: str
    decided_by: str | None
    stale: tuple[str, ...]
    answer: str
    score: int
    tokens: int
    cost_usd: float | None
    unparsed: bool = False
    budget: str | None = None


@dataclass
class StreamRun:
    tickets: list[TicketResult] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    sessions: int = 0


def run(
    stream: Stream,
    windows: list[Window],
    harness: str,
    agent: Agent,
    model: ModelClient,
    budgets: Budgets,
) -> StreamRun:
    root = Path(tempfile.mkdtemp(prefix="pastbench-stream-"))
    try:
        return _StreamRunner(stream, harness, agent, model, budgets, root).run(windows)
    finally:
        shutil.rmtree(root, ignore_errors=True)


class _StreamRunner:
    def __init__(
        self, stream: Stream, harness: str, agent: Agent, model: ModelClient, budgets: Budgets, root: Path
    ) -> None:
        self.stream = stream
        self.harness = harness
        self.agent = agent
        self.model = model
        self.budgets = budgets
        self.store = Store(root / "store") if harness == "own" else None
        self.frozen = FrozenStore(root / "store", root / "frozen")
        self.rag = RagIndex() if harness == "rag" else None
        self.result = StreamRun()
        self.sessions = 0

    def run(self, windows: list[Window]) -> StreamRun:
        for window in windows:
            self.result.trace.append(
                {"kind": "window", "window": window.index, "active": list(window.active)}
            )
            for task in window.serving:
                self._serve(task)
            for task in window.test:
                self._test(task)
        return self.result

    def _message(self, task: Task) -> str:
        oracle = self.stream.active(task.window) if self.harness == "oracle" else ()
        examples = self.rag.search(facts_line(task)) if self.rag is not None else ()
        return ticket_message(task, self.stream.domain, oracle_rules=oracle, examples=examples)

    def _serve(self, task: Task) -> None:
        reply = self._session(self._message(task), self.store, task.phase)
        answer = parse_answer(reply.answer, task.options)
        score = SCORE_CORRECT if answer == task.answer else SCORE_WRONG
        tokens, cost = reply.prompt_tokens + reply.completion_tokens, reply.cost_usd
        if self.store is not None:
            # Outcome feedback only: the score, never the right answer.
            feedback = self._session(
                feedback_message(task, self.stream.domain, answer, score), self.store, "feedback"
            )
            tokens += feedback.prompt_tokens + feedback.completion_tokens
            cost = None if cost is None or feedback.cost_usd is None else cost + feedback.cost_usd
        if self.rag is not None:
            self.rag.add(example_line(task, answer, score))
        self._record(task, reply, answer, score, tokens, cost)

    def _test(self, task: Task) -> None:
        store = self.frozen.open() if self.store is not None else None
        try:
            reply = self._session(self._message(task), store, task.phase, persists=False)
        finally:
            if store is not None:
                self.frozen.discard()
        answer = parse_answer(reply.answer, task.options)
        score = SCORE_CORRECT if answer == task.answer else SCORE_WRONG
        self._record(
            task, reply, answer, score, reply.prompt_tokens + reply.completion_tokens, reply.cost_usd
        )

    def _session(
        self, message: str, store: Store | None, stage: str, *, persists: bool = True
    ) -> SessionRecord:
        trace = TraceRecorder()  # per-message traces of thousands of tickets stay out of the run
        run = run_session(
            self.agent,
            self.model,
            StoreTools(store, persists=persists),
            [message],
            index=self.sessions,
            stage=stage,
            budgets=self.budgets,
            trace=trace,
        )
        # What Hermes' mechanisms did does go in: the ablation reads it.
        self.result.trace.extend(e for e in trace.events if e["kind"] == "mechanism")
        self.sessions += 1
        self.result.sessions = self.sessions
        return run

    def _record(
        self, task: Task, reply: SessionRecord, answer: str, score: int, tokens: int, cost: float | None
    ) -> None:
        ticket = TicketResult(
            seq=task.seq,
            window=task.window,
            phase=task.phase,
            case=task.case,
            decided_by=task.decided_by,
            stale=task.stale,
            answer=answer,
            score=score,
            tokens=tokens,
            cost_usd=cost,
            unparsed=not answer,
            budget=reply.budget_exceeded,
        )
        self.result.tickets.append(ticket)
        self.result.trace.append(
            {
                "kind": "ticket",
                "id": task.id,
                "seq": task.seq,
                "phase": task.phase,
                "case": task.case,
                "expected": task.answer,
                "answer": answer,
                "reply": (reply.answer or "")[:ANSWER_TRACE_CHARS],
                "score": score,
                "budget": reply.budget_exceeded,
            }
        )
