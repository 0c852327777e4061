"""How often a deterministic answer grader agrees with answers labelled by meaning: the labelled
rows read and graded, the tallies per class, and the shipped set's figure a run prints when no
judge grades its free text. ``pastbench grader-agreement`` (``cli/grader_agreement.py``) prints them;
the grader is a protocol's (``BenchProtocol.answer_grader``), handed in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import LabelError
from ..resources import families_dir, labels_file
from .agreement import Row, read_json_lines, share_text

if TYPE_CHECKING:
    from ..protocols.base import AnswerGrader

# The family roots -> their protocol's answer grader (None: the protocol grades no answers).
GraderOf = Callable[[list[Path]], "AnswerGrader | None"]

ROW_SHAPE = (
    '{"family": "<capability>.<id>", "episode": str, "session": int, "answer": str, '
    '"label": "correct"|"wrong", "class": str, "reason": str}'
)


class LabelledAnswer(BaseModel):
    """One row of the labelled answer set (other keys are allowed and ignored)."""

    model_config = ConfigDict(strict=True, populate_by_name=True)

    family: str = Field(min_length=1)
    episode: str = Field(min_length=1)
    session: int = Field(ge=0)
    answer: str
    label: Literal["correct", "wrong"]
    class_: str = Field(alias="class", min_length=1)
    reason: str


@dataclass(frozen=True)
class Graded:
    """One usable row and what the grader made of it (``predicted`` None: the judge gave none)."""

    row: Row[LabelledAnswer]
    predicted: bool | None
    undecided: bool = False
    detail: str = ""

    @property
    def label(self) -> LabelledAnswer:
        assert self.row.value is not None
        return self.row.value

    @property
    def agrees(self) -> bool:
        return self.predicted is (self.label.label == "correct")


@dataclass
class Tally:
    n: int = 0
    agree: int = 0
    undecided: int = 0

    @property
    def share(self) -> float | None:
        return self.agree / self.n if self.n else None

    def share_text(self) -> str:
        return share_text(self.agree, self.n)

    def as_json(self) -> dict[str, Any]:
        return {"n": self.n, "agree": self.agree, "agreement": self.share, "undecided": self.undecided}


@dataclass
class Measured:
    """Agreement per class and overall, the rows that could not be used and those not judged."""

    overall: Tally = field(default_factory=Tally)
    classes: dict[str, Tally] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # "file:line: why"
    no_verdict: list[Graded] = field(default_factory=list)
    graded: list[Graded] = field(default_factory=list)


def measure(rows: list[Row[LabelledAnswer]], grader: AnswerGrader, judge: Any = None) -> Measured:
    """Each usable row graded by the protocol's ``grader`` (``BenchProtocol.answer_grader``)."""
    result = Measured()
    for row in rows:
        if row.value is None:
            result.errors.append(f"{row.where}: {row.error}")
            continue
        answer = grader.grade(row.value, judge)
        if isinstance(answer, str):  # the row names no usable session
            result.errors.append(f"{row.where}: {answer}")
            continue
        graded = Graded(row, answer.predicted, answer.undecided, answer.detail)
        if graded.predicted is None:
            result.no_verdict.append(graded)
            continue
        result.graded.append(graded)
        for tally in (result.overall, result.classes.setdefault(graded.label.class_, Tally())):
            tally.n += 1
            tally.agree += graded.agrees
            tally.undecided += graded.undecided
    result.errors.extend(grader.problems)
    return result


def read_rows(paths: list[Path]) -> list[Row[LabelledAnswer]]:
    return [row for path in paths for row in read_json_lines(path, LabelledAnswer, ROW_SHAPE)]


@lru_cache(maxsize=1)
def shipped_agreement(answer_grader: GraderOf) -> Measured | None:
    """The deterministic grader (``answer_grader`` of the family roots: the shipped families'
    protocol's ``BenchProtocol.answer_grader``) on the shipped labelled set, measured now (so a
    printed figure never goes stale); None when this install has no labelled set."""
    path = labels_file()
    if not path.is_file():
        return None
    try:
        rows = read_rows([path])
    except LabelError:
        return None
    grader = answer_grader([families_dir()])
    return measure(rows, grader) if grader is not None else None


# -- what graded a run (issue 27 item 4) ----------------------------------------------------------


def deterministic_grading_line(models: list[str], judge: Any, answer_grader: GraderOf) -> str | None:
    """The line a run with a real model and no judge prints at its start and in its summary:
    free text was graded deterministically, that grader's agreement on the shipped labelled set
    (measured now, by ``answer_grader``), and how to add a judge. None for offline ``pastbench/...``
    models or a judge."""
    from ..models.client import is_offline  # lazy: the model client, only when a model grades

    if judge or not models or all(is_offline(m) for m in models):
        return None
    measured = shipped_agreement(answer_grader)
    if measured is None or not measured.overall.n:
        figure = f"its agreement with labelled answers is unknown here (no labelled set at {labels_file()})"
    else:
        figure = (
            f"it agrees with answers labelled by meaning on {measured.overall.share_text()} of the "
            "shipped set (pastbench grader-agreement)"
        )
    return (
        f"pastbench: free text graded deterministically (no judge): {figure}; "
        "to grade it with a judge, add --pastbench-judge-model=MODEL"
    )
