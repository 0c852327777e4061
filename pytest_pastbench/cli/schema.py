"""``pastbench schema``: the JSON Schema of a protocol's family files (PAST's by default)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .protocol_choice import Unanswered, add_protocol_arguments, protocol_answer


def run(args: argparse.Namespace) -> int:
    try:
        schema = protocol_answer(args, "schema", lambda p: p.family_schema(), "publishes no JSON Schema")
    except Unanswered as exc:
        print(exc, file=sys.stderr)
        return 2
    text = json.dumps(schema, indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def register_cli(commands: Any) -> None:
    schema = commands.add_parser("schema", help="print the JSON Schema of family files")
    schema.add_argument("-o", "--output", help="write to this file instead of stdout")
    add_protocol_arguments(schema)
    schema.set_defaults(func=run)
