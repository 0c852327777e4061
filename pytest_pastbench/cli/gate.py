"""``pastbench gate RUN --baseline B --fail EXPR``: exit 1 when a run regressed against a baseline
(the gate engine is ``results/gates.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import BaselineError, GateSyntaxError
from ..protocols.standalone import standalone_registry
from ..results.baseline import DEFAULT_STORAGE, load_baseline
from ..results.gates import GATE_SYNTAX, gate_and_report, gate_exit_code, parse_gates, registry_metrics


def run(args: argparse.Namespace) -> int:
    registry = standalone_registry()
    try:
        gates = parse_gates(args.fail, registry_metrics(registry))
        storage = Path(args.storage)
        current = load_baseline(args.run, storage, registry)
        baseline = load_baseline(args.baseline, storage, registry)
    except (GateSyntaxError, BaselineError) as exc:
        print(f"pastbench gate: {exc}", file=sys.stderr)
        return 2
    return gate_exit_code(gate_and_report(gates, current, baseline, registry, args.seed))


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    gate = subparsers.add_parser(
        "gate",
        help="fail (exit 1) when a run regressed against a baseline",
        description=f"Check a run against a baseline. Gate syntax: {GATE_SYNTAX}. "
        "Exit 0 when every gate passes, 1 when one failed, "
        "2 on bad input or a gate that cannot be evaluated.",
    )
    gate.add_argument("run", help="the run to check: a run folder (or a saved baseline name or file)")
    gate.add_argument(
        "--baseline", required=True, help="a saved baseline name, a baseline file, or a run folder"
    )
    gate.add_argument(
        "--fail",
        action="append",
        required=True,
        metavar="EXPR",
        help="gate [SCOPE.]METRIC:THRESHOLD; repeatable",
    )
    gate.add_argument(
        "--storage", default=str(DEFAULT_STORAGE), help=f"baseline folder (default {DEFAULT_STORAGE})"
    )
    gate.add_argument("--seed", type=int, default=None, help="bootstrap seed (default: the run's seed)")
    gate.set_defaults(func=run)
