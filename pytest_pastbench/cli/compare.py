"""``pastbench compare A B [C ...]``: runs or baselines against the first one; with ``--fail`` it
gates the others (the comparing and gating are ``results/compare.py`` and ``results/gates.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import BaselineError, GateSyntaxError
from ..protocols.standalone import standalone_registry
from ..results.baseline import DEFAULT_STORAGE, Baseline, load_baseline
from ..results.compare import render_comparison, render_side_by_side
from ..results.gates import (
    GATE_SYNTAX,
    compatibility_warnings,
    gate_and_report,
    gate_exit_code,
    parse_gates,
    registry_metrics,
)


def run(args: argparse.Namespace) -> int:
    if len(args.refs) < 2:
        print(
            "pastbench compare: give at least two runs or baselines (the first is the reference)",
            file=sys.stderr,
        )
        return 2
    registry = standalone_registry()
    try:
        gates = parse_gates(args.fail, registry_metrics(registry)) if args.fail else []
        loaded: list[Baseline] = [load_baseline(ref, Path(args.storage), registry) for ref in args.refs]
    except (GateSyntaxError, BaselineError) as exc:
        print(f"pastbench compare: {exc}", file=sys.stderr)
        return 2
    reference, others = loaded[0], loaded[1:]
    if len(loaded) == 2:
        print(f"{others[0].name} against {reference.name}\n")
        print(render_comparison(others[0].summary, reference.summary, registry))
    else:
        print(render_side_by_side([(b.name, b.summary) for b in loaded]))
    if not gates:
        for other in others:
            for warning in compatibility_warnings(other.run, reference.run):
                print(f"warning: {other.name}: {warning}", file=sys.stderr)
        return 0
    codes = []
    for other in others:
        print(f"\ngates: {other.name} against {reference.name}")
        codes.append(gate_exit_code(gate_and_report(gates, other, reference, registry, args.seed)))
    # A regression anywhere outranks an unevaluable gate elsewhere (1 before 2), as in one gate run.
    return 1 if 1 in codes else max(codes)


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    compare = subparsers.add_parser(
        "compare",
        help="compare runs or baselines (the first is the reference); --fail gates the others",
        description="Compare runs or saved baselines against the first one. "
        f"With --fail, exit 1 when a later one regressed. Gate syntax: {GATE_SYNTAX}.",
    )
    compare.add_argument("refs", nargs="+", metavar="RUN", help="run folders, baseline files or saved names")
    compare.add_argument(
        "--fail", action="append", metavar="EXPR", help="gate [SCOPE.]METRIC:THRESHOLD; repeatable"
    )
    compare.add_argument(
        "--storage", default=str(DEFAULT_STORAGE), help=f"baseline folder (default {DEFAULT_STORAGE})"
    )
    compare.add_argument("--seed", type=int, default=None, help="bootstrap seed (default: each run's seed)")
    compare.set_defaults(func=run)
