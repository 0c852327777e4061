"""``pastbench options``: the options reference (docs/options.md), drawn from the declarations:
the shared options (plugin/options.py) and each built-in protocol's (protocols/*/options.py)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from ..plugin.option_spec import OptionGroup, OptionSpec
from ..plugin.options import SHARED_GROUPS, help_text

REFERENCE_FILE = "docs/options.md"


def builtin_option_groups() -> list[OptionGroup]:
    """The built-in protocols' option groups, registered through the same hook as in a run."""
    from ..protocols import builtin  # lazy: keeps `pastbench --help` and the other subcommands light

    groups: list[OptionGroup] = []
    builtin.pytest_pastbench_register_options(register=groups.append)
    return groups


def _value_text(spec: OptionSpec) -> str:
    if spec.flag:
        return "flag"
    if spec.choices:
        return " \\| ".join(f"`{choice}`" for choice in spec.choices)
    noun = {int: "integer", float: "number"}.get(spec.kind, "text")
    if spec.above_zero is not None:
        noun += " > 0"
    elif spec.low is not None and spec.high is not None:
        noun += f" in [{spec.low}, {spec.high}]"
    elif spec.low is not None:
        noun += f" ≥ {spec.low}"
    return noun + (", repeatable" if spec.multiple else "")


def _default_text(spec: OptionSpec) -> str:
    if spec.default_text is not None:
        return spec.default_text
    if spec.flag:
        return "off"
    return "none" if spec.default in (None, ()) else f"`{spec.default}`"


def reference_markdown(protocol_groups: Sequence[OptionGroup]) -> str:
    """docs/options.md: one section per shared group, then one per protocol; one row per option."""
    rows = [
        "# Options",
        "",
        "<!-- Generated from the declarations in pytest_pastbench/plugin/options.py and each",
        "     protocol's (pytest_pastbench/protocols/*/options.py) by",
        f"     `pastbench options -o {REFERENCE_FILE}`; edit those, not this page. -->",
        "",
        "Every `--pastbench-NAME` option is also the ini key `pastbench_NAME` (in `pytest.ini`,",
        "`pyproject.toml` under `[tool.pytest.ini_options]`, or `tox.ini`); the command line wins.",
        "A value out of its type, bounds or choices stops the run before anything starts, with a",
        "one-line fix. `pytest --help` lists them in the same sections. A protocol registered by a",
        "plugin or a conftest adds a section of its own (docs/extending.md).",
    ]
    header = ["| option | ini key (type) | value | default | what it does |", "|---|---|---|---|---|"]
    for group in [*SHARED_GROUPS, *protocol_groups]:
        rows += ["", f"## {group.title[0].upper()}{group.title[1:]}", "", *header]
        for spec in group.specs:
            option = f"--pastbench-{spec.name}" + ("" if spec.flag else f"={spec.placeholder}")
            text = help_text(spec).replace("|", "\\|")
            rows.append(
                f"| `{option}` | `{spec.ini_key}` ({spec.ini_type}) | "
                f"{_value_text(spec)} | {_default_text(spec)} | {text} |"
            )
    return "\n".join(rows) + "\n"


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("options", help="print the options reference (Markdown)")
    parser.add_argument("--markdown", action="store_true", help="Markdown (the only format; the default)")
    parser.add_argument("-o", "--output", metavar="FILE", help=f"write it to FILE, e.g. {REFERENCE_FILE}")
    parser.set_defaults(func=_cli)


def _cli(args: argparse.Namespace) -> int:
    text = reference_markdown(builtin_option_groups())
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text)
    else:
        print(text, end="")
    return 0
