"""ServeLearnBench's turn rules as a small engine: one episode of one task, and a scenario's
stream (every window's serving tasks with the score line, then its test tasks, learning frozen).

The turn rules (their docs/protocol.md): the system prompt is the scenario's, plus whatever the
method adds (an Oracle bulletin, a learner's context); the user message is the instruction. One
tool call per turn: a turn with several calls executes none of them and each gets an error; a
turn with no call gets a corrective message; ``finish`` ends the episode. Budgets: 50 tool calls
(``finish`` exempt; past it every tool answers with an error), 100 turns and 256k output tokens.

The agent-facing surface is ``Agent.turn(messages, tools) -> Turn``: the OpenAI chat messages so
far and the tool schemas. A learner sees ``Learner.context(instruction)`` before a serving or test
task and ``Learner.update(experience)`` after a serving task: the instruction, its stream
position, the reward and the record (the episode as the agent lived it plus ``Score: n/100.``).
Nothing else crosses, in particular no ``evaluator``, category or window. Without a learner
(Blind, Oracle) only the test tasks run, as the authors run those two.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ....errors import UnknownTool
from .env import FINISH, tool_schemas
from .episode import Episode, Outcome, toolbox
from .grading import grade
from .pitch import Checklist, JudgeChecklist, ReferenceJudge
from .schema import Scenario, Task
from .scoring import feedback_line, oracle_context
from .toolbox import ToolBox

TOOL_BUDGET, TURN_BUDGET, OUTPUT_TOKEN_BUDGET = 50, 100, 256_000
CALL_MAX_TOKENS = 65_536  # max_tokens of one model call (their protocol.py MAX_TOKENS)
# What the harness answers is the published protocol's own text, verbatim: these strings are
# observations the agent reads (their servelearnbench/agent.py MSG_*, FINISH_ACK and
# finish_args_error; engine/env.py for the spent tool budget).
MSG_NO_CALL = "No tool call was received. Act with exactly ONE tool call (call `finish` to end the episode)."
MSG_NO_CALL_LENGTH = (
    "Your reply was cut off by the output limit before a tool call was produced. "
    "Act with exactly ONE tool call."
)
MSG_MULTI = (
    "not executed: {n} tool calls were received in one turn; only ONE call per turn is allowed. "
    "Nothing was executed — re-issue the calls one per turn."
)
MSG_BAD_JSON = "not executed: arguments must be a JSON object that follows the tool's schema ({detail})."
MSG_UNKNOWN = "not executed: unknown tool '{name}'."
MSG_BUDGET = (
    "Error: tool-call budget ({n}) exhausted — no further tool calls are possible; "
    "submit your final answer with `finish`."
)
FINISH_ACK = '{"accepted": true}'
# Ours: their loop stops at ``finish``, so no call after it is ever answered there.
MSG_ENDED = "not executed: the episode has ended (`finish` was called or a budget ran out)."


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text, as a provider returns it


@dataclass(frozen=True)
class Turn:
    text: str = ""
    calls: tuple[ToolCall, ...] = ()
    output_tokens: int = 0  # what the model spent on this turn (the episode's token budget)
    reasoning: str = ""  # passed back on later turns, and kept in the record
    cut: bool = False  # the reply stopped at the output limit (finish_reason "length")


class Agent(Protocol):
    def turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Turn: ...


@dataclass(frozen=True)
class Experience:
    """One served task as a learner may see it (their ``EpisodeResult``)."""

    instruction: str
    timestamp: int
    reward: float
    record: str


class Learner(Protocol):
    def context(self, instruction: str) -> str: ...

    def update(self, experience: Experience) -> None: ...


class EpisodeRules:
    """One episode under the published turn rules: what a turn and what a tool call does.

    The one definition of the rules, whoever holds the loop: ``run_episode`` (an ``Agent.turn``
    agent, the replay audit) and the session path (``session.py``: any agent of the project
    driven by the session runner) both report each turn here and send each call through ``call``.
    """

    def __init__(self, scenario: Scenario, task: Task) -> None:
        self.box = toolbox(scenario, task)
        self.finish_spec = tool_schemas(scenario).get(FINISH) or {"name": FINISH, "parameters": {}}
        self.episode = Episode(task.task_id, world=self.box.state)
        self.spent = 0  # output tokens over the episode's turns
        self.turn_calls = 1  # calls of the current turn
        self.turn_cut = False  # the current turn's reply was cut at the output limit
        self.turn_said: dict[str, str] = {"reply": "", "thought": ""}  # its text and reasoning

    @property
    def ended(self) -> bool:
        return self.episode.finish is not None or self.episode.ended_by != "finish"

    def may_start_turn(self) -> bool:
        """False (and the episode ends by that budget) once turns or output tokens are spent."""
        if self.ended:
            return False
        if self.episode.turns >= TURN_BUDGET:
            self.episode.ended_by = "turn_budget"
        elif self.spent >= OUTPUT_TOKEN_BUDGET:
            self.episode.ended_by = "token_budget"
        return not self.ended

    def start_turn(
        self,
        call_names: list[str],
        text: str,
        output_tokens: int,
        *,
        reasoning: str = "",
        cut: bool = False,
    ) -> str | None:
        """Count one model turn with these calls; the corrective user message when it had none.

        A reply cut at the output limit executes none of its calls (each is answered
        ``not executed: `` + the length message, as the authors do) and, without calls, gets the
        length corrective instead of the plain one. Every step keeps the turn's reply text and
        reasoning: the record a learner reads has them (their ``episode_record``).
        """
        self.episode.turns += 1
        self.spent += output_tokens
        self.turn_calls = len(call_names)
        self.turn_cut = cut and bool(call_names)
        self.turn_said = {"reply": text or "", "thought": reasoning or ""}
        if not call_names:
            self.episode.steps.append({"kind": "no_call", **self.turn_said, "cut": cut})
            return MSG_NO_CALL_LENGTH if cut else MSG_NO_CALL
        if self.turn_cut:
            obs = "not executed: " + MSG_NO_CALL_LENGTH
            self.episode.steps.append({"kind": "cut", "calls": call_names, "obs": obs, **self.turn_said})
        elif len(call_names) > 1:
            obs = MSG_MULTI.format(n=len(call_names))
            self.episode.steps.append(
                {"kind": "multi_call", "calls": call_names, "obs": obs, **self.turn_said}
            )
        return None

    def call(self, name: str, arguments: str | dict[str, Any]) -> str:
        """The observation of one call of the current turn (none runs in a turn of several, or
        in a turn cut at the output limit)."""
        if self.ended:
            return MSG_ENDED
        if self.turn_cut:
            return "not executed: " + MSG_NO_CALL_LENGTH
        if self.turn_calls > 1:
            return MSG_MULTI.format(n=self.turn_calls)
        observation, args = _execute(self.box, self.finish_spec, name, arguments, self.episode)
        self.episode.steps.append(
            {"kind": "tool", "name": name, "args": args, "obs": observation, **self.turn_said}
        )
        return observation


def run_episode(agent: Agent, scenario: Scenario, task: Task, extra_system: str = "") -> Episode:
    """Drive ``agent`` through one task under the published turn rules and budgets."""
    rules = EpisodeRules(scenario, task)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system_text(scenario, extra_system)},
        {"role": "user", "content": task.instruction},
    ]
    tools = scenario.environment.tools
    while rules.may_start_turn():
        turn = agent.turn([dict(m) for m in messages], tools)
        messages.append(_assistant(turn))
        corrective = rules.start_turn(
            [c.name for c in turn.calls],
            turn.text,
            turn.output_tokens,
            reasoning=turn.reasoning,
            cut=turn.cut,
        )
        if corrective is not None:
            messages.append({"role": "user", "content": corrective})
        messages.extend(_tool_result(call, rules.call(call.name, call.arguments)) for call in turn.calls)
    return rules.episode


def system_text(scenario: Scenario, extra_system: str = "") -> str:
    """The scenario's system prompt plus what the method adds (an Oracle bulletin, past cases)."""
    return scenario.environment.system_prompt + (f"\n\n{extra_system}" if extra_system else "")


