"""``pastbench grader-agreement``: how often the grader agrees with answers labelled by meaning.

Input is one or more JSON Lines files (default: the shipped set, families/labels/answers.jsonl),
one labelled answer a line:
``{"family": "update.SM03_fact_correction", "episode": "ep01", "session": 3, "answer": "...",
"label": "correct" | "wrong", "class": "...", "reason": "..."}``. ``session`` is the 0-based
index in the episode's sessions; it must be an eval session with a text check.

Each answer is graded by the protocol's grader (``--protocol``, default past:
protocols/past/labelled_answers.py): by that session's text checks alone (value, contains, any_of
of them, rubrics through their fallbacks; tool and world checks are not about the text), predicted
correct when every one of them passes. Deterministically by default; with ``--judge-model`` by
that judge, as a run's ``--pastbench-judge-model`` grades. Printed: agreement with the labels
per class and overall, with n and how many rows the deterministic grader left undecided.

Exit 0; 1 when agreement is below ``--min-agreement`` or a row got no verdict from the judge;
2 when a row cannot be used (bad JSON, a missing field, an unknown family, episode or session,
a session that is no eval session or has no text check): each is one line naming file:line on
stderr, and the other rows are still measured.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from pydantic import BaseModel, ConfigDict, Field
from tabulate import tabulate

from ..errors import InfraError, LabelError
from ..judge.agreement import Row, make_judge, read_json_lines, share_text
from ..resources import labels_file
from .protocol_choice import DEFAULT_PROTOCOL, Unanswered, add_protocol_arguments, protocol_answer

if TYPE_CHECKING:
    from ..protocols.base import AnswerGrader

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
def shipped_agreement() -> Measured | None:
    """The deterministic grader on the shipped labelled set, measured now (so a printed figure
    never goes stale); None when this install has no labelled set."""
    from ..resources import families_dir

    path = labels_file()
    if not path.is_file():
        return None
    try:
        rows = read_rows([path])
    except LabelError:
        return None
    from ..protocols.registry import standalone_registry

    grader = standalone_registry()[DEFAULT_PROTOCOL].answer_grader([families_dir()])
    return measure(rows, grader) if grader is not None else None


# -- output -----------------------------------------------------------------------------------------


def _share(tally: Tally) -> str:
    return share_text(tally.agree, tally.n)


def render(result: Measured, grader: str, show_disagreements: bool = False) -> str:
    rows = [[name, t.n, _share(t), t.undecided] for name, t in sorted(result.classes.items())]
    rows.append(["overall", result.overall.n, _share(result.overall), result.overall.undecided])
    table = tabulate(rows, headers=("class", "n", "agreement", "undecided"), disable_numparse=True)
    text = f"grader: {grader}\n\n{table}"
    if result.no_verdict:
        text += f"\n\n{len(result.no_verdict)} row(s) got no verdict from the judge (left out of n)"
    if show_disagreements:
        wrong = [g for g in result.graded if not g.agrees]
        listed = [
            [g.row.where, g.label.class_, g.label.label, "correct" if g.predicted else "wrong", g.detail[:80]]
            for g in wrong
        ]
        text += "\n\n" + tabulate(
            listed, headers=("row", "class", "label", "graded", "why"), disable_numparse=True
        )
    return text


def as_json(result: Measured, grader: str, files: list[str]) -> dict[str, Any]:
    return {
        "grader": grader,
        "files": files,
        "overall": result.overall.as_json(),
        "classes": {name: t.as_json() for name, t in sorted(result.classes.items())},
        "no_verdict": [g.row.where for g in result.no_verdict],
        "errors": result.errors,
        "disagreements": [
            {"row": g.row.where, "class": g.label.class_, "label": g.label.label, "detail": g.detail}
            for g in result.graded
            if not g.agrees
        ],
    }


def _command(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    from ..resources import families_dir

    paths = [Path(p) for p in args.files] or [labels_file()]
    if not args.files and not paths[0].is_file():
        print(f"pastbench grader-agreement: no labelled answer set at {paths[0]} (give FILE...)", file=err)
        return 2
    try:
        rows = read_rows(paths)
        judge = make_judge(args.judge_model, args.model_aliases, args.retries) if args.judge_model else None
    except (LabelError, ValueError) as exc:
        print(f"pastbench grader-agreement: {exc}", file=err)
        return 2
    roots = [Path(p) for p in args.families] if args.families else [families_dir()]
    missing = [str(r) for r in roots if not r.exists()]
    if missing:
        print(f"pastbench grader-agreement: --families: no such path {', '.join(missing)}", file=err)
        return 2
    try:
        grader = protocol_answer(
            args, "grader-agreement", lambda p: p.answer_grader(roots), "grades no answers"
        )
    except Unanswered as exc:
        print(exc, file=err)
        return 2
    try:
        result = measure(rows, grader, judge)
    except InfraError as exc:  # the judge's provider down after its retries: nothing measured
        print(f"pastbench grader-agreement: infra_blocked: {exc}", file=err)
        return 1
    grader = "deterministic (no judge)"
    if judge is not None:
        grader = f"judge {judge.name} (prompt {judge.prompt_hash})"
    if args.json:
        print(json.dumps(as_json(result, grader, [str(p) for p in paths]), indent=1), file=out)
    else:
        print(render(result, grader, args.disagreements), file=out)
    for error in result.errors:
        print(f"pastbench grader-agreement: {error}", file=err)
    for graded in result.no_verdict:
        print(f"pastbench grader-agreement: {graded.row.where}: {graded.detail}", file=err)
    if result.errors:
        return 2
    share = result.overall.share
    if args.min_agreement is not None and (share or 0.0) < args.min_agreement:
        print(
            f"pastbench grader-agreement: agreement {_share(result.overall)} is below --min-agreement "
            f"{args.min_agreement:g}",
            file=err,
        )
        return 1
    return 1 if result.no_verdict else 0


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    command = subparsers.add_parser(
        "grader-agreement",
        help="measure the grader (or a judge) on answers labelled by meaning",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="JSON Lines files of labelled answers (default: the shipped families/labels/answers.jsonl)",
    )
    command.add_argument(
        "--families",
        action="append",
        default=None,
        metavar="PATH",
        help="family folder or file the rows refer to (repeatable; default: the built-in families)",
    )
    command.add_argument(
        "--judge-model",
        default=None,
        help="grade with this judge instead, as --pastbench-judge-model (pastbench/judge: offline)",
    )
    command.add_argument(
        "--min-agreement", type=float, default=None, help="exit 1 when overall agreement is below this"
    )
    command.add_argument("--json", action="store_true", help="print the figures as JSON (for tools)")
    command.add_argument(
        "--disagreements", action="store_true", help="also list each row the grader disagrees with"
    )
    command.add_argument("--model-aliases", default=None, help="alias file, as --pastbench-model-aliases")
    command.add_argument("--retries", type=int, default=4, help="attempts per judge request (default 4)")
    add_protocol_arguments(command)
    command.set_defaults(func=_command)


# -- what graded a run (issue 27 item 4) --------------------------------------------------------------


def deterministic_grading_line(models: list[str], judge: Any) -> str | None:
    """The line a run with a real model and no judge prints at its start and in its summary:
    free text was graded deterministically, that grader's agreement on the shipped labelled set
    (measured now), and how to add a judge. None for offline ``pastbench/...`` models or a judge."""
    from ..models.client import is_offline

    if judge or not models or all(is_offline(m) for m in models):
        return None
    measured = shipped_agreement()
    if measured is None or not measured.overall.n:
        figure = f"its agreement with labelled answers is unknown here (no labelled set at {labels_file()})"
    else:
        figure = (
            f"it agrees with answers labelled by meaning on {_share(measured.overall)} of the shipped set "
            "(pastbench grader-agreement)"
        )
    return (
        f"pastbench: free text graded deterministically (no judge): {figure}; "
        "to grade it with a judge, add --pastbench-judge-model=MODEL"
    )
