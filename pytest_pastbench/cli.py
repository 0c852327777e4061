"""The ``pastbench`` command: schema export, family validation, and run summaries."""

from __future__ import annotations

import argparse
import json
import sys
from importlib import import_module
from pathlib import Path


def _schema(args: argparse.Namespace) -> int:
    from .schema import family_json_schema

    text = json.dumps(family_json_schema(), indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def _validate(args: argparse.Namespace) -> int:
    from .detect import FAMILY_SUFFIXES
    from .loader import FamilyFileError, load_family

    paths: list[Path] = []
    for raw in args.paths:
        path = Path(raw)
        if path.is_dir():
            paths.extend(sorted(p for p in path.rglob("*") if p.suffix in FAMILY_SUFFIXES))
        elif path.exists():
            paths.append(path)
        else:
            print(f"{path}: no such file or folder", file=sys.stderr)
            return 2
    failures = 0
    for path in paths:
        try:
            family, _ = load_family(path)
        except FamilyFileError as exc:
            failures += 1
            print(f"FAIL {exc}")
        else:
            print(f"ok   {path} ({family.qualified_id}, {len(family.episodes)} episodes)")
    return 1 if failures else 0


def _summarize(args: argparse.Namespace) -> int:
    from .output import SUMMARY_FILE
    from .table import render_delta_table

    path = Path(args.run)
    if path.is_dir():
        path = path / SUMMARY_FILE
    try:
        summary = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        print(f"{path}: cannot read a run summary: {exc}", file=sys.stderr)
        return 2
    print(render_delta_table(summary))
    return 0


# Modules that add their own subcommands with ``register_cli(subparsers)``; one job each.
COMMAND_MODULES = ("compare", "gates", "merge", "plots", "html_report", "protocols.stream.cli")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pastbench", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    for module in COMMAND_MODULES:
        import_module(f"{__package__}.{module}").register_cli(commands)
    schema = commands.add_parser("schema", help="print the JSON Schema of family files")
    schema.add_argument("-o", "--output", help="write to this file instead of stdout")
    schema.set_defaults(func=_schema)
    validate = commands.add_parser("validate", help="validate family files or folders")
    validate.add_argument("paths", nargs="+")
    validate.set_defaults(func=_validate)
    summarize = commands.add_parser("summarize", help="print the Δ table of a run")
    summarize.add_argument("run", help="a run folder or its sequence_summary.json")
    summarize.set_defaults(func=_summarize)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
