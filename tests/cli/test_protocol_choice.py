"""``--protocol``: schema, export and validate ask the named protocol to do the work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_pastbench.cli import main


def test_the_default_is_past_and_another_protocol_is_asked_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema", "-o", str(tmp_path / "past.json")]) == 0
    assert json.loads((tmp_path / "past.json").read_text())["title"] == "pytest-pastbench family file"
    # A protocol that publishes none (the default of ProtocolBase) says so; nothing is written.
    for command in (["schema"], ["export", "--out", str(tmp_path / "x.json")], ["validate", str(tmp_path)]):
        assert main([*command, "--protocol", "stream"]) == 2
        assert "protocol stream" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_an_unknown_protocol_names_the_registered_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--protocol", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "no protocol 'nosuch' is registered" in err and "past" in err
