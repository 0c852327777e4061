"""Shared by the servelearn tests: the fixture download, and agents that act from a script."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from pytest_pastbench.protocols.stream.servelearn.engine import ToolCall, Turn
from pytest_pastbench.protocols.stream.servelearn.schema import Scenario, Task, read_servelearn

FIXTURES = Path(__file__).parent / "fixtures" / "dataset"


def scenarios() -> dict[str, Scenario]:
    read = read_servelearn(FIXTURES)
    assert not read.errors, read.errors
    return {s.name: s for s in read.scenarios}


@functools.cache
def _fixture_scenarios() -> dict[str, Scenario]:
    return scenarios()


def task(scenario_name: str, task_id: str) -> Task:
    """A fixture task by its scenario's name and its id (read once: tasks are not changed)."""
    return next(t for t in _fixture_scenarios()[scenario_name].tasks() if t.task_id == task_id)


def call(name: str, **args: Any) -> Turn:
    return Turn(calls=(ToolCall(id=f"c-{name}", name=name, arguments=json.dumps(args)),))


class ScriptedAgent:
    """Plays its turns in order (then finishes), keeping every message and tool list it was given."""

    def __init__(self, *turns: Turn) -> None:
        self.turns = list(turns)
        self.seen: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]] = []

    def turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Turn:
        self.seen.append((messages, tools))
        return self.turns.pop(0) if self.turns else call("finish")

    def last_observation(self) -> str:
        return self.seen[-1][0][-1]["content"]
