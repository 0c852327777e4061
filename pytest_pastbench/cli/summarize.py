"""``pastbench summarize``: the Δ table of a finished run."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def run(args: argparse.Namespace) -> int:
    # lazy: keeps `pastbench --help` and the other subcommands light
    from ..results.render.table import render_delta_table
    from ..results.run_folder import SUMMARY_FILE

    given = Path(args.run)
    path = given / SUMMARY_FILE if given.is_dir() else given
    summary: object = None
    if not path.exists():
        problem = f"not a run folder (no {SUMMARY_FILE})" if given.is_dir() else "no such file or folder"
    else:
        try:
            summary = json.loads(path.read_text())
            problem = None if isinstance(summary, dict) and "configs" in summary else "not a run summary"
        except OSError as exc:
            problem = f"cannot read {path}: {exc.strerror or exc}"
        except json.JSONDecodeError as exc:
            problem = f"not a run summary (not JSON: {exc.msg}, line {exc.lineno})"
    if problem is not None:
        fix = f"pass a run folder (reports/<run id>) or its {SUMMARY_FILE}"
        print(f"pastbench summarize: {given}: {problem}; {fix}", file=sys.stderr)
        return 2
    print(render_delta_table(summary))
    return 0


def register_cli(commands: Any) -> None:
    summarize = commands.add_parser("summarize", help="print the Δ table of a run")
    summarize.add_argument("run", help="a run folder or its sequence_summary.json")
    summarize.set_defaults(func=run)
