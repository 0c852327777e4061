"""``pastbench judge-agreement``: how often the judge agrees with human labels.

Input is one or more JSON Lines files, one sample a line: ``{"rubric": ..., "answer": ...,
"human": <score>}`` and an optional ``"id"``; human scores are on ``0..--scale`` (default 0..1).
The judge's score (0..1) is put on the same scale; a sample agrees when |judge − human| ≤
tolerance. Reported: n, the share that agrees, the mean absolute difference, and a pass/fail
confusion matrix (pass = at least half the scale, the judge's own pass mark). Exit 0 when every
sample was judged, 1 when a sample got no verdict (judge_error, provider failure) or agreement
fell below ``--min-agreement``, 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from ..errors import LabelError
from ..judge.agreement import (
    DEFAULT_TOLERANCE,
    agreement,
    judge_samples,
    make_judge,
    read_labels,
    render,
)
from ..judge.llm import REFERENCE_JUDGE, check_judge_model


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    if args.scale <= 0 or args.tolerance < 0:
        print("pastbench judge-agreement: --scale must be > 0 and --tolerance ≥ 0", file=err)
        return 2
    try:
        from ..models.client import use_alias_file  # lazy: loads litellm, not for --help

        use_alias_file(args.model_aliases)
        check_judge_model(args.judge_model)
        samples = [s for labels in args.labels for s in read_labels(Path(labels), args.scale)]
        judge = make_judge(args.judge_model, args.model_aliases, args.retries)
    except (LabelError, ValueError) as exc:
        print(f"pastbench judge-agreement: {exc}", file=err)
        return 2
    results = judge_samples(samples, judge, args.scale)
    result = agreement(results, args.tolerance, args.scale)
    print(
        # The rubric prompt's own hash: the only prompt this command sends.
        render(results, result, f"{judge.name} (prompt {judge.prompt.hash})", args.tolerance, args.scale),
        file=out,
    )
    for r in results:
        if r.error is not None:
            print(f"{r.sample.path}:{r.sample.line}: no verdict: {r.error}", file=err)
    if result.failed:
        return 1
    if args.min_agreement is not None and (result.share or 0.0) < args.min_agreement:
        print(f"agreement {result.share:.1%} is below --min-agreement {args.min_agreement:g}", file=err)
        return 1
    return 0


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    command = subparsers.add_parser(
        "judge-agreement",
        help="compare the judge's rubric scores with human labels",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument(
        "labels", nargs="+", help="JSON Lines files: one {rubric, answer, human[, id]} per line"
    )
    command.add_argument(
        "--judge-model",
        default=REFERENCE_JUDGE,
        help=f"judge model, as --pastbench-judge-model (default {REFERENCE_JUDGE}, offline)",
    )
    command.add_argument(
        "--tolerance",
        type=float,
        default=DEFAULT_TOLERANCE,
        help=f"a sample agrees when |judge − human| ≤ this, on the human scale (default {DEFAULT_TOLERANCE})",
    )
    command.add_argument(
        "--scale", type=float, default=1.0, help="human scores run from 0 to this (default 1)"
    )
    command.add_argument(
        "--min-agreement", type=float, default=None, help="exit 1 when the agreement share is below this"
    )
    command.add_argument("--model-aliases", default=None, help="alias file, as --pastbench-model-aliases")
    command.add_argument("--retries", type=int, default=4, help="attempts per request (default 4)")
    command.set_defaults(func=run)
