"""``pastbench options``: the reference page drawn from the declarations, one row per option with
its value and default as the reader needs them."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from pytest_pastbench.cli.options import builtin_option_groups, reference_markdown, register_cli
from pytest_pastbench.plugin.option_spec import OptionGroup, OptionSpec
from pytest_pastbench.plugin.options import SHARED_GROUPS

MINE = OptionGroup(
    "mine",
    "my protocol (a conftest's)",
    (
        OptionSpec("mine-on", "switch it on", kind=bool),
        OptionSpec("mine-mode", "the mode", default="fast", choices=("fast", "slow")),
        OptionSpec("mine-budget", "a budget", kind=float, above_zero="give a budget above 0"),
        OptionSpec("mine-share", "a share", kind=float, low=0.0, high=1.0, default=0.5),
        OptionSpec("mine-count", "a count", kind=int, low=1, default_text="each family's own"),
        OptionSpec("mine-tag", "a | piped help", multiple=True, metavar="TAG"),
    ),
)


def row(page: str, name: str) -> list[str]:
    line = next(line for line in page.splitlines() if line.startswith(f"| `--pastbench-{name}"))
    return [cell.strip() for cell in line.strip("|").split(" | ")]


def test_a_protocols_section_follows_the_shared_ones_with_a_row_per_option() -> None:
    page = reference_markdown([MINE])
    titles = [line for line in page.splitlines() if line.startswith("## ")]
    assert titles == [f"## {g.title[0].upper()}{g.title[1:]}" for g in [*SHARED_GROUPS, MINE]]
    assert titles[-1] == "## My protocol (a conftest's)"
    assert page.endswith("\n") and "pastbench options -o docs/options.md" in page


@pytest.mark.parametrize(
    ("name", "option", "ini", "value", "default"),
    [
        ("mine-on", "`--pastbench-mine-on`", "`pastbench_mine_on` (bool)", "flag", "off"),
        ("mine-mode", "`--pastbench-mine-mode={fast,slow}`", "`pastbench_mine_mode` (string)",
         "`fast` \\| `slow`", "`fast`"),
        ("mine-budget", "`--pastbench-mine-budget=X`", "`pastbench_mine_budget` (float)", "number > 0",
         "none"),
        ("mine-share", "`--pastbench-mine-share=X`", "`pastbench_mine_share` (float)",
         "number in [0.0, 1.0]", "`0.5`"),
        ("mine-count", "`--pastbench-mine-count=N`", "`pastbench_mine_count` (int)", "integer ≥ 1",
         "each family's own"),
        ("mine-tag", "`--pastbench-mine-tag=TAG`", "`pastbench_mine_tag` (args)", "text, repeatable", "none"),
    ],
)  # fmt: skip
def test_each_row_shows_the_option_its_ini_key_value_and_default(
    name: str, option: str, ini: str, value: str, default: str
) -> None:
    assert row(reference_markdown([MINE]), name)[:4] == [option, ini, value, default]


def test_a_pipe_in_the_help_does_not_split_the_table_row() -> None:
    assert row(reference_markdown([MINE]), "mine-tag")[4] == "a \\| piped help"
    assert row(reference_markdown([MINE]), "mine-share")[4] == "a share (default 0.5)"


def test_the_builtin_groups_are_the_protocols_own() -> None:
    groups = builtin_option_groups()
    keys = [g.key for g in groups]
    assert len(keys) == len(set(keys))  # each protocol once
    assert {"intervention", "stream"} <= {g.key for g in groups}
    page = reference_markdown(groups)
    for group in groups:
        for spec in group.specs:
            assert f"`--pastbench-{spec.name}" in page


def run_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    register_cli(parser.add_subparsers())
    args = parser.parse_args(["options", *argv])
    return args.func(args)


def test_the_command_prints_or_writes_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = reference_markdown(builtin_option_groups())
    assert run_cli() == 0
    assert capsys.readouterr().out == expected
    target = tmp_path / "site" / "docs" / "options.md"
    assert run_cli("-o", str(target)) == 0
    assert target.read_text() == expected and capsys.readouterr().out == ""
