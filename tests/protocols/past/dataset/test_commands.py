"""What ``pastbench export`` and ``validate`` say for PAST's families: the line that names what was
written, the counts table, every failure by rule and place, and the verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_pastbench.cli import main
from pytest_pastbench.protocols.past.dataset.audit import EXPECTED_SHAPE
from pytest_pastbench.protocols.past.dataset.commands import export_line, validate_text
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.resources import families_dir

from .test_audit import CLEAN, _leak_key_fact, mutated, write


def test_validate_prints_the_counts_table_and_every_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(families_dir()), "--no-runs"]) == 0
    out = capsys.readouterr().out
    assert "capability      families    episodes  expected" in out
    for capability, (n_families, n_episodes) in EXPECTED_SHAPE.items():
        line = next(line for line in out.splitlines() if line.startswith(capability + " "))
        assert line.split()[1:3] == [str(n_families), str(n_episodes)]
    assert f"audit passed: {sum(f for f, _ in EXPECTED_SHAPE.values())} families" in out

    write(tmp_path, mutated(_leak_key_fact))
    assert main(["validate", str(tmp_path), "--any-shape"]) == 1
    out = capsys.readouterr().out
    # The user's own set: no built-in "expected" shape beside its counts.
    header = next(line for line in out.splitlines() if line.startswith("capability"))
    assert header.split("  ") and " ".join(header.split()) == (
        "capability families episodes blind on-arm mean blind Δ present share"
    )
    assert "expected" not in out and " / " not in out
    assert (
        f"FAIL [leak] {tmp_path / 'memory' / 'tiny.yaml'}::ep01[2]: the eval_near text states key fact" in out
    )
    assert "audit failed" in out


def test_the_export_line_names_the_file_and_what_it_holds(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    line = export_line(write(tmp_path / "families", CLEAN), out, standalone_registry())
    document = json.loads(out.read_text())
    assert line == (
        f"wrote {out}: 1 families, {len(CLEAN['episodes'])} episodes, dataset hash {document['dataset_hash']}"
    )


def test_validate_text_lists_each_file_then_the_verdict(tmp_path: Path) -> None:
    root = write(tmp_path, CLEAN)
    text, passed = validate_text([root], standalone_registry(), run_policies=False, check_counts=False)
    lines = text.splitlines()
    assert passed and lines[0].startswith(f"ok   {root / 'memory' / 'tiny.yaml'} (memory.tiny, ")
    assert lines[-1] == "audit passed: 1 families"  # no policy runs: no oracle minimum to state
    write(tmp_path, mutated(_leak_key_fact))
    text, passed = validate_text([root], standalone_registry(), run_policies=False, check_counts=False)
    assert not passed and text.splitlines()[-1].startswith("audit failed: ")
    assert "FAIL [leak]" in text
