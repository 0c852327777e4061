"""ServeLearnBench tasks run by the project's session runner, so Hermes, a factory's agent or an
external program serves them as it serves every other protocol.

One task is one session (``agents/session_runner.run_session``) over ``ServeLearnTools``: the
scenario's published tools, plus the memory and skill tools over the agent's own store under the
``own`` harness. The turn rules stay the engine's (``EpisodeRules``), whoever holds the loop:

- ``TurnClient`` is the session's model: each reply is one turn. A reply with several calls
  executes none of them; a reply without a call gets the corrective message as the next user
  turn (the length message when the reply was cut at the output limit); after ``finish`` (or a
  spent budget) the next request ends the session without reaching the model. It passes the
  model's reasoning back on later turns and sends each call with the published per-call output
  cap and no temperature (the provider's default), as the authors' runner does.
- An external program talks to the gateway, not to this client, so its turns are not seen: each
  call counts as a turn of its own and an answer without ``finish`` ends the episode.

The system message is the scenario's system prompt plus what the method adds (the Oracle's
window bulletin, the RAG cases; under ``own`` a note on the memory tools); the user message is
the instruction. An agent that cannot take a system message (an external program, a factory's
agent without ``takes_system_prompt``) gets that text at the head of its first user turn.
Observations are the published raw strings, not JSON. After a serving task under ``own`` the
agent gets only ``Score: n/100.`` (in the same session, so it can store what it learned); test
tasks return nothing and run on a copy of the store that is thrown away. Nothing of the
``evaluator`` reaches the agent.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from pytest_pastbench.agents.base import Agent, Budgets
from pytest_pastbench.agents.session_runner import run_session
from pytest_pastbench.core.records import SessionRecord, ToolCall
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.tools import MemoryTools, printable_name, record_call
from pytest_pastbench.core.trace import TraceRecorder
from pytest_pastbench.models.client import ModelClient, ModelReply

from ..harness import FrozenStore
from .engine import CALL_MAX_TOKENS, EpisodeRules, system_text
from .episode import Episode, Outcome
from .grading import grade
from .pitch import Checklist
from .schema import Scenario, Task
from .scoring import feedback_line

# The session runner's own tool-call budget is only a backstop: the episode's are the rules'.
SESSION_CALL_CAP = 1000
LEARNING_TURNS = 10  # model turns after the score line, to update the store
_REFUSED = ("Error", "not executed")
# What the ``own`` harness adds to the system message (our method, so our words): the agent has
# its store's tools, and hears each serving task's score.
OWN_NOTE = (
    "# Your memory\n"
    "You keep a persistent memory across tasks, reached with the memory_* and skill_* tools. "
    "Search it before acting when earlier tasks may matter. After a serving task you are told its "
    "score (`Score: n/100.`): save what you learned from it."
)


class ServeLearnTools:
    """The ``SessionToolBox`` of one task: the published tools through the turn rules, and the
    store tools (``own``), which the rules' one-call-per-turn also covers."""

    clock = None

    def __init__(
        self,
        rules: EpisodeRules | None,
        tools: list[dict[str, Any]],
        store: Store | None,
        *,
        turns_seen: bool,
    ) -> None:
        self.rules = rules
        self._tools = tools
        self.store = store
        self.memory = MemoryTools(store) if store is not None else None
        self.turns_seen = turns_seen  # False: each call is a turn (an external program's)
        self.calls: list[ToolCall] = []

    def specs(self) -> list[dict[str, Any]]:
        memory = [spec.to_openai() for spec in self.memory.specs()] if self.memory is not None else []
        return [*self._tools, *memory]

    def call(self, name: Any, raw_arguments: Any) -> ToolCall:
        shown, rules, memory = printable_name(name), self.rules, self.memory
        if rules is not None and not self.turns_seen and rules.may_start_turn():
            rules.start_turn([shown], "", 0)
        alone = rules is None or (rules.turn_calls <= 1 and not rules.turn_cut)  # a call that may run
        if memory is not None and memory.spec(shown) is not None and alone:
            record = record_call(len(self.calls), shown, raw_arguments, lambda args: memory.run(shown, args))
        elif rules is not None:
            record = _observed(len(self.calls), shown, raw_arguments, rules)
        else:
            record = ToolCall(index=len(self.calls), name=shown, ok=False, error=f"unknown tool {shown!r}")
        self.calls.append(record)
        return record

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        return {}


