"""``pastbench generate-streams``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_pastbench.cli import main


def test_generate_streams_prints_counts_and_writes_tickets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["generate-streams", "--scale", "sample", "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    total = next(line for line in out.splitlines() if line.startswith("total (6 streams)"))
    windows, serving, test, tasks = (int(v) for v in total.split()[3:7])
    assert windows >= 30 and serving + test == tasks
    files = sorted(tmp_path.glob("*.sample.jsonl"))
    assert len(files) == 6
    written = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    assert len(written) == tasks and {"answer", "facts", "options", "case"} <= set(written[0])


def test_a_folder_without_streams_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate-streams", str(tmp_path)]) == 2
    assert "no stream family files" in capsys.readouterr().err
