"""The replay-oracle audit: an agent that carries out the evaluator's ground truth, and
``validate_servelearn`` that runs it over a download and lists every task it cannot reproduce.

The audit agent is the one reader of ``evaluator`` fields that acts: it exists to check our
environments against the authors' ground truth, not to be scored. It goes through the same turn
protocol, tools and grading as any agent, so a task it cannot bring to reward 1 is a task our
environment does not reproduce (reason ``action_error``, ``unsupported_tool``, ``not_reproduced``,
...), never a silent 0. Before replaying, a task's own fields are checked against its scenario
(``category_mismatch``, ``window_mismatch``, ``stream_order``, and for Pitch ``no_sheet`` /
``no_liked_fact``).

Pitch has no ground-truth actions: its replay submits the sheet's liked facts verbatim and grades
them through a checklist (``VerbatimChecklist`` unless a judge is given), which checks the sheet,
the window's taste and the rubric, not a judge.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ....errors import ReplayError
from .engine import ToolCall, Turn, run_episode
from .episode import Episode, Outcome
from .grading import grade
from .pitch import Checklist, VerbatimChecklist, oracle_pitch, sheet
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
class ScenarioAudit:
    """One scenario's replay: how many of its tasks replayed exactly, and why the others did not."""

    name: str
    tasks: int = 0
    reproduced: int = 0
    failures: list[Failure] = field(default_factory=list)

    @property
    def by_reason(self) -> dict[str, int]:
        return dict(sorted(Counter(f.reason for f in self.failures).items()))


@dataclass
class ValidationReport:
    scenarios: dict[str, ScenarioAudit] = field(default_factory=dict)
    unreadable: list[ScenarioError] = field(default_factory=list)
    pitch_judge: str = VerbatimChecklist.name

    @property
    def tasks(self) -> int:
        return sum(s.tasks for s in self.scenarios.values())

    @property
    def reproduced(self) -> int:
        return sum(s.reproduced for s in self.scenarios.values())

    @property
    def failures(self) -> list[Failure]:
        return [f for s in self.scenarios.values() for f in s.failures]

    @property
    def by_reason(self) -> dict[str, int]:
        return dict(sorted(Counter(f.reason for f in self.failures).items()))

    @property
    def ok(self) -> bool:
        return not self.failures and not self.unreadable

    def lines(self, examples: int = 3) -> list[str]:
        """The total, then per scenario its count and its exceptions by reason with a few examples."""
        out = [f"servelearn validate: {self.reproduced} of {self.tasks} tasks replay exactly"]
        for audit in self.scenarios.values():
            judged = f" (Pitch graded by {self.pitch_judge})" if audit.name.startswith("pitch") else ""
            out.append(f"  {audit.name}: {audit.reproduced} of {audit.tasks} tasks replay exactly{judged}")
            for reason, count in audit.by_reason.items():
                out.append(f"    {reason}: {count}")
                shown = [f for f in audit.failures if f.reason == reason][:examples]
                out += [f"      {f.task_id}: {f.detail[:200]}" for f in shown]
        out += [f"  unreadable: {error}" for error in self.unreadable]
        return out


def validate_servelearn(path: str | Path, checklist: Checklist | None = None) -> ValidationReport:
    """Replay every task of a download; Pitch tasks through ``checklist`` (the verbatim one by default)."""
    read = read_servelearn(path)
    checklist = checklist or VerbatimChecklist()
    report = ValidationReport(unreadable=list(read.errors), pitch_judge=checklist.name)
    for scenario in read.scenarios:
        audit = report.scenarios.setdefault(scenario.name, ScenarioAudit(scenario.name))
        position = 0  # a serving task's timestamp is its place in the stream: it only grows
        for task in scenario.tasks():
            audit.tasks += 1
            failure = audit_task(scenario, task, checklist)
            if failure is None and task.split == "serving" and task.timestamp <= position:
                detail = f"timestamp {task.timestamp} comes after {position} in serving.jsonl"
                failure = Failure(scenario.name, task.task_id, "stream_order", detail)
            if failure is None and task.split == "serving":
                position = task.timestamp  # a task already named for its timestamp does not move it
            if failure is None:
                audit.reproduced += 1
            else:
                audit.failures.append(failure)
    return report


def replay(scenario: Scenario, task: Task, checklist: Checklist | None = None) -> tuple[Episode, Outcome]:
    """The replay agent's episode of ``task`` and its grade (``ReplayError`` when it cannot be graded)."""
    episode = run_episode(ReplayAgent(scenario, task), scenario, task)
    return episode, grade(scenario, task, episode, checklist or VerbatimChecklist())


def audit_task(scenario: Scenario, task: Task, checklist: Checklist | None = None) -> Failure | None:
    """None when the replay agent scores 1 on ``task`` and its fields agree with the scenario."""
    problem = field_problem(scenario, task)
    if problem is not None:
        return Failure(scenario.name, task.task_id, *problem)
    try:
        episode, outcome = replay(scenario, task, checklist)
    except ReplayError as exc:
        return Failure(scenario.name, task.task_id, exc.reason, exc.detail)
    if episode.finish is None:
        return Failure(scenario.name, task.task_id, "no_finish", f"ended by {episode.ended_by}")
    if outcome.reward < 1.0:
        errors = [s["obs"][:120] for s in episode.steps if str(s.get("obs", "")).startswith(("Error", "not"))]
        detail = json.dumps({k: v for k, v in outcome.detail.items() if k != "marks"}) + (
            f" {errors[0]}" if errors else ""
        )
        return Failure(scenario.name, task.task_id, "not_reproduced", detail)
    return None


def field_problem(scenario: Scenario, task: Task) -> tuple[str, str] | None:
    """A task field that disagrees with what the scenario says about it: (reason, detail), or None."""
    derived = category_of(task.domain, task.evaluator.slice)
    if derived != task.category:
        return (
            "category_mismatch",
            f"category {task.category!r} but slice {task.evaluator.slice!r} means {derived!r}",
        )
    starts = sorted(w.first_position for w in scenario.environment.windows)
    first = scenario.window(task.window).first_position
    after = next((start for start in starts if start > first), None)
    if task.timestamp < first or (after is not None and task.timestamp >= after):
        span = f"{first}..{after - 1}" if after is not None else f"{first}.."
        return "window_mismatch", f"timestamp {task.timestamp} is outside window {task.window} ({span})"
    if scenario.domain == "pitch":
        facts = sheet(scenario, task).facts
        if not facts:
            return "no_sheet", "the instruction has no 'Facts:' list"
        if "pos" not in facts.values():
            # The rubric divides by the liked weight on the sheet: with none, every pitch scores 0.
            return "no_liked_fact", f"no fact on the sheet is liked in window {task.window}: {sorted(facts)}"
    return None
