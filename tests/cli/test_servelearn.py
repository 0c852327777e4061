"""``pastbench servelearn download [DIR]``: what the command passes to the download, what it says on
success, and a failed download as exit 1 and one line (the download itself is tested in
tests/protocols/stream/servelearn/test_download.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.cli import main
from pytest_pastbench.cli import servelearn as command
from pytest_pastbench.protocols.stream.servelearn.download import COMMIT, REPOSITORY, DownloadError


def test_a_download_says_how_many_files_and_which_scenarios_and_what_to_run_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[dict[str, Any]] = []

    def fake_download(dest: Path, **kwargs: Any) -> list[str]:
        calls.append({"dest": dest, **kwargs})
        return ["data/retail_l1/a.jsonl", "data/banking_l1/b.jsonl", "data/retail_l1/c.json", "README.md"]

    monkeypatch.setattr(command, "download", fake_download)
    dest = tmp_path / "ds"
    assert (
        main(["servelearn", "download", str(dest), "--scenario", "retail_l1", "--scenario", "banking_l1"])
        == 0
    )
    [call] = calls
    assert call["dest"] == dest and call["commit"] == COMMIT
    assert call["scenarios"] == ["retail_l1", "banking_l1"]
    assert capsys.readouterr().out.splitlines() == [
        f"4 files of {REPOSITORY}@{COMMIT[:12]} checked and written to {dest} "
        "(2 scenarios: banking_l1, retail_l1)",
        f"run: pastbench validate {dest}",
    ]
    calls.clear()
    assert main(["servelearn", "download", str(dest)]) == 0
    assert calls[0]["scenarios"] is None  # no --scenario: every scenario


def test_a_failed_download_is_exit_1_and_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def failing(dest: Path, **kwargs: Any) -> list[str]:
        raise DownloadError("data/retail_l1/a.jsonl: sha256 mismatch")

    monkeypatch.setattr(command, "download", failing)
    assert main(["servelearn", "download", str(tmp_path / "ds")]) == 1
    captured = capsys.readouterr()
    assert captured.err == "servelearn download: data/retail_l1/a.jsonl: sha256 mismatch\n"
    assert captured.out == ""


def test_download_is_the_only_action(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["servelearn", "upload"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'upload' (choose from 'download')" in capsys.readouterr().err