def _observed(index: int, name: str, raw_arguments: Any, rules: EpisodeRules) -> ToolCall:
    """One published tool's call as the agent reads it: the observation string verbatim (the
    engine parses the arguments and answers a malformed call in the protocol's words); a
    refusal or error is a failed call, for the session's counts."""
    arguments = raw_arguments if isinstance(raw_arguments, dict | str) else json.dumps(raw_arguments)
    observation = rules.call(name, arguments)
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) and arguments.strip() else arguments
    except ValueError:
        parsed = None
    refused = observation.startswith(_REFUSED)
    return ToolCall(
        index=index,
        name=name,
        arguments=parsed if isinstance(parsed, dict) else {},
        ok=not refused,
        result=None if refused else observation,
        error=observation if refused else None,
        verbatim=True,
    )


_NO_REPLY = ModelReply(content="")


class TurnClient:
    """The session's model under the turn rules (see the module docstring)."""

    def __init__(
        self,
        inner: ModelClient,
        rules: EpisodeRules,
        user_turns: list[str],
        on_end: Callable[[], str | None],
    ) -> None:
        self.inner = inner
        self.model = inner.model
        self.rules = rules
        self.user_turns = user_turns  # the session's; the agent reads what is appended
        self.on_end = on_end  # grades the episode; the feedback turn, if any
        self.learning: int | None = None  # model turns left after the feedback; None: acting
        self.reasoning: dict[str, str] = {}  # the model's reasoning by the reply it came with

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **params: Any
    ) -> ModelReply:
        if self.learning is None and self.rules.may_start_turn():
            reply = self._ask(messages, tools, params)
            names = [str(call.get("name", "")) for call in reply.tool_calls]
            corrective = self.rules.start_turn(
                names,
                reply.content or "",
                reply.completion_tokens,
                reasoning=reply.reasoning or "",
                cut=reply.finish_reason == "length",
            )
            if corrective is not None and self.rules.may_start_turn():
                self.user_turns.append(corrective)
            return reply
        if self.learning is None:  # the episode just ended: the agent's turn ends here
            feedback = self.on_end()
            self.learning = LEARNING_TURNS if feedback is not None else 0
            if feedback is not None:
                self.user_turns.append(feedback)
            return replace(_NO_REPLY)
        if self.learning > 0:
            self.learning -= 1
            return self._ask(messages, tools, params)
        return replace(_NO_REPLY)

    def _ask(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, params: dict[str, Any]
    ) -> ModelReply:
        """One call as the published runner makes it: earlier replies carry their reasoning back
        (``reasoning_content``), the output cap is the protocol's and no temperature is sent."""
        sent = [self._with_reasoning(m) for m in messages]
        params = {k: v for k, v in params.items() if k != "temperature"}
        params["max_tokens"] = CALL_MAX_TOKENS
        reply = self.inner.complete(sent, tools, **params)
        if reply.reasoning:
            self.reasoning[_reply_key(reply.as_message())] = reply.reasoning
        return reply

    def _with_reasoning(self, message: dict[str, Any]) -> dict[str, Any]:
        if message.get("role") != "assistant" or not self.reasoning or "reasoning_content" in message:
            return message
        reasoning = self.reasoning.get(_reply_key(message))
        return {**message, "reasoning_content": reasoning} if reasoning else message


def _reply_key(message: dict[str, Any]) -> str:
    """An assistant message's identity across the agent's copy of it: its text and call ids."""
    ids = [str(c.get("id")) for c in message.get("tool_calls") or []]
    return json.dumps([message.get("content") or "", ids])


