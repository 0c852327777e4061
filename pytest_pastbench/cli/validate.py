"""``pastbench validate``: schema of every family file, then the protocol's dataset audit (PAST's by
default; or the ServeLearnBench replay audit of a download)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..protocols.standalone import standalone_registry
from .protocol_choice import Unanswered, add_protocol_arguments, protocol_answer


def run(args: argparse.Namespace) -> int:
    """Schema of every file, then the protocol's audit (PAST's: counts table and every failure)."""
    # lazy: keeps `pastbench --help` and the other subcommands light
    from ..protocols.stream.servelearn.schema import is_servelearn

    paths = [Path(raw) for raw in args.paths]
    for path in paths:
        if not path.exists():
            print(f"{path}: no such file or folder", file=sys.stderr)
            return 2
    downloads = [p for p in paths if p.is_dir() and is_servelearn(p)]
    if downloads:  # ServeLearnBench's published dataset: its own replay audit
        if len(downloads) < len(paths):
            print("validate ServeLearnBench downloads and family files in separate runs", file=sys.stderr)
            return 2
        return validate_downloads(downloads)
    try:
        validated = protocol_answer(
            args,
            "validate",
            lambda p: p.validate(
                paths,
                standalone_registry(args.plugins),
                run_policies=not args.no_runs,
                check_counts=not args.any_shape,
            ),
            "audits no family files",
        )
    except Unanswered as exc:
        print(exc, file=sys.stderr)
        return 2
    text, passed = validated
    print(text)
    return 0 if passed else 1


def validate_downloads(paths: list[Path]) -> int:
    """Print each ServeLearnBench download's replay audit; 0 when every task replayed exactly and
    every scenario read."""
    # lazy: keeps `pastbench --help` and the other subcommands light
    from ..protocols.stream.servelearn.replay import validate_servelearn

    status = 0
    for path in paths:
        report = validate_servelearn(path)
        print(f"{path}:")
        for line in report.lines():
            print(line)
        status = status if report.ok else 1
    return status


def register_cli(commands: Any) -> None:
    validate = commands.add_parser(
        "validate", help="validate and audit family files or folders, or replay a ServeLearnBench download"
    )
    validate.add_argument("paths", nargs="+")
    validate.add_argument(
        "--no-runs",
        action="store_true",
        help="skip the oracle and blind runs (schema, counts and leaks only)",
    )
    validate.add_argument(
        "--any-shape", action="store_true", help="your own family set: skip the built-in set's count rule"
    )
    add_protocol_arguments(validate)
    validate.set_defaults(func=run)
