"""Saved baselines: the file written, safe names, and every way a baseline is found again."""

from __future__ import annotations

import json
import platform
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.errors import BaselineError
from pytest_pastbench.protocols.past.metrics import build_comparison, summarize
from pytest_pastbench.protocols.past.protocol import PROTOCOL as PAST
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.results import baseline as baseline_module
from pytest_pastbench.results.baseline import (
    check_name,
    git_commit,
    list_baselines,
    load_baseline,
    save_baseline,
)
from pytest_pastbench.results.item_record import ItemRecord
from tests.family_samples import scored_record
from tests.written_runs import write_run

RUN = {"id": "r1", "seed": 0, "dataset_hash": "d1", "judge": None, "models": ["m"]}
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def records() -> list[ItemRecord]:
    spec = {
        ("update.fix", "ep1"): (0.9, 0.5),
        ("update.fix", "ep2"): (0.7, None),
        ("memory.pref", "ep1"): (0.4, 0.4),
    }
    out = []
    for (family, episode), scores in spec.items():
        for arm, score in zip(("on", "off"), scores, strict=True):
            if score is not None:
                out.append(scored_record(family, episode, arm, score))
    return out


@pytest.fixture
def fake_git(monkeypatch: pytest.MonkeyPatch) -> None:
    # Keep the tests from depending on (or running) a real git.
    monkeypatch.setattr(baseline_module, "git_commit", lambda cwd=None: COMMIT)


def saved(storage: Path, name: str = "main") -> tuple[Path, dict[str, Any]]:
    summary = summarize(records(), RUN, seed=0)
    return save_baseline(storage, name, summary, PAST.baseline_data(records())), summary


def test_save_writes_the_documented_file(tmp_path: Path, fake_git: None) -> None:
    path, summary = saved(tmp_path / "store")
    assert path == tmp_path / "store" / "main.json"
    data = json.loads(path.read_text())
    keys = "schema_version name saved_at machine git_commit plugin_version summary episodes"
    assert set(data) == set(keys.split())
    assert data["schema_version"] == 1 and data["name"] == "main" and data["git_commit"] == COMMIT
    assert datetime.strptime(data["saved_at"], "%Y-%m-%dT%H:%M:%SZ")
    assert data["summary"] == summary
    assert data["episodes"] == {
        "hermes@m": {
            "memory.pref": {"ep1": [0.4, 0.4]},
            "update.fix": {"ep1": [0.9, 0.5], "ep2": [0.7, None]},
        }
    }
    machine = data["machine"]
    assert set(machine) == {"platform", "machine", "python", "python_implementation", "cpu_count"}
    assert machine["python"] == platform.python_version()
    assert platform.node() not in json.dumps(machine)  # no host name in a file that may be shared


def test_load_by_name_gives_back_summary_and_the_protocols_data(tmp_path: Path, fake_git: None) -> None:
    _, summary = saved(tmp_path)
    loaded = load_baseline("main", tmp_path, standalone_registry())
    assert loaded.name == "main"
    assert loaded.summary == summary and loaded.run["dataset_hash"] == "d1"
    assert set(loaded.data) == {"episodes"}
    assert loaded.data["episodes"]["hermes@m"]["update.fix"]["ep2"] == [0.7, None]
    assert loaded.meta["git_commit"] == COMMIT and loaded.meta["kind"] == "baseline"
    assert "summary" not in loaded.meta and "episodes" not in loaded.meta
    assert load_baseline("main.json", tmp_path, standalone_registry()).summary == summary


def test_saving_again_replaces_and_a_failed_save_keeps_the_old_file(tmp_path: Path, fake_git: None) -> None:
    path, summary = saved(tmp_path)
    save_baseline(tmp_path, "main", {**summary, "configs": []}, {})
    assert json.loads(path.read_text())["summary"]["configs"] == []
    before = path.read_text()
    with pytest.raises(BaselineError, match="cannot save baseline 'main'"):
        save_baseline(tmp_path, "main", {"configs": [object()]}, {})  # not JSON: fails mid-write
    assert path.read_text() == before
    assert list_baselines(tmp_path) == ["main"]
    assert [p.name for p in tmp_path.iterdir()] == ["main.json"]  # no temporary left behind


@pytest.mark.parametrize(
    "name", ["", "../x", "..", "a/b", "/etc/passwd", ".hidden", "-rf", "a\\b", "x" * 200]
)
def test_unsafe_names_are_refused(tmp_path: Path, name: str, fake_git: None) -> None:
    storage = tmp_path / "store"
    with pytest.raises(BaselineError, match="not a safe file name"):
        save_baseline(storage, name, {"configs": []}, {})
    assert list(tmp_path.rglob("*")) == []  # nothing written, least of all outside the storage


