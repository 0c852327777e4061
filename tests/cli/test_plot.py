"""``pastbench plot RUN``: the report figures of a run; bad input is exit 2 and one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.cli import main
from pytest_pastbench.protocols.past.metrics import summarize
from tests.results.render.test_plots import EXPECTED_SHAPES, make_run
from tests.written_runs import write_run


def test_cli_plots_into_run_plots_and_says_what_it_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = make_run(tmp_path)
    assert main(["plot", str(run_dir)]) == 0
    out = capsys.readouterr().out.splitlines()
    for name in EXPECTED_SHAPES:
        assert str(run_dir / "plots" / name) in out
        assert (run_dir / "plots" / name).is_file()
    # A PAST-only run: one line per protocol it does not hold, and none of their PNGs.
    assert "this run has no stream items: reward_per_window.png not drawn" in out
    assert "this run has no plasticity items: learning_curves.png not drawn" in out
    assert "this run has no intervention items: intervention_matrix.png not drawn" in out
    assert sorted(p.name for p in (run_dir / "plots").iterdir()) == sorted(EXPECTED_SHAPES)

    assert main(["plot", str(run_dir), "-o", str(tmp_path / "elsewhere")]) == 0
    assert str(tmp_path / "elsewhere" / "frontier.png") in capsys.readouterr().out
    assert (tmp_path / "elsewhere" / "frontier.png").is_file()


def test_cli_unreadable_or_empty_run_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plot", str(tmp_path / "missing")]) == 2
    captured = capsys.readouterr()
    assert "missing" in captured.err and captured.out == ""

    empty = write_run(tmp_path, "empty", {"id": "empty"}, [], {}, summarize([], {}, 0), {"rows": []})
    assert main(["plot", str(empty)]) == 2
    assert "no PAST configs" in capsys.readouterr().err


def test_a_protocol_the_run_lacks_is_one_line_and_no_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = make_run(tmp_path)  # PAST only
    assert main(["plot", str(run_dir), "--protocol", "stream"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines() == [
        f"pastbench plot: {run_dir}: this run has no stream items: reward_per_window.png not drawn"
    ]
    assert not (run_dir / "plots").exists()


def test_an_unknown_protocol_is_exit_2_listing_the_known_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = make_run(tmp_path)
    assert main(["plot", str(run_dir), "--protocol", "nosuch"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = captured.err.splitlines()
    assert line.startswith("pastbench plot: --protocol nosuch: no such protocol (known: ")
    assert all(name in line for name in ("past", "intervention", "plasticity", "stream"))
    assert not (run_dir / "plots").exists()
