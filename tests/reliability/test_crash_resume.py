"""Crash safety: a killed run keeps every finished item, and ``--pastbench-resume`` completes it
into the run an uninterrupted ``pytest`` writes (docs/design.md §9, "Nothing lost")."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_pastbench.results.item_record import ItemRecord
from tests.child_runs import expect_no_model_service_left
from tests.family_samples import GOOD_MEMORY, builtin_sample

pytestmark = pytest.mark.reliability

# Three episodes of four families (two capabilities): 24 items, enough to kill the run midway.
BUILTIN = [
    *builtin_sample("memory", "update", episodes=("ep01", "ep02", "ep03")),
    "--pastbench-model=pastbench/recall?latency_ms=30",
]
BUILTIN_ITEMS = 24


def summary_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "sequence_summary.json").read_text())


def comparable(summary: dict) -> dict:
    """A summary but what differs between any two runs of one command."""
    skip = ("id", "started", "finished", "model_calls")
    return {**summary, "run": {k: v for k, v in summary["run"].items() if k not in skip}}


def records_of(run_dir: Path) -> list[dict]:
    records = json.loads((run_dir / "sequence_results.json").read_text())["records"]
    return [{k: v for k, v in r.items() if k != "wall_s"} for r in records]


def check_item_files(items: Path) -> list[Path]:
    """Every ``*.json`` is a whole item (record, trace, family hash); nothing else but ``*.tmp``."""
    finished = sorted(items.glob("*.json"))
    for path in finished:
        payload = json.loads(path.read_text())  # a partial file would not parse
        record = ItemRecord.model_validate(payload["record"])
        assert record.score is not None and not record.infra_blocked, path
        assert isinstance(payload["trace"], list) and payload["trace"], path
        assert isinstance(payload["family_hash"], str) and len(payload["family_hash"]) == 64, path
    others = [p for p in items.iterdir() if p.suffix not in (".json", ".tmp")]
    assert others == []
    return finished


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_a_killed_run_keeps_its_items_and_resume_completes_it(pytester: pytest.Pytester) -> None:
    log = pytester.path / "crash.log"
    items = pytester.path / "reports" / "crash" / "items"
    with log.open("w") as out:
        # Own process group: the kill takes the controller and its xdist workers at once.
        proc = pytester.popen(
            [sys.executable, "-m", "pytest", *BUILTIN, "--pastbench-run-id=crash", "-n", "2"],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 120
            while len(list(items.glob("*.json"))) < 10:
                assert proc.poll() is None, f"the run ended before the kill:\n{log.read_text()[-3000:]}"
                assert time.monotonic() < deadline, f"no items written:\n{log.read_text()[-3000:]}"
                time.sleep(0.05)
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)

    run_dir = items.parent
    finished = check_item_files(items)
    assert 10 <= len(finished) < BUILTIN_ITEMS
    assert not (run_dir / "sequence_summary.json").exists()  # killed before the end
    assert json.loads((run_dir / "run.json").read_text())["models"] == ["pastbench/recall?latency_ms=30"]

    resumed = pytester.runpytest_subprocess(*BUILTIN, "--pastbench-resume=crash", "-n", "2")
    assert resumed.ret == 0, resumed.stdout.str()[-3000:]
    missing = BUILTIN_ITEMS - len(finished)
    resumed.stdout.fnmatch_lines(
        [
            f"pastbench: resuming reports/crash: {len(finished)} finished items kept and deselected",
            f"2 workers [[]{missing} items[]]",
        ]
    )
    counts = resumed.parseoutcomes()
    assert counts.get("scored", 0) + counts.get("control", 0) == missing
    assert not list(items.glob("*.tmp"))  # the leftovers of killed writes are cleared
    assert len(list(items.glob("*.json"))) == BUILTIN_ITEMS

    full = pytester.runpytest_subprocess(*BUILTIN, "--pastbench-run-id=full", "-n", "2")
    assert full.ret == 0, full.stdout.str()[-3000:]
    reports = pytester.path / "reports"
    crash_summary, full_summary = summary_of(reports / "crash"), summary_of(reports / "full")
    assert comparable(crash_summary) == comparable(full_summary)
    assert crash_summary["run"]["id"] == "crash"
    assert records_of(reports / "crash") == records_of(reports / "full")
    assert len(list((reports / "crash" / "traces").rglob("*.jsonl"))) == BUILTIN_ITEMS


def test_resume_of_a_run_that_does_not_exist_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--pastbench-families=builtin", "--pastbench-resume=nothing")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--pastbench-resume=nothing: no such run" in result.stderr.str()
    assert not (pytester.path / "reports").exists()


def make_project(pytester: pytest.Pytester) -> None:
    path = pytester.path / "families" / "memory" / "tiny_prefs.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(GOOD_MEMORY)


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_resume_refuses_other_options_or_changed_families(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    first = pytester.runpytest_subprocess("families", "--pastbench-run-id=r")
    assert first.ret == 0, first.stdout.str()[-3000:]

    other_model = pytester.runpytest_subprocess(
        "families", "--pastbench-resume=r", "--pastbench-model=pastbench/blind"
    )
    assert other_model.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "differs from the run in --pastbench-model (the run: ['pastbench/recall'], now: ['pastbench/blind'])"
        in other_model.stderr.str()
    )
    other_trials = pytester.runpytest_subprocess("families", "--pastbench-resume=r", "--pastbench-trials=2")
    assert "--pastbench-trials (the run: 1, now: 2)" in other_trials.stderr.str()

    family = pytester.path / "families" / "memory" / "tiny_prefs.yaml"
    family.write_text(GOOD_MEMORY.replace("every Monday", "every Tuesday"))
    changed = pytester.runpytest_subprocess("families", "--pastbench-resume=r")
    assert changed.ret == pytest.ExitCode.USAGE_ERROR
    assert "the dataset differs from the run's: memory.tiny_prefs changed" in changed.stderr.str()

    # Reusing the id without --pastbench-resume starts the run afresh: no stale item stays behind.
    again = pytester.runpytest_subprocess("families", "--pastbench-run-id=r", "-k", "ep01")
    assert again.ret == 0
    assert len(list((pytester.path / "reports" / "r" / "items").glob("*.json"))) == 2


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_corrupt_and_blocked_items_run_again(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    first = pytester.runpytest_subprocess("families", "--pastbench-run-id=r")
    assert first.ret == 0, first.stdout.str()[-3000:]
    run_dir = pytester.path / "reports" / "r"
    before = summary_of(run_dir)
    files = sorted((run_dir / "items").glob("*.json"))
    assert len(files) == 4

    corrupt, blocked, gone, _kept = files
    corrupt.write_text(corrupt.read_text()[:100])  # what no atomic write leaves, but a disk might
    payload = json.loads(blocked.read_text())
    payload["record"].update(score=None, infra_blocked=True, reasons=["infra_blocked: provider down"])
    blocked.write_text(json.dumps(payload))
    gone.unlink()
    (run_dir / "items" / ".x.json.123.tmp").write_text('{"record": ')  # a killed write's leftover

    resumed = pytester.runpytest_subprocess("families", "--pastbench-resume=r", "-n", "0")
    assert resumed.ret == 0, resumed.stdout.str()[-3000:]
    resumed.stdout.fnmatch_lines(["collected 4 items / 1 deselected / 3 selected"])
    resumed.stdout.fnmatch_lines(["pastbench: resuming reports/r: 1 finished items kept*1 unreadable*"])
    warning = [line for line in resumed.stdout.lines if "that item runs again" in line]
    assert len(warning) == 1 and f"unreadable item file reports/r/items/{corrupt.name}: " in warning[0]
    counts = resumed.parseoutcomes()
    assert counts.get("scored", 0) + counts.get("control", 0) == 3
    assert comparable(summary_of(run_dir)) == comparable(before)
    assert check_item_files(run_dir / "items") and len(list((run_dir / "items").iterdir())) == 4

    # Resuming a complete run runs nothing, rewrites the same files and is a success (not exit 5).
    complete = pytester.runpytest_subprocess("families", f"--pastbench-resume={run_dir}", "-n", "0")
    assert complete.ret == 0, complete.stdout.str()[-3000:]
    complete.stdout.fnmatch_lines(["collected 4 items / 4 deselected / 0 selected"])
    assert comparable(summary_of(run_dir)) == comparable(before)


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_resuming_a_finished_run_says_there_is_nothing_left_to_run(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    assert pytester.runpytest_subprocess("families", "--pastbench-run-id=r").ret == 0
    again = pytester.runpytest_subprocess("families", "--pastbench-resume=r")
    assert again.ret == 0, again.stdout.str()[-3000:]
    again.stdout.fnmatch_lines(
        [
            "pastbench: nothing left to run in reports/r: all 4 items had finished; "
            "its files were written again from them",
            "*4 deselected, nothing left to run in reports/r in *",
        ]
    )


def interrupt_when(pytester: pytest.Pytester, args: list[str], ready: Callable[[str], bool]) -> str:
    """Run pytest, send Ctrl-C (SIGINT to its process group, as a terminal does) once ``ready``
    holds for its output so far, and return everything it printed. Asserts the exit code of an
    interrupted run; the 120 s bound is a hang guard, not a measurement."""
    log = pytester.path / f"interrupted-{len(list(pytester.path.glob('interrupted-*')))}.log"
    with log.open("w") as out:
        proc = pytester.popen(
            [sys.executable, "-m", "pytest", *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 120
        while not ready(log.read_text()):
            assert proc.poll() is None, f"the run ended before the interrupt:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"never ready:\n{log.read_text()[-3000:]}"
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)
        try:
            code = proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail(f"still running 120 s after Ctrl-C:\n{log.read_text()[-8000:]}")
        assert code == pytest.ExitCode.INTERRUPTED, log.read_text()[-3000:]
    return log.read_text()


@pytest.mark.slow  # three whole pytest runs
def test_ctrl_c_saves_no_baseline_names_the_resume_and_the_resumed_run_equals_a_whole_one(
    pytester: pytest.Pytester,
) -> None:
    """Issue 30: Ctrl-C in the middle of a run that saves a baseline. The interrupted run marks
    itself partial, saves no baseline, and its last line is the command that finishes it; that
    command's summary is the summary of a run that was never interrupted."""
    items = pytester.path / "reports" / "intr" / "items"
    args = [*BUILTIN, "--pastbench-run-id=intr", "--pastbench-save=intp", "-n", "2"]
    output = interrupt_when(pytester, args, lambda _: len(list(items.glob("*.json"))) >= 6)
    run_dir = items.parent
    summary = summary_of(run_dir)
    partial = summary["run"]["partial"]
    assert partial["reason"] == "interrupted" and partial["expected"] == BUILTIN_ITEMS
    assert 6 <= partial["finished"] < BUILTIN_ITEMS
    assert "baseline 'intp' NOT saved: the run is partial" in output
    assert not list((pytester.path / ".pastbench" / "baselines").glob("intp*"))
    last = [line for line in output.splitlines() if line.startswith("pastbench: PARTIAL run")]
    assert last, output[-3000:]
    command = last[-1].split("finish it with: ", 1)[1]
    assert command.endswith("--pastbench-resume=intr") and "--pastbench-save=intp" in command
    for config in summary["configs"]:  # Δ = S_on − S_off even on the episodes that finished
        for entry in config["families"].values():
            if entry["delta"] is not None:
                assert entry["delta"] == pytest.approx(entry["s_on"] - entry["s_off"], abs=1e-9)

    resumed = pytester.runpytest_subprocess(*shlex.split(command)[1:])
    assert resumed.ret == 0, resumed.stdout.str()[-3000:] + resumed.stderr.str()[-2000:]
    assert "PARTIAL" not in resumed.stdout.str()
    resumed.stdout.fnmatch_lines(["saved baseline 'intp'*"])
    whole = pytester.runpytest_subprocess(*BUILTIN, "--pastbench-run-id=whole", "-n", "2")
    assert whole.ret == 0, whole.stdout.str()[-3000:]
    reports = pytester.path / "reports"
    assert comparable(summary_of(reports / "intr")) == comparable(summary_of(reports / "whole"))


