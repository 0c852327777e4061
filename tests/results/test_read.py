"""Reading a run folder back: from the folder or any file in it, and a clear error otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_pastbench.errors import RunLoadError
from pytest_pastbench.results.read import load_run
from pytest_pastbench.results.run_folder import COMPARISON_FILE, RESULTS_FILE, SUMMARY_FILE


def write(folder: Path, results: object, summary: object = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / RESULTS_FILE).write_text(json.dumps(results))
    (folder / SUMMARY_FILE).write_text(json.dumps(summary if summary is not None else {"run": {}}))


def test_an_empty_run_loads_from_its_folder_or_a_file_in_it(tmp_path: Path) -> None:
    write(tmp_path, {"run": {"run_id": "r1"}, "records": []}, {"schema_version": 1})
    for path in (tmp_path, tmp_path / SUMMARY_FILE, str(tmp_path)):
        loaded = load_run(path)
        assert (loaded.path, loaded.run, loaded.records) == (tmp_path, {"run_id": "r1"}, [])
        assert loaded.summary == {"schema_version": 1}
    assert loaded.traces_dir == tmp_path / "traces"
    assert loaded.comparison() is None
    (tmp_path / COMPARISON_FILE).write_text('{"rows": []}')
    assert loaded.comparison() == {"rows": []}


def test_a_folder_that_is_not_a_run_says_which_file_is_missing(tmp_path: Path) -> None:
    with pytest.raises(RunLoadError, match=f"{RESULTS_FILE}: missing \\(is .* a pastbench run folder\\?\\)"):
        load_run(tmp_path)
    (tmp_path / RESULTS_FILE).write_text("{not json")
    with pytest.raises(RunLoadError, match=f"{RESULTS_FILE}: unreadable"):
        load_run(tmp_path)


@pytest.mark.parametrize("results", [[1, 2], {"records": [{"nodeid": 3}]}])
def test_a_results_file_of_another_shape_is_refused(tmp_path: Path, results: object) -> None:
    write(tmp_path, results)
    with pytest.raises(RunLoadError, match="not a results file"):
        load_run(tmp_path)