@pytest.mark.parametrize("name", ["main", "v1.2", "pr-123_b", "main.json"])
def test_ordinary_names_are_accepted(name: str) -> None:
    assert check_name(name) == name.removesuffix(".json")


def test_git_commit_is_never_fatal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(*args: Any, **kwargs: Any) -> Any:
        raise FileNotFoundError("git")

    monkeypatch.setattr(subprocess, "run", missing)
    assert git_commit(tmp_path) is None

    def answer(code: int, out: str) -> Any:
        return lambda *a, **k: subprocess.CompletedProcess(a[0], code, stdout=out, stderr="")

    monkeypatch.setattr(subprocess, "run", answer(128, "fatal: not a git repository\n"))
    assert git_commit(tmp_path) is None
    monkeypatch.setattr(subprocess, "run", answer(0, f"{COMMIT}\n"))
    assert git_commit(tmp_path) == COMMIT

    def slow(*args: Any, **kwargs: Any) -> Any:
        raise subprocess.TimeoutExpired("git", 5)

    monkeypatch.setattr(subprocess, "run", slow)
    assert git_commit(tmp_path) is None
    path = save_baseline(tmp_path, "nogit", {"configs": []}, {})
    assert json.loads(path.read_text())["git_commit"] is None


def test_a_run_folder_or_a_file_in_it_is_a_baseline(tmp_path: Path) -> None:
    summary = summarize(records(), RUN, seed=0)
    run_dir = write_run(tmp_path / "reports", "r1", RUN, records(), {}, summary, build_comparison(summary))
    for ref in (str(run_dir), str(run_dir / "sequence_summary.json")):
        loaded = load_baseline(ref, tmp_path / "store", standalone_registry())
        assert loaded.name == "r1" and loaded.meta["kind"] == "run"
        # What a saved baseline keeps of the same records (JSON: the score pairs as lists).
        assert loaded.summary == summary and loaded.data == json.loads(
            json.dumps(PAST.baseline_data(records()))
        )


def test_a_baseline_file_path_is_a_baseline(tmp_path: Path, fake_git: None) -> None:
    path, summary = saved(tmp_path / "store")
    assert load_baseline(str(path), tmp_path / "elsewhere", standalone_registry()).summary == summary


def test_a_saved_name_wins_over_a_same_named_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_git: None
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "main").mkdir()  # not a run; loading it as one would fail
    saved(tmp_path / "store")
    assert load_baseline("main", tmp_path / "store", standalone_registry()).meta["kind"] == "baseline"


def test_an_unknown_ref_names_what_was_looked_for_and_what_exists(tmp_path: Path, fake_git: None) -> None:
    saved(tmp_path, "main")
    saved(tmp_path, "nightly")
    with pytest.raises(BaselineError) as info:
        load_baseline("mian", tmp_path, standalone_registry())
    message = str(info.value)
    assert "'mian'" in message and str(tmp_path) in message and "main, nightly" in message
    assert "\n" not in message
    with pytest.raises(BaselineError, match=r"not a safe baseline name .*none\)"):
        load_baseline("../mian", tmp_path / "empty", standalone_registry())


def test_an_empty_ref_does_not_load_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_git: None
) -> None:
    summary = summarize(records(), RUN, seed=0)
    write_run(tmp_path, "here", RUN, records(), {}, summary, build_comparison(summary))
    monkeypatch.chdir(tmp_path / "here")  # a run folder: Path("") would load it
    with pytest.raises(BaselineError, match="empty baseline reference"):
        load_baseline("", tmp_path / "store", standalone_registry())


def test_broken_files_are_reported_with_their_path(tmp_path: Path, fake_git: None) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(BaselineError, match=r"bad\.json: unreadable baseline"):
        load_baseline("bad", tmp_path, standalone_registry())
    path, _ = saved(tmp_path, "old")
    path.write_text(json.dumps({**json.loads(path.read_text()), "schema_version": 99}))
    with pytest.raises(BaselineError, match="schema_version 99"):
        load_baseline("old", tmp_path, standalone_registry())
    not_a_run = tmp_path / "folder"
    not_a_run.mkdir()
    with pytest.raises(BaselineError, match="sequence_results.json: missing"):
        load_baseline(str(not_a_run), tmp_path, standalone_registry())
