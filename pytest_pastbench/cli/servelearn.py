"""``pastbench servelearn download [DIR]``: ServeLearnBench's published ``dataset/`` at a pinned
commit, every file checked (the fetching and checking is ``protocols/stream/servelearn/download.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path, PurePosixPath
from typing import Any

from ..protocols.stream.servelearn.download import (
    API_BASE,
    COMMIT,
    RAW_BASE,
    REPOSITORY,
    DownloadError,
    download,
)


def _cli(args: argparse.Namespace) -> int:
    dest = Path(args.dir)
    try:
        written = download(
            dest,
            api_base=args.api_base,
            raw_base=args.raw_base,
            commit=args.commit,
            scenarios=args.scenario or None,
        )
    except DownloadError as exc:
        print(f"servelearn download: {exc}", file=sys.stderr)
        return 1
    scenarios = sorted({PurePosixPath(p).parts[1] for p in written if p.startswith("data/")})
    print(
        f"{len(written)} files of {REPOSITORY}@{args.commit[:12]} checked and written to {dest} "
        f"({len(scenarios)} scenarios: {', '.join(scenarios)})"
    )
    print(f"run: pastbench validate {dest}")
    return 0


def register_cli(commands: Any) -> None:
    parser = commands.add_parser("servelearn", help="ServeLearnBench's published dataset")
    actions = parser.add_subparsers(dest="servelearn_command", required=True)
    fetch = actions.add_parser(
        "download",
        help=f"fetch the authors' dataset/ at a pinned commit ({COMMIT[:12]}), checking every file's hash",
    )
    fetch.add_argument("dir", nargs="?", default="servelearnbench-dataset", help="where to write it")
    fetch.add_argument("--scenario", action="append", help="only this scenario (repeatable), e.g. retail_l1")
    fetch.add_argument("--commit", default=COMMIT, help="another commit of the authors' repository")
    fetch.add_argument("--api-base", default=API_BASE, help=argparse.SUPPRESS)  # tests: a loopback server
    fetch.add_argument("--raw-base", default=RAW_BASE, help=argparse.SUPPRESS)
    fetch.set_defaults(func=_cli)
