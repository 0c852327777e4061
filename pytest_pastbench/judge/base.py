"""The judge seam: what a rubric or text check needs from an LLM judge, and how it fails.

Only the interface lives here; the LLM implementation (``llm.py``) talks to a ``ModelClient``.
Two methods:

- ``grade(rubric, answer)``: a rubric's score (``pastbench judge-agreement`` and judges that have
  only this method);
- ``read(claim)``: what the answer claims, one ``Reading`` of five (asserts_expected,
  asserts_other, hedges, denies, no_answer) with a one-line reason. A judge with ``read`` grades
  every text check (value, contains, any_of of them, rubric) of a run; the deterministic verdict
  is recorded beside its own.

Keeping the protocol tiny lets tests (and users) pass any object with ``name`` and ``grade``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable


class Reading(StrEnum):
    """What an answer claims about one fact: the deterministic grader's reading (any protocol's
    claim reader) or a judge's; "undecided" is the deterministic grader's alone."""

    ASSERTS_EXPECTED = "asserts_expected"
    ASSERTS_OTHER = "asserts_other"
    HEDGES = "hedges"
    DENIES = "denies"
    NO_ANSWER = "no_answer"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class ClaimVerdict:
    """One reading with its one-line reason (and the value the answer asserted, when it named one)."""

    reading: Reading
    detail: str
    value: str | None = None


# The verdicts a judge may return; "undecided" is the deterministic grader's alone.
JUDGE_READINGS = tuple(r for r in Reading if r is not Reading.UNDECIDED)


class ClaimReader(Protocol):
    """A deterministic claim reader: what ``answer`` claims about a gold value (``expected``: its
    accepted forms, ``stale``: superseded values, ``decoys``: wrong ones; ``question`` optional)."""

    def __call__(
        self,
        answer: str,
        expected: Sequence[str],
        stale: Sequence[str] = (),
        decoys: Sequence[str] = (),
        question: str = "",
    ) -> ClaimVerdict: ...


@dataclass(frozen=True)
class Verdict:
    """A judge's grade of one answer: pass/fail, the score behind it and why."""

    passed: bool
    score: float | None = None
    reason: str = ""


@dataclass(frozen=True)
class Fact:
    """One value the answer must give: its accepted forms (the gold value first) and the wrong
    values that compete with it, by role."""

    expected: tuple[str, ...]
    superseded: tuple[str, ...] = ()  # values that were right once and have been replaced
    decoys: tuple[str, ...] = ()  # plausible wrong values


@dataclass(frozen=True)
class Claim:
    """What a judge reads for one text check: the session's question, the answer, the facts the
    answer must assert (all of them), and a rubric's text when the check is a rubric."""

    question: str
    answer: str
    facts: tuple[Fact, ...] = field(default_factory=tuple)
    rubric: str = ""


@runtime_checkable
class Judge(Protocol):
    """Grades one answer against one rubric; ``name`` is recorded in the results.

    ``grade`` returns a ``Verdict`` (or a bare bool for a simple pass/fail judge) and raises
    ``JudgeError`` when it has no verdict.
    """

    name: str

    def grade(self, rubric: str, answer: str) -> Verdict | bool: ...


@runtime_checkable
class ClaimJudge(Judge, Protocol):
    """A judge that also reads claims: ``read`` returns a ``ClaimVerdict`` whose reading is one of
    ``JUDGE_READINGS`` and whose detail is the judge's one-line reason; ``JudgeError`` when it has
    no verdict (the check is then ``judge_error``: unscored, flagged, never a 0)."""

    def read(self, claim: Claim) -> ClaimVerdict: ...


def all_facts(verdicts: list[ClaimVerdict]) -> ClaimVerdict | None:
    """One verdict for a check that needs every fact: asserts_expected when each fact is asserted;
    else the first fact plainly not asserted; else (the rest asserted) the first undecided one.
    None for no facts."""
    if not verdicts:
        return None
    missed = [v for v in verdicts if v.reading not in (Reading.ASSERTS_EXPECTED, Reading.UNDECIDED)]
    if missed:
        return missed[0]
    undecided = [v for v in verdicts if v.reading is Reading.UNDECIDED]
    return undecided[0] if undecided else verdicts[0]


def reads_claims(judge: Any) -> bool:
    """The judge grades text checks itself (it has ``read``), not only rubrics."""
    return callable(getattr(judge, "read", None))


def describe_judge(judge: Any) -> str:
    """``run.judge`` in words: ``pastbench/judge (prompt f596743f3a4c)``, or ``none``."""
    if not judge:
        return "none"
    if isinstance(judge, Mapping):
        return f"{judge.get('model')} (prompt {judge.get('prompt_hash')})"
    return str(judge)


def judge_lines(summary: Mapping[str, Any]) -> list[str]:
    """Terminal lines about the judge of a run: which one, how often it disagreed with the
    deterministic grader per capability, and any check it left unscored."""
    judge = (summary.get("run") or {}).get("judge")
    if not judge:
        return []
    lines = [f"judge: {describe_judge(judge)}"]
    for config in summary.get("configs", []):
        line = disagreement_line(config)
        if line:
            lines.append(line)
        errors = (config.get("overall") or {}).get("judge_errors") or 0
        if errors:
            lines.append(
                f"{config['label']}: {errors} check(s) got no verdict from the judge (judge_error, left out "
                "of c_e); see checks[].judge_error in sequence_results.json"
            )
    return lines


def _rate(entry: Mapping[str, Any] | None) -> str | None:
    if not entry or not entry.get("compared"):
        return None
    return f"{entry['rate']:.1%} ({entry['disagree']}/{entry['compared']})"


def disagreement_line(config: Mapping[str, Any]) -> str | None:
    """``hermes@m: judge vs deterministic grader disagree on 4.0% (2/50) of text checks
    (memory 0.0% (0/20), update 6.7% (2/30)); 3 undecided by the grader``, or None."""
    overall = (config.get("overall") or {}).get("judge_disagreement")
    total = _rate(overall)
    if total is None:
        return None
    capabilities = config.get("capabilities") or {}
    per = [
        f"{name} {rate}"
        for name in sorted(capabilities)
        if (rate := _rate(capabilities[name].get("judge_disagreement"))) is not None
    ]
    line = f"{config['label']}: judge vs deterministic grader disagree on {total} of text checks"
    line += f" ({', '.join(per)})" if per else ""
    undecided = overall.get("undecided") or 0
    return line + (f"; {undecided} undecided by the grader, decided by the judge" if undecided else "")
