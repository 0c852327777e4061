"""The reader of the published layout: the fixture download, one scenario folder, broken input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_pastbench.protocols.stream.servelearn.schema import read_servelearn

from .helpers import FIXTURES


def copy_dataset(tmp_path: Path) -> Path:
    root = tmp_path / "dataset"
    shutil.copytree(FIXTURES, root)
    return root


def test_the_fixture_download_reads_into_typed_scenarios() -> None:
    read = read_servelearn(FIXTURES)
    assert read.errors == []
    by_name = {s.name: s for s in read.scenarios}
    assert sorted(by_name) == ["banking_l1", "pitch_l1", "retail_l1"]
    retail = by_name["retail_l1"]
    assert (retail.domain, len(retail.serving), len(retail.test)) == ("retail", 6, 4)
    assert [w.first_position for w in retail.environment.windows] == [1, 4]
    first = retail.serving[0]
    assert first.instruction.startswith("Current timestamp: 1\n\n")
    assert first.evaluator.actions[0].name == "cancel_pending_order"
    assert retail.test[1].evaluator.answer is not None and retail.test[1].evaluator.answer.reasons == [
        "invalid_status"
    ]
    assert by_name["pitch_l1"].environment.policy == ""  # Pitch publishes no documents


def test_a_single_scenario_folder_reads_alone(tmp_path: Path) -> None:
    root = tmp_path / "banking_l1"
    for part in ("data", "environments"):
        shutil.copytree(FIXTURES / part / "banking_l1", root / part / "banking_l1")
    read = read_servelearn(root)
    assert [s.name for s in read.scenarios] == ["banking_l1"] and read.errors == []


def test_a_missing_file_is_one_error_naming_it_and_the_others_still_load(tmp_path: Path) -> None:
    root = copy_dataset(tmp_path)
    (root / "environments" / "banking_l1" / "windows.json").unlink()
    read = read_servelearn(root)
    assert [s.name for s in read.scenarios] == ["pitch_l1", "retail_l1"]
    (error,) = read.errors
    assert error.scenario == "banking_l1" and error.file.endswith("banking_l1/windows.json")
    assert "missing file" in str(error)


def test_a_malformed_line_names_the_file_and_the_line(tmp_path: Path) -> None:
    root = copy_dataset(tmp_path)
    serving = root / "data" / "retail_l1" / "serving.jsonl"
    lines = serving.read_text().splitlines()
    lines[2] = lines[2][:40]  # a truncated JSON line
    serving.write_text("\n".join(lines) + "\n")
    read = read_servelearn(root)
    (error,) = read.errors
    assert (error.scenario, error.line) == ("retail_l1", 3)
    assert str(error).startswith(f"retail_l1: {serving}:3: ")
    assert {s.name for s in read.scenarios} == {"banking_l1", "pitch_l1"}


def test_a_task_with_a_wrong_field_is_a_line_error(tmp_path: Path) -> None:
    root = copy_dataset(tmp_path)
    test = root / "data" / "pitch_l1" / "test.jsonl"
    test.write_text(test.read_text().replace('"category": "hidden"', '"category": "secret"', 1))
    (error,) = read_servelearn(root).errors
    assert error.line == 1 and "category" in error.problem


def test_a_field_a_later_export_adds_is_ignored_but_a_missing_one_is_an_error(tmp_path: Path) -> None:
    root = copy_dataset(tmp_path)
    test = root / "data" / "pitch_l1" / "test.jsonl"
    test.write_text(test.read_text().replace('"tier": "L1"', '"tier": "L1", "difficulty": 3', 1))
    assert read_servelearn(root).errors == []
    test.write_text(test.read_text().replace('"instruction"', '"instructions"', 1))
    (error,) = read_servelearn(root).errors
    assert error.line == 1 and error.problem == "instruction: Field required"


def test_a_task_in_an_unknown_window_is_an_error(tmp_path: Path) -> None:
    root = copy_dataset(tmp_path)
    test = root / "data" / "banking_l1" / "test.jsonl"
    test.write_text(test.read_text().replace('"window": 1', '"window": 7', 1))
    (error,) = read_servelearn(root).errors
    assert error.file.endswith("windows.json") and "no window 7" in error.problem


def test_a_folder_that_is_no_download_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="needs data/ and environments/"):
        read_servelearn(tmp_path)
