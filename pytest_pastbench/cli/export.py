"""``pastbench export``: a protocol's whole dataset as one JSON file (PAST's by default)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..errors import FamilyFileError
from ..protocols.standalone import standalone_registry
from .protocol_choice import DEFAULT_PROTOCOL, Unanswered, add_protocol_arguments, protocol_answer


def run(args: argparse.Namespace) -> int:
    out = Path(args.out or f"{args.protocol}_dataset.json")
    families = Path(args.families) if args.families else None
    try:
        written = protocol_answer(
            args,
            "export",
            lambda p: p.export_dataset(families, out, standalone_registry(args.plugins)),
            "exports no dataset",
        )
    except Unanswered as exc:
        print(exc, file=sys.stderr)
        return 2
    except FamilyFileError as exc:
        print(f"FAIL {exc}", file=sys.stderr)
        return 1
    print(written)
    return 0


def register_cli(commands: Any) -> None:
    export = commands.add_parser("export", help="write the whole dataset as one JSON file")
    export.add_argument(
        "--out",
        default=None,
        help=f"output file (default: <protocol>_dataset.json, {DEFAULT_PROTOCOL}_dataset.json)",
    )
    export.add_argument("--families", help="family folder (default: the built-in families)")
    add_protocol_arguments(export)
    export.set_defaults(func=run)
