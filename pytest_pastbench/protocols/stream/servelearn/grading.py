"""Grading one episode to the published semantics.

Retail and Banking (binary): reward 1 when the final database equals the evaluator's ground-truth
actions replayed on the task's initial view AND the ``finish`` submission agrees with the task's
answer (none: a finish that declares no refusal; refuse: a refusal citing an accepted reason;
value: the answer compared as the task says). Pitch: the rubric reward through the judge seam.

A ground-truth action that our environment cannot carry out is ``ReplayError``: an error of the
environment or the data, never a 0 for the agent.
"""

from __future__ import annotations

import re
from typing import Any

from ....errors import ReplayError
from .env import state_hash
from .episode import Episode, Outcome, toolbox
from .pitch import Checklist, grade_pitch
from .schema import Answer, Scenario, Task


def ground_truth_world(scenario: Scenario, task: Task) -> dict[str, Any]:
    box = toolbox(scenario, task)
    for action in task.evaluator.actions:
        if action.name not in box.specs:
            raise ReplayError("unknown_tool", f"{action.name} is not in tools.json")
        if action.name not in box.handlers:
            raise ReplayError("unsupported_tool", f"{action.name} has no implementation here")
        observation = box.call(action.name, dict(action.kwargs))
        if observation.startswith("Error"):
            raise ReplayError("action_error", f"{action.name}: {observation[:160]}")
    return box.state


def grade(scenario: Scenario, task: Task, episode: Episode, checklist: Checklist | None = None) -> Outcome:
    """The reward of one episode; ``checklist`` (the Pitch judge) is needed for Pitch only."""
    if scenario.domain == "pitch":
        if checklist is None:
            raise ValueError(f"{task.task_id}: a Pitch task is graded by a judge; pass a checklist")
        pitch = (episode.finish or {}).get("pitch")
        result = grade_pitch(scenario, task, pitch if isinstance(pitch, str) else None, checklist)
        detail: dict[str, Any] = {"score": result.score, "judge": result.judge, **result.detail}
        return _outcome(task, result.reward, detail)
    same_state = state_hash(episode.world) == state_hash(ground_truth_world(scenario, task))
    answer_ok, why = answer_matches(task.evaluator.answer, episode.finish)
    detail = {"state": same_state, "answer": answer_ok, "why": why, "ended_by": episode.ended_by}
    return _outcome(task, 1.0 if same_state and answer_ok else 0.0, detail)


def _outcome(task: Task, reward: float, detail: dict[str, Any]) -> Outcome:
    return Outcome(task.task_id, task.scenario, task.split, task.window, task.category, reward, detail)


def declared_refusal(finish: dict[str, Any]) -> bool:
    return str(finish.get("decision", "")).strip().lower().startswith("refus")


def answer_matches(spec: Answer | None, finish: dict[str, Any] | None) -> tuple[bool, str]:
    if finish is None:
        return False, "no finish submitted"
    if spec is None:
        return (
            (False, "declared a refusal on a carried-out request") if declared_refusal(finish) else (True, "")
        )
    if spec.kind == "refuse":
        if not declared_refusal(finish):
            return False, "expected a refusal"
        if spec.reasons and finish.get("reason") not in spec.reasons:
            return False, f"refusal reason {finish.get('reason')!r} not accepted"
        return True, ""
    if declared_refusal(finish):
        return False, "declared a refusal on a question"
    ok = compare_answer(finish.get("answer"), spec.expect, spec.compare)
    return ok, "" if ok else "answer differs"


def compare_answer(got: Any, expect: Any, mode: str) -> bool:
    """Format-tolerant but single-valued: one number for int/float, exact normalized text, a set."""
    if got is None:
        return False
    if mode in ("int", "float"):
        mine, theirs = _one_number(got), _one_number(expect)
        if mine is None or theirs is None:
            return False
        return mine == theirs and mine.is_integer() if mode == "int" else abs(mine - theirs) < 0.01
    if mode == "set":
        if not isinstance(got, list | tuple | set) or not isinstance(expect, list | tuple | set):
            return False
        return {_norm(x) for x in got} == {_norm(x) for x in expect}
    return _norm(expect) != "" and _norm(got) == _norm(expect)


def _norm(value: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(value).lower())


def _one_number(value: Any) -> float | None:
    numbers = re.findall(r"-?\d+(?:\.\d+)?", str(value).replace(",", "").replace("$", ""))
    return float(numbers[0]) if len(numbers) == 1 else None
