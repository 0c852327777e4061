"""A chess family on a machine without the engine: its items are skipped with the fix (a bare
`pytest` stays green), never scored and never a silent zero."""

from __future__ import annotations

import pytest

from pytest_pastbench.resources import families_dir


def test_a_missing_engine_skips_the_chess_items_with_the_fix(pytester: pytest.Pytester) -> None:
    text = (families_dir() / "plasticity" / "chess_stockfish.yaml").read_text()
    assert "engine: stockfish" in text
    target = pytester.path / "families" / "plasticity" / "chess_stockfish.yaml"
    target.parent.mkdir(parents=True)
    target.write_text(text.replace("engine: stockfish", "engine: no-such-stockfish"))
    result = pytester.runpytest_subprocess("families", "-rs", "--pastbench-run-id=r")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*SKIPPED*no-such-stockfish*apt-get install stockfish*"])
    outcomes = result.parseoutcomes()
    assert outcomes.get("skipped") == 2 and "error" not in outcomes and "errors" not in outcomes
