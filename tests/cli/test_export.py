"""``pastbench export``: a protocol's whole dataset as one JSON file, by default
``<protocol>_dataset.json`` in the working folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_pastbench.cli import main
from tests.family_samples import BAD_STAGE, GOOD_MEMORY


def families_folder(root: Path, text: str) -> Path:
    (root / "families" / "memory").mkdir(parents=True)
    (root / "families" / "memory" / "tiny_prefs.yaml").write_text(text)
    return root / "families"


def test_without_out_the_file_is_named_after_the_protocol_and_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    families = families_folder(tmp_path, GOOD_MEMORY)
    monkeypatch.chdir(tmp_path)
    assert main(["export", "--families", str(families)]) == 0
    assert capsys.readouterr().out.startswith("wrote past_dataset.json: 1 families, 2 episodes, ")
    document = json.loads((tmp_path / "past_dataset.json").read_text())
    assert [(f["capability"], f["id"]) for f in document["families"]] == [("memory", "tiny_prefs")]


def test_a_family_file_that_fails_its_schema_is_exit_1_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    families = families_folder(tmp_path, BAD_STAGE)
    out = tmp_path / "x.json"
    assert main(["export", "--families", str(families), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("FAIL ") and captured.out == ""
    assert not out.exists()
