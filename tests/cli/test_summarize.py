"""``pastbench summarize``: the Δ table of a finished run; anything else is exit 2 and one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_pastbench.cli import main


def test_summarize_prints_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entry = {"s_on": 0.8, "s_off": 0.2, "delta": 0.6, "delta_ci": [0.5, 0.7], "mech": 0.9, "n_episodes": 4}
    summary = {
        "configs": [
            {
                "label": "hermes@pastbench/recall",
                "overall": entry,
                "capabilities": {"memory": entry},
                "families": {"memory.x": {**entry, "capability": "memory"}},
            }
        ]
    }
    (tmp_path / "sequence_summary.json").write_text(json.dumps(summary))
    assert main(["summarize", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "memory.x" in out and "+0.60 [+0.50, +0.70]" in out


def test_summarize_a_non_run_says_so_in_one_prefixed_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fix = "pass a run folder (reports/<run id>) or its sequence_summary.json"
    assert main(["summarize", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"pastbench summarize: {tmp_path}: not a run folder (no sequence_summary.json); {fix}\n"
    )
    assert main(["summarize", str(tmp_path / "merged")]) == 2
    assert (
        capsys.readouterr().err
        == f"pastbench summarize: {tmp_path / 'merged'}: no such file or folder; {fix}\n"
    )
    (tmp_path / "notes.json").write_text('{"a": 1}')
    (tmp_path / "notes.txt").write_text("hello")
    for name in ("notes.json", "notes.txt"):
        assert main(["summarize", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert (
            err.startswith(f"pastbench summarize: {tmp_path / name}: not a run summary")
            and "Errno" not in err
        )
