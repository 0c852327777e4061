"""``pastbench validate``: schema of every family file, then the protocol's audit; exit 1 on a
failing file, 2 on bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.cli import main
from tests.family_samples import BAD_STAGE, GOOD_MEMORY


def test_validate_reports_each_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tiny_prefs.yaml").write_text(GOOD_MEMORY)
    (tmp_path / "broken.yaml").write_text(BAD_STAGE)
    assert main(["validate", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "ok   " in out and "memory.tiny_prefs, 2 episodes" in out
    assert "FAIL " in out and "episodes.1.sessions.1.stage" in out


def test_validate_a_file_whose_id_is_not_its_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "other.yaml").write_text(GOOD_MEMORY)
    assert main(["validate", str(tmp_path / "other.yaml")]) == 1
    assert "must equal the file name" in capsys.readouterr().out


def test_validate_missing_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "/no/such/place"]) == 2


def test_a_missing_path_is_named_in_one_line_before_anything_is_audited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tiny_prefs.yaml").write_text(GOOD_MEMORY)
    missing = tmp_path / "gone.yaml"
    assert main(["validate", str(tmp_path), str(missing), "--no-runs", "--any-shape"]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"{missing}: no such file or folder\n"
    assert captured.out == ""  # the existing folder was not audited either
