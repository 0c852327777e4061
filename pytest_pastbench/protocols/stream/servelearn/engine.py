"""ServeLearnBench's turn protocol as a small engine: one episode of one task, and a scenario's
stream (every window's serving tasks with the score line, then its test tasks, learning frozen).

The protocol (their docs/protocol.md): the system prompt is the scenario's, plus whatever the
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
from dataclasses import dataclass
from typing import Any, Protocol

from ....errors import UnknownTool
from .env import FINISH, ToolBox, argument_error, tool_schemas
from .episode import Episode, Outcome, toolbox
from .grading import grade
from .pitch import Checklist, JudgeChecklist, ReferenceJudge
from .schema import Scenario, Task
from .scoring import feedback_line, oracle_context

TOOL_BUDGET, TURN_BUDGET, OUTPUT_TOKEN_BUDGET = 50, 100, 256_000
# What the harness answers (our words; the published protocol fixes what happens, not the text).
MSG_NO_CALL = "This turn had no tool call. Act with one tool call per turn; call `finish` to end the episode."
MSG_MULTI = (
    "not executed: this turn had {n} tool calls and only one per turn is allowed, so none of them ran. "
    "Send them again, one per turn."
)
MSG_BAD_JSON = "not executed: the arguments must be a JSON object matching the tool's schema ({detail})."
MSG_UNKNOWN = "not executed: there is no tool named {name!r}."
MSG_BUDGET = "Error: the episode's {n} tool calls are used up; no other tool will run. Call `finish`."
FINISH_ACK = '{"accepted": true}'


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


def run_episode(agent: Agent, scenario: Scenario, task: Task, extra_system: str = "") -> Episode:
    """Drive ``agent`` through one task under the published turn protocol and budgets."""
    box = toolbox(scenario, task)
    system = scenario.environment.system_prompt + (f"\n\n{extra_system}" if extra_system else "")
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": task.instruction},
    ]
    tools = scenario.environment.tools
    finish_spec = tool_schemas(scenario).get(FINISH) or {"name": FINISH, "parameters": {}}
    episode = Episode(task.task_id, world=box.state)
    spent = 0
    for _ in range(TURN_BUDGET):
        if spent >= OUTPUT_TOKEN_BUDGET:
            episode.ended_by = "token_budget"
            return episode
        episode.turns += 1
        turn = agent.turn([dict(m) for m in messages], tools)
        spent += turn.output_tokens
        messages.append(_assistant(turn))
        if not turn.calls:
            messages.append({"role": "user", "content": MSG_NO_CALL})
            episode.steps.append({"kind": "no_call", "text": turn.text})
            continue
        if len(turn.calls) > 1:
            error = MSG_MULTI.format(n=len(turn.calls))
            messages.extend(_tool_result(call, error) for call in turn.calls)
            episode.steps.append({"kind": "multi_call", "calls": [c.name for c in turn.calls], "obs": error})
            continue
        call = turn.calls[0]
        observation, args = _execute(box, finish_spec, call, episode)
        messages.append(_tool_result(call, observation))
        episode.steps.append({"kind": "tool", "name": call.name, "args": args, "obs": observation})
        if episode.finish is not None:
            return episode
    episode.ended_by = "turn_budget"
    return episode


def _execute(box: ToolBox, finish_spec: dict[str, Any], call: ToolCall, episode: Episode) -> tuple[str, Any]:
    try:
        args = json.loads(call.arguments) if call.arguments.strip() else {}
    except ValueError as exc:
        return MSG_BAD_JSON.format(detail=f"invalid JSON: {exc}"), call.arguments
    if not isinstance(args, dict):
        return MSG_BAD_JSON.format(detail=f"got {type(args).__name__}, not an object"), args
    if call.name == FINISH:
        problem = argument_error(finish_spec, args)
        if problem:  # a rejected finish is an ordinary tool error: the agent may finish again
            return f"not executed: {problem}", args
        episode.finish = args
        return FINISH_ACK, args
    if episode.tool_calls >= TOOL_BUDGET:
        return MSG_BUDGET.format(n=TOOL_BUDGET), args
    try:
        observation = box.call(call.name, args)
    except UnknownTool:
        return MSG_UNKNOWN.format(name=call.name), args
    episode.tool_calls += 1
    return observation, args


def _assistant(turn: Turn) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in turn.calls
        ]
    return message


def _tool_result(call: ToolCall, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call.id, "content": content}


def episode_record(task: Task, episode: Episode, reward: float) -> str:
    """What a learner may read after a serving task: the instruction, the steps, the score line."""
    lines = [f"INSTRUCTION: {task.instruction}", ""]
    for number, step in enumerate(episode.steps, 1):
        lines.append(f"[step {number}] {json.dumps(step, ensure_ascii=False, sort_keys=True)}")
    lines.append(feedback_line(reward))
    return "\n".join(lines)


def run_scenario(
    scenario: Scenario,
    agent: Agent,
    *,
    learner: Learner | None = None,
    oracle: bool = False,
    checklist: Checklist | None = None,
) -> list[Outcome]:
    """The stream: per window, its serving tasks (graded, then the learner updates), then its test
    tasks (graded, nothing returned). Without a learner only the test tasks run. ``oracle`` adds
    each window's bulletin to the system prompt."""
    checklist = checklist or JudgeChecklist(ReferenceJudge())
    outcomes: list[Outcome] = []
    for window in sorted(scenario.environment.windows, key=lambda w: w.window):
        serving = [t for t in scenario.serving if t.window == window.window] if learner is not None else []
        test = [t for t in scenario.test if t.window == window.window]
        for task in [*serving, *test]:
            extra = [oracle_context(window)] if oracle else []
            if learner is not None:
                extra.append(learner.context(task.instruction))
            episode = run_episode(agent, scenario, task, "\n\n".join(e for e in extra if e))
            outcome = grade(scenario, task, episode, checklist)
            outcomes.append(outcome)
            if learner is not None and task.split == "serving":
                record = episode_record(task, episode, outcome.reward)
                learner.update(Experience(task.instruction, task.timestamp, outcome.reward, record))
    return outcomes
