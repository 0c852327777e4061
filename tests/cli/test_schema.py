"""``pastbench schema``: the JSON Schema of a protocol's family files, to stdout or a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_pastbench.cli import main


def test_schema_is_json_schema_of_a_family(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "pytest-pastbench family file"
    assert {"format", "id", "capability", "version", "episodes"} <= set(schema["properties"])


def test_schema_to_a_file(tmp_path: Path) -> None:
    assert main(["schema", "-o", str(tmp_path / "s.json")]) == 0
    assert json.loads((tmp_path / "s.json").read_text())["type"] == "object"


def test_the_file_holds_what_stdout_would_print(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    printed = capsys.readouterr().out
    assert main(["schema", "--output", str(tmp_path / "s.json")]) == 0
    assert capsys.readouterr().out == ""  # written, not printed
    assert (tmp_path / "s.json").read_text() == printed
