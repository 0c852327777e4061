"""The ``pastbench`` command itself: its help and version (each subcommand is tested in
tests/cli/test_<command>.py)."""

import pytest

from pytest_pastbench.cli import main


def test_help_describes_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from pytest_pastbench.cli import DESCRIPTION, build_parser

    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "The benchmark itself runs under pytest" in " ".join(out.split()) and "``" not in out
    # Every subcommand is named in the description, so it cannot fall behind the commands again.
    [commands] = [a.choices for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert sorted(c for c in commands if c not in DESCRIPTION) == []


def test_version_prints_the_plugin_version(capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_pastbench.version import plugin_version

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"pastbench {plugin_version()}"
