"""The ``pastbench`` command: one module per subcommand, each adding itself with ``register_cli``."""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

from ..models.offline_models import use_protocols
from ..protocols.standalone import standalone_registry
from ..version import plugin_version

# Modules that add their own subcommands with ``register_cli(subparsers)``; one job each.
COMMAND_MODULES = (
    "pytest_pastbench.cli.compare",
    "pytest_pastbench.cli.gate",
    "pytest_pastbench.cli.merge",
    "pytest_pastbench.cli.plot",
    "pytest_pastbench.cli.html",
    "pytest_pastbench.cli.judge_agreement",
    "pytest_pastbench.cli.grader_agreement",
    "pytest_pastbench.cli.generate_streams",
    "pytest_pastbench.cli.servelearn",
    "pytest_pastbench.cli.options",
    "pytest_pastbench.cli.schema",
    "pytest_pastbench.cli.validate",
    "pytest_pastbench.cli.export",
    "pytest_pastbench.cli.summarize",
)


DESCRIPTION = (
    "Tools of pytest-pastbench. The benchmark itself runs under pytest (pytest --pastbench-...); "
    "these commands work on finished runs (summarize, compare, gate, merge, plot, html, "
    "judge-agreement), measure the grader on labelled answers (grader-agreement), work on family "
    "files (validate, schema, generate-streams, export), fetch ServeLearnBench's published dataset "
    "(servelearn download), and print the options reference (options). "
    "'pastbench COMMAND --help' describes each."
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pastbench", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"pastbench {plugin_version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    for module in COMMAND_MODULES:
        import_module(module).register_cli(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    # The offline models (judge-agreement's reference judge, validate's policy runs) answer with
    # the built-in protocols; the registry loads on their first use, not for --help.
    use_protocols(standalone_registry)
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
