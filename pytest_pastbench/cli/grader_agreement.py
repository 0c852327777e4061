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
from pathlib import Path
from typing import Any, TextIO

from tabulate import tabulate

from ..errors import InfraError, LabelError
from ..judge.agreement import make_judge
from ..judge.grader_agreement import Measured, measure, read_rows
from ..resources import families_dir, labels_file
from .protocol_choice import Unanswered, add_protocol_arguments, protocol_answer

# -- output -----------------------------------------------------------------------------------------


def render(result: Measured, grader: str, show_disagreements: bool = False) -> str:
    rows = [[name, t.n, t.share_text(), t.undecided] for name, t in sorted(result.classes.items())]
    rows.append(["overall", result.overall.n, result.overall.share_text(), result.overall.undecided])
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
            f"pastbench grader-agreement: agreement {result.overall.share_text()} is below --min-agreement "
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
