"""A ServeLearnBench download's collection: one file of each scenario stands for it (the anchor),
its identity is the scenario's name and a hash of the scenario's files, and ``collect`` yields one
item per harness x model x trial with stable ids (``blind[t0]``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_pastbench.errors import FamilyFileError
from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.stream.servelearn import collect as servelearn_collect
from pytest_pastbench.protocols.stream.servelearn.collect import (
    is_scenario_anchor,
    scenario_hash,
    scenario_identity,
)
from pytest_pastbench.protocols.stream.servelearn.items import HARNESSES
from tests.protocols.stand_ins import Made, StandInFile

from .helpers import FIXTURES


@pytest.fixture
def download(tmp_path: Path) -> Path:
    """A copy of the fixture download that a test may change."""
    return Path(shutil.copytree(FIXTURES, tmp_path / "dataset"))


def test_the_scenarios_windows_file_is_its_one_anchor() -> None:
    files = sorted(p for p in FIXTURES.rglob("*") if p.is_file())
    anchors = [p.relative_to(FIXTURES).as_posix() for p in files if is_scenario_anchor(p)]
    assert anchors == [
        f"environments/{name}/windows.json" for name in ("banking_l1", "pitch_l1", "retail_l1")
    ]


def test_without_its_windows_file_the_next_file_present_stands_for_the_scenario(download: Path) -> None:
    env = download / "environments" / "banking_l1"
    (env / "windows.json").unlink()
    assert is_scenario_anchor(env / "world.json")
    assert not is_scenario_anchor(env / "tools.json")
    # A scenario with only its task files is still collected (as its one error).
    shutil.rmtree(env)
    data = download / "data" / "banking_l1"
    assert is_scenario_anchor(data / "serving.jsonl") and not is_scenario_anchor(data / "test.jsonl")


def test_a_file_outside_a_scenario_of_a_download_is_not_claimed(download: Path, tmp_path: Path) -> None:
    (download / "README.md").write_text("a download\n")
    assert not is_scenario_anchor(download / "README.md")
    other = download / "extras" / "banking_l1" / "windows.json"  # neither data/ nor environments/
    other.parent.mkdir(parents=True)
    other.write_text("[]\n")
    assert not is_scenario_anchor(other)
    # The same layout under a folder that is no download (no data/ beside environments/).
    lone = tmp_path / "lone" / "environments" / "banking_l1" / "windows.json"
    lone.parent.mkdir(parents=True)
    shutil.copy(download / "environments" / "banking_l1" / "windows.json", lone)
    assert not is_scenario_anchor(lone)
    assert not is_scenario_anchor(Path("windows.json"))


def test_the_identity_is_the_scenarios_name_and_the_hash_of_its_files(download: Path, tmp_path: Path) -> None:
    anchor = download / "environments" / "retail_l1" / "windows.json"
    identity, digest = scenario_identity(anchor)
    assert identity == "stream.servelearn.retail_l1"
    assert digest == scenario_hash(download, "retail_l1") and len(digest) == 64
    # Where the download sits is no part of it.
    moved = Path(shutil.copytree(download, tmp_path / "elsewhere"))
    assert scenario_identity(moved / "environments" / "retail_l1" / "windows.json")[1] == digest


@pytest.mark.parametrize(
    "changed",
    ["data/retail_l1/test.jsonl", "data/retail_l1/serving.jsonl", "environments/retail_l1/policy.md"],
)
def test_the_hash_changes_with_a_file_of_the_scenario(download: Path, changed: str) -> None:
    before = scenario_hash(download, "retail_l1")
    with (download / changed).open("a", encoding="utf-8") as handle:
        handle.write("\n")
    assert scenario_hash(download, "retail_l1") != before


def test_a_new_environment_file_changes_the_hash(download: Path) -> None:
    before = scenario_hash(download, "retail_l1")
    (download / "environments" / "retail_l1" / "notes.md").write_text("new\n")
    assert scenario_hash(download, "retail_l1") != before


def test_the_hash_ignores_other_scenarios_and_files_that_are_no_part_of_it(download: Path) -> None:
    before = scenario_hash(download, "retail_l1")
    for other in ("data/banking_l1/test.jsonl", "environments/banking_l1/world.json"):
        with (download / other).open("a", encoding="utf-8") as handle:
            handle.write("\n")
    (download / "README.md").write_text("a download\n")
    (download / "data" / "retail_l1" / "notes.txt").write_text("not a task file\n")
    assert scenario_hash(download, "retail_l1") == before


def collected(path: Path, options: RunOptions, monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    monkeypatch.setattr(servelearn_collect, "ServeLearnItem", Made)
    return list(servelearn_collect.collect(StandInFile(path, options)))  # type: ignore[arg-type]


def test_an_item_per_harness_and_trial_with_stable_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    anchor = FIXTURES / "environments" / "pitch_l1" / "windows.json"
    made = collected(anchor, RunOptions(trials=2), monkeypatch)
    assert [m["name"] for m in made] == [f"{h}[t{t}]" for h in HARNESSES for t in (0, 1)]
    assert [(m["harness"], m["trial"]) for m in made[:3]] == [("blind", 0), ("blind", 1), ("oracle", 0)]
    assert all(m["scenario"].name == "pitch_l1" and m["mechanisms"] is None for m in made)
    again = collected(anchor, RunOptions(trials=2), monkeypatch)
    assert [m["name"] for m in again] == [m["name"] for m in made]


def test_several_models_join_the_id(monkeypatch: pytest.MonkeyPatch) -> None:
    options = RunOptions(models=["pastbench/blind", "pastbench/recall"])
    made = collected(FIXTURES / "environments" / "banking_l1" / "windows.json", options, monkeypatch)
    assert [m["name"] for m in made][:2] == ["blind[t0-pastbench/blind]", "blind[t0-pastbench/recall]"]
    assert [m["model"] for m in made][:2] == ["pastbench/blind", "pastbench/recall"]


def test_a_scenario_that_cannot_be_read_is_one_error_naming_the_file_and_line(
    download: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = download / "data" / "banking_l1" / "test.jsonl"
    tasks.write_text(tasks.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    lines = len(tasks.read_text(encoding="utf-8").splitlines())
    with pytest.raises(FamilyFileError, match=rf"banking_l1: .*test\.jsonl:{lines}: "):
        collected(download / "environments" / "banking_l1" / "windows.json", RunOptions(), monkeypatch)
