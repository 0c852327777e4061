"""``pastbench merge SHARD... -o RUN``: join the runs of ``--pastbench-shard`` jobs into one run
(the merging is ``results/merge.py``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from ..errors import MergeError
from ..protocols.registry import add_plugin_argument
from ..protocols.standalone import standalone_registry
from ..results.merge import merge_runs
from ..results.render.table import render_delta_table
from ..results.run_folder import SUMMARY_FILE


def run(args: argparse.Namespace) -> int:
    try:
        registry = standalone_registry(args.plugins)
        run_dir = merge_runs([Path(p) for p in args.runs], Path(args.output), registry)
    except (MergeError, pytest.UsageError) as exc:
        print(f"pastbench merge: {exc}", file=sys.stderr)
        return 2
    print(render_delta_table(json.loads((run_dir / SUMMARY_FILE).read_text())))
    print(f"\nmerged {len(args.runs)} shards into {run_dir} (pastbench summarize {run_dir})")
    return 0


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "merge",
        help="join the runs of --pastbench-shard jobs into one run",
        description="Join the shard runs of one command (--pastbench-shard=K/N, every K once) into "
        "one run folder: records, traces, rebuilt summary.",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run folders of the shards")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="RUN",
        help="the merged run's folder (its name is the run id); it must not hold a run yet",
    )
    add_plugin_argument(parser)
    parser.set_defaults(func=run)
