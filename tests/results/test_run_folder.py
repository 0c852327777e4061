"""A run folder's files: atomic writes, item and trace paths, clearing a reused run id."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from pytest_pastbench.results import run_folder
from pytest_pastbench.results.run_folder import (
    COMPARISON_FILE,
    ITEMS_DIR,
    RUN_FILE,
    SUMMARY_FILE,
    TMP_SUFFIX,
    TRACES_DIR,
    add_to_comparison,
    clear_run,
    item_path,
    trace_path,
    write_documents,
    write_item,
    write_json_atomic,
)


def test_an_atomic_write_is_owner_only_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "run.json"
    write_json_atomic(path, {"a": "é"}, durable=True)
    assert json.loads(path.read_text(encoding="utf-8")) == {"a": "é"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert list(path.parent.iterdir()) == [path]


def test_a_failed_write_keeps_the_old_file_and_removes_its_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.json"
    write_json_atomic(path, {"old": True})

    def disk_full(src: str, dst: str) -> None:
        raise OSError("No space left on device")

    monkeypatch.setattr(run_folder.os, "replace", disk_full)
    with pytest.raises(OSError, match="No space"):
        write_json_atomic(path, {"new": True})
    assert json.loads(path.read_text()) == {"old": True}
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(TMP_SUFFIX)]


def test_item_files_are_flat_readable_and_unique_per_node_id(tmp_path: Path) -> None:
    a = item_path(tmp_path, "families/update/x.yaml::ep03[on-t0]")
    b = item_path(tmp_path, "families/update/x.yaml::ep03[on t0]")  # same safe name, other id
    assert a.parent == b.parent == tmp_path / ITEMS_DIR
    assert a.name.startswith("families_update_x.yaml__ep03[on-t0]-") and a != b
    assert len(item_path(tmp_path, "f.yaml::" + "e" * 400).name) < 200
    written = write_item(tmp_path, "f.yaml::ep01[on]", {"record": {"score": 0.5}})
    assert json.loads(written.read_text()) == {"record": {"score": 0.5}}
    assert "\n" not in written.read_text().rstrip("\n")  # compact: traces can be large


def test_a_trace_sits_under_its_family_folder_and_file(tmp_path: Path) -> None:
    assert trace_path(tmp_path, "families/update/x.yaml::ep03[on-t0]") == (
        tmp_path / TRACES_DIR / "update" / "x" / "ep03[on-t0].jsonl"
    )
    assert trace_path(tmp_path, "x.yaml::ep 1/2") == tmp_path / TRACES_DIR / "x" / "ep_1_2.jsonl"


def test_writing_documents_replaces_an_earlier_runs_traces(tmp_path: Path) -> None:
    stale = trace_path(tmp_path, "families/old/y.yaml::ep01[on]")
    stale.parent.mkdir(parents=True)
    stale.write_text("{}\n")
    events = [{"type": "message", "text": "hi"}, {"type": "end"}]
    write_documents(tmp_path, {"families/update/x.yaml::ep01[on]": events}, {SUMMARY_FILE: {"run": {}}})
    assert not stale.exists()
    written = trace_path(tmp_path, "families/update/x.yaml::ep01[on]").read_text().splitlines()
    assert [json.loads(line) for line in written] == events
    assert json.loads((tmp_path / SUMMARY_FILE).read_text()) == {"run": {}}


def test_a_section_is_added_to_the_comparison_and_clearing_removes_the_run(tmp_path: Path) -> None:
    write_documents(tmp_path, {"f.yaml::e[on]": []}, {COMPARISON_FILE: {"rows": [1]}, RUN_FILE: {}})
    write_item(tmp_path, "f.yaml::e[on]", {})
    add_to_comparison(tmp_path, "baseline", {"verdict": "same"})
    assert json.loads((tmp_path / COMPARISON_FILE).read_text()) == {
        "rows": [1],
        "baseline": {"verdict": "same"},
    }
    (tmp_path / "report.html").write_text("kept")
    clear_run(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]
