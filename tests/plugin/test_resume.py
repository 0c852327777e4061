"""``--pastbench-resume``: which run folder, what it recorded, and the refusals when this invocation
would measure something else; finished items are read back, a half-written or blocked one runs
again (the killed-and-resumed run end to end is tests/reliability/test_crash_resume.py)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_pastbench.plugin.resume import (
    RESUME_FIELDS,
    check_families,
    check_options,
    current_payloads,
    deselect_finished,
    load_finished,
    read_run_file,
    resolve_run_dir,
    resume_fields,
)
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.results.item_record import ItemRecord
from pytest_pastbench.results.run_folder import ITEMS_DIR, RUN_FILE

REGISTRY = standalone_registry()


def payload(nodeid: str, episode: str = "ep01", family_hash: str = "h1", **record: Any) -> dict[str, Any]:
    item = ItemRecord(
        nodeid=nodeid,
        family="memory.prefs",
        capability="memory",
        episode=episode,
        arm="on",
        model="pastbench/recall",
        agent="hermes",
        config_label="hermes@pastbench/recall",
        score=0.5,
        **record,
    )
    return {"record": item.model_dump(mode="json"), "trace": [], "family_hash": family_hash}


def test_a_run_is_found_as_a_folder_or_as_an_id_under_the_report_dir(tmp_path: Path) -> None:
    run = tmp_path / "reports" / "r1"
    run.mkdir(parents=True)
    (run / RUN_FILE).write_text("{}")
    assert resolve_run_dir(str(run), "elsewhere") == run
    assert resolve_run_dir("r1", str(tmp_path / "reports")) == tmp_path / "reports" / "r1"


def test_a_folder_without_a_run_file_and_no_folder_at_all_say_different_things(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(pytest.UsageError, match=r"empty has no run\.json, so there is nothing to resume"):
        resolve_run_dir(str(tmp_path / "empty"), str(tmp_path))
    with pytest.raises(pytest.UsageError, match="r9: no such run .*pass a run folder or the id"):
        resolve_run_dir("r9", str(tmp_path))


@pytest.mark.parametrize(("text", "problem"), [("{torn", "is unreadable"), ("[1]", "is not a run file")])
def test_a_damaged_run_file_is_a_usage_error_naming_it(tmp_path: Path, text: str, problem: str) -> None:
    (tmp_path / RUN_FILE).write_text(text)
    with pytest.raises(pytest.UsageError) as raised:
        read_run_file(tmp_path, "r1")
    assert str(raised.value).startswith(f"--pastbench-resume=r1: {tmp_path / RUN_FILE} {problem}")


def test_every_protocol_adds_its_resume_fields_to_the_shared_ones() -> None:
    fields = resume_fields(REGISTRY)
    assert RESUME_FIELDS.items() <= fields.items()
    assert len(fields) > len(RESUME_FIELDS)  # the built-in protocols' own (a stream's scale, ...)


def test_other_options_are_refused_naming_each_and_unrecorded_ones_are_not_compared() -> None:
    recorded = {"models": ["pastbench/recall"], "trials": 1, "seed": 42}
    now = {"models": ["pastbench/blind"], "trials": 1, "seed": 7, "agent": "other"}
    with pytest.raises(pytest.UsageError) as raised:
        check_options("r1", recorded, now, REGISTRY)
    message = str(raised.value)
    assert "--pastbench-model (the run: ['pastbench/recall'], now: ['pastbench/blind'])" in message
    assert "--pastbench-seed (the run: 42, now: 7)" in message
    assert "trials" not in message and "agent" not in message  # equal, and not recorded
    check_options("r1", recorded, {**recorded, "agent": "other"}, REGISTRY)  # the same: no error


def test_finished_items_are_read_and_torn_blocked_or_foreign_files_run_again(tmp_path: Path) -> None:
    assert load_finished(tmp_path, REGISTRY) == ({}, [])  # no items folder yet
    items = tmp_path / ITEMS_DIR
    items.mkdir()
    done = payload("f.yaml::ep01[on-t0]")
    (items / "a.json").write_text(json.dumps(done))
    (items / "b.json").write_text(json.dumps(payload("f.yaml::ep02[on-t0]", "ep02", infra_blocked=True)))
    (items / "c.json.tmp").write_text("{half")  # a write the crash interrupted: never read
    (items / "d.json").write_text("{torn")
    (items / "e.json").write_text(json.dumps({"record": {}, "trace": "no"}))
    finished, problems = load_finished(tmp_path, REGISTRY)
    assert finished == {"f.yaml::ep01[on-t0]": done}
    assert [line.split(": ")[0] for line in problems] == [str(items / "d.json"), str(items / "e.json")]
    assert problems[1].endswith("not an item file (record, trace, family_hash)")


def test_a_family_gone_or_changed_since_the_run_is_refused() -> None:
    finished = {"n1": payload("n1", family_hash="aaaaaaaaaaaa-old")}
    check_families("r1", finished, {"memory.prefs": "aaaaaaaaaaaa-old"})
    with pytest.raises(pytest.UsageError, match="memory.prefs is not collected now"):
        check_families("r1", finished, {})
    with pytest.raises(
        pytest.UsageError, match=r"memory.prefs changed \(file hash aaaaaaaaaaaa in the run, bbbb"
    ):
        check_families("r1", finished, {"memory.prefs": "bbbbbbbbbbbb-new"})


def test_an_item_measured_again_under_another_node_id_counts_once_with_its_new_result() -> None:
    old, other = payload("old/f.yaml::ep01[on-t0]"), payload("old/f.yaml::ep02[on-t0]", "ep02")
    new = payload("new/f.yaml::ep01[on-t0]")
    payloads = {
        "old/f.yaml::ep01[on-t0]": old,
        "old/f.yaml::ep02[on-t0]": other,
        "new/f.yaml::ep01[on-t0]": new,
    }
    resumed = {"old/f.yaml::ep01[on-t0]", "old/f.yaml::ep02[on-t0]"}
    with pytest.warns(pytest.PytestWarning, match="1 resumed items ran again under other node ids"):
        kept = current_payloads(payloads, resumed)
    assert set(kept) == {"old/f.yaml::ep02[on-t0]", "new/f.yaml::ep01[on-t0]"}
    assert current_payloads(payloads, set()) is payloads  # nothing resumed: as it is


def test_finished_items_are_deselected_in_collection_order() -> None:
    items = [SimpleNamespace(nodeid=n) for n in ("a", "b", "c", "d")]
    kept, done = deselect_finished(items, frozenset({"d", "b"}))  # type: ignore[arg-type]
    assert [i.nodeid for i in kept] == ["a", "c"] and [i.nodeid for i in done] == ["b", "d"]
