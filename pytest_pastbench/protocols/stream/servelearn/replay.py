"""The replay-oracle audit: an agent that carries out the evaluator's ground truth, and
``validate_servelearn`` that runs it over a download and lists every task it cannot reproduce.

The audit agent is the one reader of ``evaluator`` fields that acts: it exists to check our
environments against the authors' ground truth, not to be scored. It goes through the same turn
protocol, tools and grading as any agent, so a task it cannot bring to reward 1 is a task our
environment does not reproduce (reason ``action_error``, ``unsupported_tool``, ``not_reproduced``,
...), never a silent 0.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ....errors import ReplayError
from .engine import ToolCall, Turn, run_episode
from .grading import grade
from .pitch import Checklist, oracle_pitch
from .schema import Scenario, ScenarioError, Task, read_servelearn
from .scoring import category_of


class ReplayAgent:
    """Calls the ground-truth actions one per turn, then ``finish`` with the expected submission."""

    def __init__(self, scenario: Scenario, task: Task) -> None:
        calls = [(a.name, dict(a.kwargs)) for a in task.evaluator.actions]
        self.calls = [*calls, ("finish", expected_finish(scenario, task))]
        self.turns = 0

    def turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Turn:
        if self.turns >= len(self.calls):
            return Turn(text="(replay exhausted)")
        name, args = self.calls[self.turns]
        self.turns += 1
        return Turn(calls=(ToolCall(id=f"replay-{self.turns}", name=name, arguments=json.dumps(args)),))


def expected_finish(scenario: Scenario, task: Task) -> dict[str, Any]:
    if scenario.domain == "pitch":
        return {"pitch": oracle_pitch(scenario, task)}
    answer = task.evaluator.answer
    if answer is None:
        return {}
    if answer.kind == "refuse":
        return {"decision": "refuse", "reason": (answer.reasons or ["unspecified"])[0]}
    return {"answer": answer.expect}


@dataclass(frozen=True)
class Failure:
    scenario: str
    task_id: str
    reason: str
    detail: str


@dataclass
class ValidationReport:
    tasks: int = 0
    reproduced: int = 0
    judge_graded: int = 0  # Pitch tasks, when no checklist judge was given: nothing to replay
    failures: list[Failure] = field(default_factory=list)
    unreadable: list[ScenarioError] = field(default_factory=list)

    @property
    def by_reason(self) -> dict[str, int]:
        return dict(sorted(Counter(f.reason for f in self.failures).items()))

    @property
    def ok(self) -> bool:
        return not self.failures and not self.unreadable

    def lines(self) -> list[str]:
        replayable = self.tasks - self.judge_graded
        out = [f"servelearn validate: {self.reproduced}/{replayable} replayable tasks reproduced exactly"]
        if self.judge_graded:
            out.append(f"  {self.judge_graded} Pitch tasks are judge-graded (no ground-truth actions)")
        out += [f"  {reason}: {count}" for reason, count in self.by_reason.items()]
        out += [f"  unreadable: {error}" for error in self.unreadable]
        out += [f"  {f.scenario} {f.task_id}: {f.reason}: {f.detail}" for f in self.failures[:20]]
        return out


def validate_servelearn(path: str | Path, checklist: Checklist | None = None) -> ValidationReport:
    """Replay every task of a download; Pitch tasks too when ``checklist`` (a judge) is given."""
    read = read_servelearn(path)
    report = ValidationReport(unreadable=list(read.errors))
    for scenario in read.scenarios:
        for task in scenario.tasks():
            report.tasks += 1
            if scenario.domain == "pitch" and checklist is None:
                report.judge_graded += 1
                continue
            failure = audit_task(scenario, task, checklist)
            if failure is None:
                report.reproduced += 1
            else:
                report.failures.append(failure)
    return report


def audit_task(scenario: Scenario, task: Task, checklist: Checklist | None = None) -> Failure | None:
    """None when the replay agent scores 1 on ``task`` and its category is the one its slice implies."""
    derived = category_of(task.domain, task.evaluator.slice)
    if derived != task.category:
        detail = f"category {task.category!r} but slice {task.evaluator.slice!r} means {derived!r}"
        return Failure(scenario.name, task.task_id, "category_mismatch", detail)
    episode = run_episode(ReplayAgent(scenario, task), scenario, task)
    if episode.finish is None:
        return Failure(scenario.name, task.task_id, "no_finish", f"ended by {episode.ended_by}")
    try:
        outcome = grade(scenario, task, episode, checklist)
    except ReplayError as exc:
        return Failure(scenario.name, task.task_id, exc.reason, exc.detail)
    if outcome.reward < 1.0:
        errors = [s["obs"][:120] for s in episode.steps if str(s.get("obs", "")).startswith(("Error", "not"))]
        detail = json.dumps({k: v for k, v in outcome.detail.items() if k != "marks"}) + (
            f" {errors[0]}" if errors else ""
        )
        return Failure(scenario.name, task.task_id, "not_reproduced", detail)
    return None
