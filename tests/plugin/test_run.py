"""The pytest run's object (``PastbenchRun``): it measures an item where the run's concurrency
says, writes each finished item at once into its own run folder, says when and why a run is
partial and how to finish it, and labels a config by agent, mechanism set and model."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.plugin.run import PastbenchRun, default_run_id
from pytest_pastbench.protocols.registry import ProtocolRegistry
from pytest_pastbench.results.run_folder import RUN_FILE, item_path


class StandInConfig:
    """A controller's config: no ``workerinput``; the arguments it was invoked with."""

    def __init__(self, *args: str) -> None:
        self.invocation_params = SimpleNamespace(args=args)


def a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str, **options: Any) -> PastbenchRun:
    monkeypatch.setattr(PastbenchRun, "registry", property(lambda self: ProtocolRegistry()))
    return PastbenchRun(StandInConfig(*args), RunOptions(report_dir=str(tmp_path), **options))  # type: ignore[arg-type]


class Agent:
    def __init__(self, mechanisms: list[str]) -> None:
        self.name, self.mechanisms = "hermes", mechanisms

    def with_mechanisms(self, mechanisms: list[str]) -> Agent:
        return Agent(mechanisms)


def test_with_one_item_in_flight_the_item_is_measured_right_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = a_run(tmp_path, monkeypatch, concurrency=1)
    threads: list[threading.Thread] = []
    run.measure(SimpleNamespace(measure_item=lambda: threads.append(threading.current_thread())))
    assert threads == [threading.current_thread()]


def test_a_finished_item_is_written_at_once_beside_the_runs_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = a_run(tmp_path, monkeypatch, run_id="r1", seed=7)
    assert not (tmp_path / "r1").exists()  # no folder before the first result
    run.resumed.add("f.yaml::a[t0]")
    run.receive("f.yaml::a[t0]", {"record": {"score": 1}})
    written = item_path(tmp_path / "r1", "f.yaml::a[t0]")
    assert json.loads(written.read_text()) == {"record": {"score": 1}}
    assert json.loads((tmp_path / "r1" / RUN_FILE).read_text())["seed"] == 7
    assert run.resumed == set() and run.payloads == {"f.yaml::a[t0]": {"record": {"score": 1}}}


def test_a_reused_run_id_starts_that_run_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = item_path(tmp_path / "r1", "f.yaml::old[t0]")
    old.parent.mkdir(parents=True)
    old.write_text("{}")
    a_run(tmp_path, monkeypatch, run_id="r1").receive("f.yaml::a[t0]", {})
    assert not old.exists() and item_path(tmp_path / "r1", "f.yaml::a[t0]").exists()


def test_a_fresh_run_id_is_time_and_seed_with_a_suffix_when_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = a_run(tmp_path, monkeypatch, seed=3)
    assert run.run_id == default_run_id(run.started, 3) and run.run_id.endswith("-s3")
    (tmp_path / run.run_id).mkdir()
    assert run._fresh_run_id() == f"{run.run_id}-2"


def test_a_run_is_partial_when_interrupted_or_items_lack_a_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = a_run(tmp_path, monkeypatch, run_id="r1")
    run.expect(["a", "b", "c"])
    run.payloads = {"a": {}, "b": {}, "c": {}}
    assert run.partial() is None
    del run.payloads["c"]
    assert run.partial() == {"reason": "items without a result", "finished": 2, "expected": 3}
    run.interrupted = True
    assert run.partial() == {"reason": "interrupted", "finished": 2, "expected": 3}


def test_the_resume_command_repeats_the_arguments_and_resumes_this_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = a_run(tmp_path, monkeypatch, "-k", "ep01 and on", "--pastbench-resume=old", run_id="r1")
    assert run.resume_command() == "pytest -k 'ep01 and on' --pastbench-resume=r1"


def test_a_config_label_names_agent_mechanism_set_and_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = a_run(tmp_path, monkeypatch, run_id="r1")
    run._agents["hermes"] = Agent([])
    assert run.config_label("pastbench/recall") == "hermes@pastbench/recall"
    assert run.config_label("m", ["E1", "E5"]) == "hermes[E1,E5]@m"
    assert run.agent_for(["E1", "E5"]) is run.agent_for(["E1", "E5"])  # built once per set


def test_budgets_and_the_shard_stamp_come_from_the_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = a_run(tmp_path, monkeypatch, run_id="r1", max_tool_calls=7, session_timeout=9.0)
    budgets = run.budgets()
    assert (budgets.tool_calls, budgets.wall_s) == (7, 9.0)
    assert run.stamped({"record": {}}) == {"record": {}}
    run.selection = "abc"
    assert run.stamped({"record": {}}) == {"record": {}, "selection": "abc"}
