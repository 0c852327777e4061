"""``pastbench html RUN``: a self-contained HTML report of a run (the page is ``results/render/html.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import RunLoadError
from ..protocols.registry import add_plugin_argument
from ..protocols.standalone import standalone_registry
from ..results.read import load_run
from ..results.render.html import REPORT_FILE, write_html


def run(args: argparse.Namespace) -> int:
    try:
        loaded = load_run(args.run)
    except RunLoadError as exc:
        print(f"pastbench html: {exc}", file=sys.stderr)
        return 2
    out = Path(args.output) if args.output else loaded.path / REPORT_FILE
    try:
        print(write_html(loaded, out, standalone_registry(args.plugins)))
    except RunLoadError as exc:  # a damaged protocol_results.json
        print(f"pastbench html: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"pastbench html: cannot write {out}: {exc}", file=sys.stderr)
        return 2
    return 0


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("html", help="write a self-contained HTML report of a run")
    parser.add_argument("run", help="a run folder (reports/<run id>)")
    parser.add_argument("-o", "--output", metavar="FILE", help="where to write (default: RUN/report.html)")
    add_plugin_argument(parser)
    parser.set_defaults(func=run)
