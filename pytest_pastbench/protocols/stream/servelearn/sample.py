"""``--pastbench-stream-sample``: a seeded part of each published scenario, so a CI job can run one
in minutes. The full scenario stays the default (what a real model's published column compares
with).

- ``N`` (an integer): at most N test tasks per scenario, drawn evenly over its windows (the
  windows take turns, each giving its tasks in a seeded order); the serving stream is kept whole,
  so a learner sees every outcome it would have seen.
- ``F`` (a fraction, 0 < F < 1): that share of each window's serving tasks and of its test tasks,
  at least one of each where the window has any; a window's last serving task is always kept
  (its test tasks carry that task's timestamp, and RAG ends its last block there).

Kept tasks stay in their published order. The draw depends on the run's seed and the scenario's
name only (``random.Random`` over a SHA-256 of both), never on the machine or the item order.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass

from .schema import Scenario, Task

USAGE = (
    "expected a number of test tasks per scenario (e.g. 20) or a fraction of each window's tasks "
    "between 0 and 1 (e.g. 0.1)"
)


@dataclass(frozen=True)
class Sample:
    count: int | None = None
    fraction: float | None = None

    def __str__(self) -> str:
        if self.count is not None:
            return f"{self.count} test tasks per scenario"
        return f"{self.fraction:g} of each window"


def parse_sample(value: str) -> Sample:
    """``"20"`` -> 20 test tasks per scenario, ``"0.1"`` -> a tenth of each window; ``ValueError``."""
    text = str(value).strip()
    if text.isdigit():
        if int(text) < 1:
            raise ValueError(USAGE)
        return Sample(count=int(text))
    try:
        fraction = float(text)
    except ValueError:
        raise ValueError(USAGE) from None
    if not 0.0 < fraction < 1.0 or not math.isfinite(fraction):
        raise ValueError(USAGE)
    return Sample(fraction=fraction)


def sample_scenario(scenario: Scenario, sample: Sample, seed: int) -> Scenario:
    """A copy of ``scenario`` with the sampled tasks (see the module docstring)."""
    rng = random.Random(hashlib.sha256(f"{seed}:{scenario.name}".encode()).hexdigest())
    windows = sorted({t.window for t in scenario.tasks()})
    serving, test = scenario.serving, scenario.test
    if sample.count is not None:
        pools = {w: _shuffled(rng, [t for t in test if t.window == w]) for w in windows}
        chosen: set[str] = set()
        while len(chosen) < sample.count and any(pools.values()):
            for w in windows:
                if pools[w] and len(chosen) < sample.count:
                    chosen.add(pools[w].pop().task_id)
        test = [t for t in test if t.task_id in chosen]
    else:
        assert sample.fraction is not None
        keep: set[str] = set()
        for w in windows:
            served = [t for t in serving if t.window == w]
            if served:
                keep.add(served[-1].task_id)
                keep |= _share(rng, served[:-1], sample.fraction, at_least=0)
            keep |= _share(rng, [t for t in test if t.window == w], sample.fraction, at_least=1)
        serving = [t for t in serving if t.task_id in keep]
        test = [t for t in test if t.task_id in keep]
    return scenario.model_copy(update={"serving": serving, "test": test})


def _shuffled(rng: random.Random, tasks: list[Task]) -> list[Task]:
    tasks = list(tasks)
    rng.shuffle(tasks)
    return tasks


def _share(rng: random.Random, tasks: list[Task], fraction: float, at_least: int) -> set[str]:
    wanted = min(len(tasks), max(at_least, round(fraction * len(tasks))))
    return {t.task_id for t in rng.sample(tasks, wanted)}
