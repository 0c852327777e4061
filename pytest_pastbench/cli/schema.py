"""``pastbench schema``: the JSON Schema of PAST family files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def run(args: argparse.Namespace) -> int:
    from ..protocols.past.schema import family_json_schema

    text = json.dumps(family_json_schema(), indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def register_cli(commands: Any) -> None:
    schema = commands.add_parser("schema", help="print the JSON Schema of family files")
    schema.add_argument("-o", "--output", help="write to this file instead of stdout")
    schema.set_defaults(func=run)
