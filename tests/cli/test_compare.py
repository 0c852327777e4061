"""``pastbench compare``: runs or baselines against the first one, gated with ``--fail``."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench import cli
from pytest_pastbench.protocols.past.protocol import PROTOCOL as PAST
from pytest_pastbench.results import baseline as baseline_module
from pytest_pastbench.results.baseline import save_baseline
from tests.results.test_compare import BASE, CURRENT, records_from, rows, summary_of


@pytest.fixture
def storage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(baseline_module, "git_commit", lambda cwd=None: None)
    gap = {k: v for k, v in BASE.items() if k != "memory.prefs"}
    for name, spec in (("ref", BASE), ("same", BASE), ("worse", CURRENT), ("gap", gap)):
        save_baseline(tmp_path, name, summary_of(spec), PAST.baseline_data(records_from(spec)))
    return tmp_path


def test_cli_compare_two_prints_the_comparison(storage: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["compare", "ref", "worse", "--storage", str(storage)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("worse against ref\n")
    assert rows(out)["update.fact"] == ["+0.40", "+0.10", "-0.30", "1.00", "1.00"]


def test_cli_compare_fail_exits_1_on_a_regression_only(
    storage: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--storage", str(storage), "--fail", "update.fact.delta:0.1"]
    assert cli.main(["compare", "ref", "same", *args]) == 0
    assert "ok    update.fact.delta unchanged" in capsys.readouterr().out
    assert cli.main(["compare", "ref", "same", "worse", *args]) == 1
    out = capsys.readouterr().out
    assert "Mech" in out  # three inputs: side by side
    assert "gates: same against ref\nok    update.fact.delta unchanged" in out
    assert "gates: worse against ref\nFAIL  update.fact.delta dropped by 0.300" in out


def test_cli_compare_bad_input_exits_2(storage: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["compare", "ref", "--storage", str(storage)]) == 2
    assert "at least two" in capsys.readouterr().err
    assert cli.main(["compare", "ref", "nope", "--storage", str(storage)]) == 2
    assert "no baseline 'nope'" in capsys.readouterr().err
    assert cli.main(["compare", "ref", "worse", "--storage", str(storage), "--fail", "delta"]) == 2
    assert "[SCOPE.]METRIC:THRESHOLD" in capsys.readouterr().err
    # A gate on a scope that exists on neither side cannot pass.
    assert (
        cli.main(["compare", "ref", "same", "--storage", str(storage), "--fail", "procedural.delta:1"]) == 2
    )


def test_cli_compare_a_regression_outranks_an_unevaluable_gate(
    storage: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gates = ["--fail", "update.fact.delta:0.1,memory.prefs.delta:0.5"]
    # gap: update.fact unchanged, memory.prefs missing (2); worse: update.fact dropped (1).
    assert cli.main(["compare", "ref", "gap", "--storage", str(storage), *gates]) == 2
    assert cli.main(["compare", "ref", "gap", "worse", "--storage", str(storage), *gates]) == 1
    assert (
        "ERROR memory.prefs.delta: cannot evaluate: current run: no family 'memory.prefs'"
        in capsys.readouterr().out
    )
