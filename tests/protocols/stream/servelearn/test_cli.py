"""``pastbench validate`` on a ServeLearnBench download."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_pastbench.cli import main

from .helpers import FIXTURES


def test_validate_prints_the_replay_audit_of_a_download(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(FIXTURES)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1:] == [
        "servelearn validate: 25 of 25 tasks replay exactly",
        "  banking_l1: 7 of 7 tasks replay exactly",
        "  pitch_l1: 8 of 8 tasks replay exactly (Pitch graded by pastbench/verbatim)",
        "  retail_l1: 10 of 10 tasks replay exactly",
    ]


def test_validate_fails_on_a_task_it_cannot_reproduce(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "dataset"
    shutil.copytree(FIXTURES, root)
    serving = root / "data" / "banking_l1" / "serving.jsonl"
    serving.write_text(serving.read_text().replace('"leg": 3', '"leg": 4', 1))
    assert main(["validate", str(root)]) == 1
    out = capsys.readouterr().out
    assert "  banking_l1: 6 of 7 tasks replay exactly" in out and "    action_error: 1" in out
    assert "      bfx_s3: execute_leg: Error: no alternative 4" in out


def test_downloads_and_family_files_are_validated_separately(capsys: pytest.CaptureFixture[str]) -> None:
    family = next(Path(__file__).parents[4].joinpath("families").rglob("*.yaml"))
    assert main(["validate", str(FIXTURES), str(family)]) == 2
    assert "separate runs" in capsys.readouterr().err