def _execute(
    box: ToolBox, finish_spec: dict[str, Any], name: str, arguments: str | dict[str, Any], episode: Episode
) -> tuple[str, Any]:
    if isinstance(arguments, dict):
        args: Any = arguments
    else:
        try:
            args = json.loads(arguments) if arguments.strip() else {}
        except ValueError as exc:
            return MSG_BAD_JSON.format(detail=f"invalid JSON: {exc}"), arguments
    if not isinstance(args, dict):
        return MSG_BAD_JSON.format(detail=f"got {type(args).__name__}, not an object"), args
    if name == FINISH:
        problem = finish_error(finish_spec, args)
        if problem:  # a rejected finish is an ordinary tool error: the agent may finish again
            return problem, args
        episode.finish = args
        return FINISH_ACK, args
    if name not in box.specs:  # an unknown tool is answered before the budget is looked at
        return MSG_UNKNOWN.format(name=name), args
    if episode.tool_calls >= TOOL_BUDGET:
        return MSG_BUDGET.format(n=TOOL_BUDGET), args
    try:
        observation = box.call(name, args)
    except UnknownTool:
        return MSG_UNKNOWN.format(name=name), args
    episode.tool_calls += 1
    return observation, args


def finish_error(spec: dict[str, Any], args: dict[str, Any]) -> str | None:
    """Why a ``finish`` call is rejected, in the published runner's words (their
    ``finish_args_error``: missing, unknown, empty or off-enum arguments, a refusal without a
    reason), or None."""
    params = spec.get("parameters") or {}
    props: dict[str, Any] = params.get("properties") or {}
    missing = [k for k in params.get("required") or [] if k not in args]
    if missing:
        wanted = ", ".join(f"'{k}' ({props.get(k, {}).get('type', 'value')})" for k in missing)
        return f"not executed: finish requires {wanted}."
    unknown = sorted(k for k in args if k not in props)
    if unknown:
        allowed = f"; allowed: {', '.join(props)}." if props else "; it takes no arguments."
        return (
            "not executed: finish takes no argument named " + ", ".join(f"'{k}'" for k in unknown) + allowed
        )
    for key, value in args.items():
        if props[key].get("type") == "string" and (not isinstance(value, str) or not value.strip()):
            return f"not executed: finish argument '{key}' must be a non-empty string."
        if "enum" in props[key] and value not in props[key]["enum"]:
            return f"not executed: finish argument '{key}' must be one of {props[key]['enum']}."
    if args.get("decision") == "refuse" and not str(args.get("reason") or "").strip():
        return "not executed: finish(decision=\"refuse\") requires 'reason' (the refusal code)."
    return None


