"""``pastbench merge SHARD... -o RUN``: the shard runs of one command joined into one run."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.cli import main
from tests.results.test_merge import EP1, EP2, make_run


def test_cli_bad_input_exits_2_with_one_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = make_run(tmp_path, "a", EP1)
    b = make_run(tmp_path, "b", EP2, (2, 2), seed=3)
    assert main(["merge", str(a), str(b), "-o", str(tmp_path / "m")]) == 2
    assert capsys.readouterr().err.startswith("pastbench merge: ")
    assert main(["merge", str(a), str(tmp_path / "nothing"), "-o", str(tmp_path / "m")]) == 2
    assert "nothing/sequence_results.json: missing" in capsys.readouterr().err
    assert not list(tmp_path.glob("*-merged"))


def test_cli_merge_prints_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = make_run(tmp_path, "a", EP1)
    b = make_run(tmp_path, "b", EP2, (2, 2))
    joined = tmp_path / "out" / "joined"
    assert main(["merge", str(a), str(b), "-o", str(joined)]) == 0
    out = capsys.readouterr().out
    assert "memory.prefs" in out and f"merged 2 shards into {joined} (pastbench summarize {joined})" in out
    assert main(["summarize", str(joined)]) == 0
    assert "memory.prefs" in capsys.readouterr().out