class SessionTasks:
    """Runs a scenario's tasks one session each (``TaskRunner`` of ``engine.run``)."""

    def __init__(
        self,
        scenario: Scenario,
        agent: Agent,
        model: ModelClient,
        budgets: Budgets,
        checklist: Checklist,
        store_root: Path | None = None,
    ) -> None:
        self.scenario = scenario
        self.agent = agent
        self.model = model
        # lazy: the external-agent driver, only for an external agent
        from pytest_pastbench.agents.external.driver import ExternalAgent

        self.turns_seen = not isinstance(agent, ExternalAgent)
        self.own_system = getattr(agent, "takes_system_prompt", False) is True
        # The episode's budgets are the rules', and each call's output cap the protocol's. An
        # in-process agent's session has no wall clock (the authors have none per episode, and a
        # score must not depend on the machine's load); an external program keeps the run's
        # session timeout, the one guard against a program that hangs.
        wall_s = budgets.wall_s if not self.turns_seen else math.inf
        self.budgets = replace(
            budgets, tool_calls=SESSION_CALL_CAP, wall_s=wall_s, max_output_tokens=CALL_MAX_TOKENS
        )
        self.checklist = checklist
        self.store = Store(store_root / "store") if store_root is not None else None
        self.frozen = FrozenStore(store_root / "store", store_root / "frozen") if store_root else None
        self.sessions: list[SessionRecord] = []

    @property
    def tokens(self) -> int:
        return sum(s.prompt_tokens + s.completion_tokens for s in self.sessions)

    @property
    def cost_usd(self) -> float | None:
        costs = [s.cost_usd for s in self.sessions]
        return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)

    def run_task(self, task: Task, extra_system: str) -> tuple[Episode, Outcome]:
        rules = EpisodeRules(self.scenario, task)
        graded: list[Outcome] = []
        learns = task.split == "serving" and self.store is not None

        def on_end() -> str | None:
            graded.append(grade(self.scenario, task, rules.episode, self.checklist))
            return feedback_line(graded[0].reward) if learns else None

        own = OWN_NOTE if self.store is not None else ""
        method = "\n\n".join(part for part in (extra_system, own) if part)
        system = system_text(self.scenario, method)
        user_turns = [task.instruction] if self.own_system else [f"{system}\n\n{task.instruction}"]
        with self._store_for(task) as store:
            tools = ServeLearnTools(rules, self.scenario.environment.tools, store, turns_seen=self.turns_seen)
            client = TurnClient(self.model, rules, user_turns, on_end) if self.turns_seen else self.model
            self._session(tools, client, user_turns, task.split, system if self.own_system else None)
            if not graded:  # the session stopped before the feedback could be given in it
                feedback = on_end()
                if feedback is not None:
                    self._feedback_session(task, feedback)
        return rules.episode, graded[0]

    @contextmanager
    def _store_for(self, task: Task) -> Iterator[Store | None]:
        if self.store is None or self.frozen is None or task.split == "serving":
            yield self.store
            return
        frozen = self.frozen.open()  # a test task sees the store as serving left it; writes dropped
        try:
            yield frozen
        finally:
            self.frozen.discard()

    def _feedback_session(self, task: Task, feedback: str) -> None:
        """An agent whose session ended on its own (an external program) hears the score after."""
        tools = ServeLearnTools(None, [], self.store, turns_seen=True)
        self._session(tools, self.model, [f"{task.instruction}\n\n{feedback}"], "feedback")

    def _session(
        self, tools: ServeLearnTools, model: Any, user_turns: list[str], stage: str, system: str | None = None
    ) -> None:
        record = run_session(
            self.agent,
            model,
            tools,
            user_turns,
            index=len(self.sessions),
            stage=stage,
            budgets=self.budgets,
            trace=TraceRecorder(),  # per-task traces of thousands of tasks stay out of the run
            system_prompt=system,
        )
        self.sessions.append(record)


@contextmanager
def store_folder(own: bool) -> Iterator[Path | None]:
    """A scratch folder for the ``own`` harness's store (None for the others), removed after."""
    if not own:
        yield None
        return
    root = Path(tempfile.mkdtemp(prefix="pastbench-servelearn-"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)
