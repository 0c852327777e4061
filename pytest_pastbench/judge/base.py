"""The judge seam: what a rubric check needs from an LLM judge, and how it fails.

Only the interface lives here; the LLM implementation (``llm_judge.py``) talks to a
``ModelClient``. Keeping the protocol tiny lets tests (and users) pass any object with ``name``
and ``grade``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class Verdict:
    """A judge's grade of one answer: pass/fail, the score behind it and why."""

    passed: bool
    score: float | None = None
    reason: str = ""


@runtime_checkable
class Judge(Protocol):
    """Grades one answer against one rubric; ``name`` is recorded in the results.

    ``grade`` returns a ``Verdict`` (or a bare bool for a simple pass/fail judge) and raises
    ``JudgeError`` when it has no verdict.
    """

    name: str

    def grade(self, rubric: str, answer: str) -> Verdict | bool: ...


def describe_judge(judge: Any) -> str:
    """``run.judge`` in words: ``pastbench/judge (prompt f596743f3a4c)``, or ``none``."""
    if not judge:
        return "none"
    if isinstance(judge, Mapping):
        return f"{judge.get('model')} (prompt {judge.get('prompt_hash')})"
    return str(judge)


def judge_lines(summary: Mapping[str, Any]) -> list[str]:
    """Terminal lines about the judge of a run: which one, and any rubric check it left unscored."""
    judge = (summary.get("run") or {}).get("judge")
    if not judge:
        return []
    lines = [f"judge: {describe_judge(judge)}"]
    for config in summary.get("configs", []):
        errors = (config.get("overall") or {}).get("judge_errors") or 0
        if errors:
            lines.append(
                f"{config['label']}: {errors} rubric check(s) got no verdict (judge_error, left out "
                "of c_e); see checks[].judge_error in sequence_results.json"
            )
    return lines
