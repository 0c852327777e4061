"""``pastbench gate RUN --baseline B --fail EXPR``: exit 0 pass, 1 regression, 2 bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench import cli
from pytest_pastbench.protocols.past.protocol import PROTOCOL as PAST
from pytest_pastbench.results.baseline import save_baseline
from tests.results.test_gates import BASE, records_from, side


def test_cli_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary, _ = side(BASE)
    save_baseline(tmp_path, "main", summary, PAST.baseline_data(records_from(BASE)))
    assert (
        cli.main(["gate", "main", "--baseline", "main", "--fail", "delta:x", "--storage", str(tmp_path)]) == 2
    )
    assert "[SCOPE.]METRIC:THRESHOLD" in capsys.readouterr().err
    assert (
        cli.main(["gate", "main", "--baseline", "nope", "--fail", "delta:1", "--storage", str(tmp_path)]) == 2
    )
    err = capsys.readouterr().err
    assert "no baseline 'nope'" in err and "main" in err
    assert (
        cli.main(["gate", "main", "--baseline", "main", "--fail", "x.delta:1", "--storage", str(tmp_path)])
        == 2
    )
    assert capsys.readouterr().out.startswith("ERROR x.delta: cannot evaluate")


def test_pastbench_gate_names_the_valid_metrics_and_the_owner_of_a_misscoped_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["gate", "a", "--baseline", "b", "--fail", "intervention.hidden:2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pastbench gate: gate 'intervention.hidden:2': 'hidden' is a stream metric;")
    assert cli.main(["gate", "a", "--baseline", "b", "--fail", "rhoo:0.1"]) == 2
    assert "unknown metric 'rhoo'; valid metrics: past: " in capsys.readouterr().err
