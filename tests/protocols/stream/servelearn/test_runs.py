"""The stream protocol's resume, shard merge and baseline gates on a ServeLearnBench download, as
on the project's own streams (the fixture Pitch scenario: its judge-graded rewards are not 0)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.results.merge import merge_runs
from tests.reliability.faultserver import Fault, FaultServer

from .helpers import FIXTURES
from .test_plugin import PITCH, run


def pitcher(pitch: str) -> Any:
    def answer(body: dict[str, Any], index: int) -> Fault:
        last_user = next(m for m in reversed(body["messages"]) if m["role"] == "user")
        if str(last_user["content"]).startswith("Score: "):
            return Fault("ok_text", text="Noted.")
        return Fault("ok", tool="finish", arguments={"pitch": pitch})

    return answer


@pytest.fixture
def download(pytester: pytest.Pytester) -> Path:
    shutil.copytree(FIXTURES, pytester.path / "dataset")
    return pytester.path / "dataset"


def runs(
    pytester: pytest.Pytester, download: Path, pitch: str, *argsets: list[str]
) -> list[pytest.RunResult]:
    """One scripted model server for several runs of the Pitch scenario (its four items)."""
    with FaultServer(pitcher(pitch), max_requests=1000) as server:
        return [run(pytester, server, download, "-k", "pitch", *args) for args in argsets]


def summary(pytester: pytest.Pytester, run_id: str) -> dict[str, Any]:
    return json.loads((pytester.path / "reports" / run_id / "sequence_summary.json").read_text())


def stream(pytester: pytest.Pytester, run_id: str) -> list[dict[str, Any]]:
    return summary(pytester, run_id)["protocols"]["stream"]["configs"]


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_resume_measures_only_the_items_an_interrupted_run_had_not_finished(
    pytester: pytest.Pytester, download: Path
) -> None:
    (first,) = runs(pytester, download, PITCH, [])
    assert first.ret == 0, first.stdout.str()
    whole = stream(pytester, "r")
    items = sorted((pytester.path / "reports" / "r" / "items").iterdir())
    assert len(items) == 4
    items[0].unlink()  # as if the run had been killed before its last item was written
    (again,) = runs(pytester, download, PITCH, ["--pastbench-resume=r"])
    assert again.ret == 0, again.stdout.str()
    again.stdout.fnmatch_lines(["*resuming reports/r: 3 finished items kept*", "*11 deselected*1 measured*"])
    assert stream(pytester, "r") == whole


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_two_shards_merge_into_the_unsharded_summary(pytester: pytest.Pytester, download: Path) -> None:
    results = runs(
        pytester,
        download,
        PITCH,
        ["--pastbench-shard=1/2", "--pastbench-run-id=s1"],
        ["--pastbench-shard=2/2", "--pastbench-run-id=s2"],
        ["--pastbench-run-id=whole"],
    )
    assert all(r.ret == 0 for r in results), [r.stdout.str() for r in results]
    reports = pytester.path / "reports"
    merge_runs([reports / "s1", reports / "s2"], reports / "merged", standalone_registry())
    assert stream(pytester, "merged") == stream(pytester, "whole")
    assert [c["harness"] for c in stream(pytester, "merged")] == ["blind", "oracle", "own", "rag"]


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_a_stream_gate_trips_on_a_servelearn_regression(pytester: pytest.Pytester, download: Path) -> None:
    (saved,) = runs(pytester, download, PITCH, ["--pastbench-run-id=base", "--pastbench-save=good"])
    assert saved.ret == 0, saved.stdout.str()
    before = {c["harness"]: c["overall"]["hidden"] for c in stream(pytester, "base")}
    gate = ["--pastbench-compare=good", "--pastbench-compare-fail=hidden:5"]
    kept, worse = [
        *runs(pytester, download, PITCH, ["--pastbench-run-id=same", *gate]),
        *runs(pytester, download, "A product.", ["--pastbench-run-id=worse", *gate]),
    ]
    assert kept.ret == 0, kept.stdout.str()
    assert worse.ret == pytest.ExitCode.TESTS_FAILED, worse.stdout.str()
    after = {c["harness"]: c["overall"]["hidden"] for c in stream(pytester, "worse")}
    assert all(after[h] < before[h] - 5 for h in before), (before, after)
    worse.stdout.fnmatch_lines(["*FAIL*stream.hidden dropped*95% CI of change*blind · hermes@slb-model*"])
