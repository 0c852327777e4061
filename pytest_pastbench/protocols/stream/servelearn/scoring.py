"""ServeLearnBench's numbers as pure functions: the feedback line, the Oracle's context, setting
scores and the two averages of their leaderboard.

- A serving task returns only ``Score: n/100.`` (Retail and Banking: 0 or 100; Pitch: the rubric).
- The Oracle is told the active window's bulletin, nothing else.
- A setting score is the mean reward x 100 over one scenario's test tasks of one category.
- Avg. H: the unweighted mean of the nine Hidden scores; Avg. F: of the six Retail and Banking
  Fully Specified scores. Every setting counts once; an average with a setting missing is None.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .schema import Window

SCENARIOS = tuple(f"{d}_l{t}" for d in ("retail", "banking", "pitch") for t in (1, 2, 3))
HIDDEN, FULLY_SPECIFIED = "hidden", "fully_specified"


def feedback_line(reward: float) -> str:
    """``Score: 100/100.``, ``Score: 0/100.``, ``Score: 62.5/100.`` (six significant digits, as published)."""
    return f"Score: {reward * 100:g}/100."


def oracle_context(window: Window) -> str:
    return window.oracle_bulletin


def category_of(domain: str, slice_: str | None) -> str:
    """The category their scoring derives from a task's slice (Pitch is always Hidden)."""
    if domain == "pitch":
        return HIDDEN
    return HIDDEN if slice_ == "adapt" else FULLY_SPECIFIED


@dataclass(frozen=True)
class Row:
    """One graded task as the scores read it."""

    scenario: str
    split: str
    category: str
    reward: float


def setting_scores(rows: Iterable[Row]) -> dict[str, dict[str, float | None]]:
    """``scenario -> {hidden, fully_specified}``: mean reward x 100 over its test tasks (None: none)."""
    rewards: dict[str, dict[str, list[float]]] = defaultdict(lambda: {HIDDEN: [], FULLY_SPECIFIED: []})
    for row in rows:
        if row.split == "test":
            rewards[row.scenario][row.category].append(row.reward)
    return {
        scenario: {cat: (100.0 * sum(v) / len(v) if v else None) for cat, v in cats.items()}
        for scenario, cats in sorted(rewards.items())
    }


@dataclass(frozen=True)
class Averages:
    avg_h: float | None
    avg_f: float | None
    missing: tuple[str, ...]  # settings an average needed and did not have


def averages(
    scores: Mapping[str, Mapping[str, float | None]], scenarios: tuple[str, ...] = SCENARIOS
) -> Averages:
    """Avg. H over every scenario's Hidden score, Avg. F over the non-Pitch Fully Specified ones."""
    hidden = [(s, (scores.get(s) or {}).get(HIDDEN)) for s in scenarios]
    full = [(s, (scores.get(s) or {}).get(FULLY_SPECIFIED)) for s in scenarios if not s.startswith("pitch")]
    missing = tuple(f"{s}:{HIDDEN}" for s, v in hidden if v is None) + tuple(
        f"{s}:{FULLY_SPECIFIED}" for s, v in full if v is None
    )
    return Averages(_mean([v for _, v in hidden]), _mean([v for _, v in full]), missing)


def _mean(values: list[float | None]) -> float | None:
    if not values or any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None) / len(values)
