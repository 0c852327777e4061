"""``pastbench plot RUN``: the report figures (PNG) of a run (the drawing is ``results/render/plots.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import PlotError, RunLoadError
from ..protocols.registry import add_plugin_argument
from ..protocols.standalone import standalone_registry
from ..results.read import load_run
from ..results.render.plots import make_plots


def run(args: argparse.Namespace) -> int:
    try:
        loaded = load_run(args.run)
        out_dir = Path(args.output) if args.output else loaded.path / "plots"
        registry = standalone_registry(args.plugins)
        if args.protocol is not None and args.protocol not in {p.name for p in registry}:
            known = ", ".join(sorted(p.name for p in registry))
            raise PlotError(f"--protocol {args.protocol}: no such protocol (known: {known})")
        result = make_plots(loaded, out_dir, registry, args.protocol)
    except (RunLoadError, PlotError) as exc:
        print(f"pastbench plot: {exc}", file=sys.stderr)
        return 2
    for path in result.written:
        print(path)
    for name, why in result.skipped.items():
        print(f"skipped {name}: {why}")
    for line in result.absent.values():
        print(line)
    return 0


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("plot", help="draw the report figures (PNG) of a run")
    parser.add_argument("run", help="a run folder (reports/<run id>)")
    parser.add_argument("-o", "--output", metavar="OUTDIR", help="folder for the PNGs (default: RUN/plots)")
    parser.add_argument(
        "--protocol",
        metavar="NAME",
        help="only this protocol's figures (past, intervention, plasticity, stream or a plugin's; "
        "default: every protocol in the run)",
    )
    add_plugin_argument(parser)
    parser.set_defaults(func=run)