@pytest.mark.slow  # three pytest runs
@pytest.mark.parametrize(
    ("moment", "args", "ready"),
    [
        # The controller's session has started; xdist's workers are still starting.
        ("start-up, -n 2", ["-n", "2"], lambda out: "test session starts" in out),
        # The first item has begun on --pastbench-concurrency's threads (litellm's import and
        # first calls in flight: where pydantic's warnings came from).
        ("items started", [], lambda out: ".yaml " in out),
        # The same with the model service in a process of its own (the default outside tests).
        (
            "items started, own model service",
            ["--pastbench-model-service=process"],
            lambda out: ".yaml " in out,
        ),
        # Items have finished under xdist.
        ("items finished, -n 2", ["-n", "2"], lambda out: re.search(r"\n[oc]{3,}", out) is not None),
    ],
)
def test_ctrl_c_answers_in_one_line_without_a_warnings_storm_and_saves_no_baseline(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    moment: str,
    args: list[str],
    ready: Callable[[str], bool],
) -> None:
    """Issue 30: a Ctrl-C during start-up printed 15-51 pydantic warnings and nothing of ours.
    Whenever it comes, the run says in one line what it keeps, prints no warnings, saves no
    baseline and exits as interrupted (exit code 2)."""
    marker = f"pastbench-test-{uuid.uuid4().hex}"
    monkeypatch.setenv("PASTBENCH_TEST_RUN_MARK", marker)
    output = interrupt_when(pytester, [*BUILTIN, "--pastbench-save=early", *args], ready)
    # The model service's process (own session: the Ctrl-C is not its) ends with the run.
    expect_no_model_service_left(marker)
    said = [line for line in output.splitlines() if line.startswith("pastbench: interrupted")]
    assert len(said) == 1, output[-3000:]
    assert "Warning" not in output and "warnings summary" not in output, output[-5000:]
    assert not list((pytester.path / ".pastbench" / "baselines").glob("early*")), moment
    if "finished items are kept" in said[0]:
        assert "baseline 'early' NOT saved: the run is partial" in output
