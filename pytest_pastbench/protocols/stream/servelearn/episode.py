"""One episode's record and its world: what the engine fills in and the grader reads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import banking, retail
from .env import episode_world
from .schema import Scenario, Task
from .toolbox import ToolBox

DOMAIN_TOOLS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "retail": retail.handlers,
    "banking": banking.handlers,
    "pitch": lambda db: {},
}


@dataclass
class Episode:
    """One task's episode: the steps, the submitted ``finish`` arguments and the final world."""

    task_id: str
    steps: list[dict[str, Any]] = field(default_factory=list)
    finish: dict[str, Any] | None = None
    tool_calls: int = 0
    turns: int = 0
    ended_by: str = "finish"
    world: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    task_id: str
    scenario: str
    split: str
    window: int
    category: str
    reward: float
    detail: dict[str, Any]


def toolbox(scenario: Scenario, task: Task) -> ToolBox:
    world = episode_world(scenario, task)
    return ToolBox(scenario, DOMAIN_TOOLS[scenario.domain](world), world)
