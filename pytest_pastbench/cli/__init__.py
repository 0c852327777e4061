"""The ``pastbench`` command: family-file tools and tools for finished runs (subcommands)."""

from __future__ import annotations

import argparse
import json
import sys
from importlib import import_module
from pathlib import Path


def _schema(args: argparse.Namespace) -> int:
    from ..protocols.past.schema import family_json_schema

    text = json.dumps(family_json_schema(), indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def _validate(args: argparse.Namespace) -> int:
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
        from ..protocols.stream.servelearn.cli import validate_downloads

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


def _export(args: argparse.Namespace) -> int:
    from ..errors import FamilyFileError
    from ..protocols.past.dataset.export import export_dataset
    from ..resources import families_dir

    try:
        document = export_dataset(Path(args.families) if args.families else families_dir(), Path(args.out))
    except FamilyFileError as exc:
        print(f"FAIL {exc}", file=sys.stderr)
        return 1
    print(
        f"wrote {args.out}: {document['n_families']} families, {document['n_episodes']} episodes, "
        f"dataset hash {document['dataset_hash']}"
    )
    return 0


def _summarize(args: argparse.Namespace) -> int:
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


# Modules that add their own subcommands with ``register_cli(subparsers)``; one job each.
COMMAND_MODULES = (
    "pytest_pastbench.results.compare",
    "pytest_pastbench.results.gates",
    "pytest_pastbench.results.merge",
    "pytest_pastbench.results.render.plots",
    "pytest_pastbench.results.render.html",
    "pytest_pastbench.judge.agreement",
    "pytest_pastbench.protocols.stream.cli",
    "pytest_pastbench.plugin.options",
)


DESCRIPTION = (
    "Tools of pytest-pastbench. The benchmark itself runs under pytest (pytest --pastbench-...); "
    "these commands work on finished runs (summarize, compare, gate, merge, plot, html, "
    "judge-agreement) and on family files (validate, schema, generate-families, generate-streams, "
    "export), and print the options reference (options). 'pastbench COMMAND --help' describes each."
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pastbench", description=DESCRIPTION)
    commands = parser.add_subparsers(dest="command", required=True)
    for module in COMMAND_MODULES:
        import_module(module).register_cli(commands)
    schema = commands.add_parser("schema", help="print the JSON Schema of family files")
    schema.add_argument("-o", "--output", help="write to this file instead of stdout")
    schema.set_defaults(func=_schema)
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
        "--any-shape", action="store_true", help="your own family set: skip the 26 / 204 count rule"
    )
    validate.set_defaults(func=_validate)
    from ..protocols.past.dataset.export import DEFAULT_EXPORT

    export = commands.add_parser("export", help="write the whole dataset as one JSON file")
    export.add_argument("--out", default=DEFAULT_EXPORT, help=f"output file (default: {DEFAULT_EXPORT})")
    export.add_argument("--families", help="family folder (default: the built-in families)")
    export.set_defaults(func=_export)
    summarize = commands.add_parser("summarize", help="print the Δ table of a run")
    summarize.add_argument("run", help="a run folder or its sequence_summary.json")
    summarize.set_defaults(func=_summarize)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