def _assistant(turn: Turn) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.reasoning:  # passed back on later turns, as the published runner does
        message["reasoning_content"] = turn.reasoning
    if turn.calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in turn.calls
        ]
    return message


def _tool_result(call: ToolCall, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call.id, "content": content}


def episode_record(task: Task, episode: Episode, reward: float) -> str:
    """What a learner may read after a serving task, in the published record's layout (their
    ``protocol.episode_record``): the instruction; per step the model's reasoning (``thought``),
    its reply, the action (``NONE [kind]`` for a turn that executed nothing) and the
    observation; then the score line."""
    lines = [f"INSTRUCTION: {task.instruction}", ""]
    for number, step in enumerate(episode.steps, 1):
        lines.append(f"[step {number}]")
        for label, key in (("thought", "thought"), ("replied", "reply")):
            if str(step.get(key) or "").strip():
                lines.append(f"  {label}: {str(step[key]).strip()}")
        if step["kind"] == "tool":
            lines.append(f"  action: {step['name']}({json.dumps(step['args'], ensure_ascii=False)})")
        else:
            lines.append(f"  action: NONE [{step['kind']}]")
        if step.get("obs"):
            lines.append(f"  observation: {step['obs']}")
        lines.append("")
    lines.append(feedback_line(reward))
    return "\n".join(lines)


# One task's episode under some loop, graded: (task, what the method adds to the system prompt).
TaskRunner = Callable[[Task, str], tuple[Episode, Outcome]]


def run_scenario(
    scenario: Scenario,
    agent: Agent,
    *,
    learner: Learner | None = None,
    oracle: bool = False,
    checklist: Checklist | None = None,
) -> list[Outcome]:
    """``run`` with an ``Agent.turn`` agent: the engine holds the loop. Without a learner
    only the test tasks run."""
    checklist = checklist or JudgeChecklist(ReferenceJudge())

    def run_task(task: Task, extra_system: str) -> tuple[Episode, Outcome]:
        episode = run_episode(agent, scenario, task, extra_system)
        return episode, grade(scenario, task, episode, checklist)

    return run(scenario, run_task, learner=learner, oracle=oracle, serving=learner is not None)


def run(
    scenario: Scenario,
    run_task: TaskRunner,
    *,
    learner: Learner | None = None,
    oracle: bool = False,
    serving: bool = False,
) -> list[Outcome]:
    """The stream: per window, its serving tasks when ``serving`` (graded, then the learner
    updates), then its test tasks (graded, nothing returned). ``oracle`` adds each window's
    bulletin, a learner its context, to what the agent is told before the instruction."""
    outcomes: list[Outcome] = []
    for window in sorted(scenario.environment.windows, key=lambda w: w.window):
        served = [t for t in scenario.serving if t.window == window.window] if serving else []
        test = [t for t in scenario.test if t.window == window.window]
        for task in [*served, *test]:
            extra = [oracle_context(window)] if oracle else []
            if learner is not None:
                extra.append(learner.context(task.instruction))
            episode, outcome = run_task(task, "\n\n".join(e for e in extra if e))
            outcomes.append(outcome)
            if learner is not None and task.split == "serving":
                record = episode_record(task, episode, outcome.reward)
                learner.update(Experience(task.instruction, task.timestamp, outcome.reward, record))
    return outcomes
