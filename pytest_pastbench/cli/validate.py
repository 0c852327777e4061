"""``pastbench validate``: schema of every family file, then the dataset audit (or the ServeLearnBench
replay audit of a download)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def run(args: argparse.Namespace) -> int:
    """Schema of every file, then the dataset audit (counts table and every failure)."""
    from ..protocols.past.dataset.audit import audit, counts_table, shortcuts_table
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
    report = audit(paths, run_policies=not args.no_runs, check_counts=not args.any_shape)
    for path, family in report.families.items():
        print(f"ok   {path} ({family.qualified_id}, {len(family.episodes)} episodes)")
    for path, described in report.protocol_families.items():
        print(f"ok   {path} ({described})")
    print()
    print(counts_table(report, with_expected=not args.any_shape))
    print()
    if report.shortcuts:
        print(shortcuts_table(report))
        print()
    for note in report.notes:
        print(note)
    for finding in report.findings:
        print(finding)
    if report.ok:
        oracle = "" if report.oracle_min is None else f"; oracle min s_e {report.oracle_min:.2f}"
        if report.empty_max is not None:
            oracle += f"; empty-answer max s_e {report.empty_max:.2f}"
        print(f"audit passed: {len(report.families)} families{oracle}")
        return 0
    print(f"audit failed: {len(report.findings)} problem(s)")
    return 1


def validate_downloads(paths: list[Path]) -> int:
    """Print each ServeLearnBench download's replay audit; 0 when every task replayed exactly and
    every scenario read."""
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
    validate.set_defaults(func=run)
