"""--pastbench-concurrency: K items in flight per process, pytest's contract unchanged."""

from __future__ import annotations

import json
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.plugin.concurrency import ItemPool
from tests.test_plugin import outcomes, run

# Two episodes of the built-in SM memory families (3 families; "-k ep01" alone would also match
# every item of the family EP01_prior_case_recall): items some long, some short.
SLICE = ("--pastbench-families=builtin", "-m", "memory", "-k", "SM0 and (ep01 or ep02)")
SLOW_MODEL = "--pastbench-model=pastbench/recall?latency_ms=20"


class _Item:
    is_pastbench_item = True

    def __init__(self, nodeid: str, seconds: float, log: list[str], fail: bool = False) -> None:
        self.nodeid = nodeid
        self.seconds = seconds
        self.log = log
        self.fail = fail

    def measure_item(self) -> None:
        time.sleep(self.seconds)
        self.log.append(self.nodeid)
        if self.fail:
            raise ValueError(f"{self.nodeid} failed")


def test_the_pool_keeps_k_in_flight_and_hands_results_back_in_pytests_order() -> None:
    log: list[str] = []
    items = [_Item(f"i{n}", 0.2 if n % 3 == 0 else 0.05, log) for n in range(12)]
    pool = ItemPool(4, lambda: False)
    started = time.monotonic()
    try:
        for n, item in enumerate(items):
            pool.run(item, iter(items[n + 1 :]))
    finally:
        pool.close()
    wall = time.monotonic() - started
    assert sorted(log) == sorted(i.nodeid for i in items)  # each measured once
    serial = sum(i.seconds for i in items)
    assert wall < serial / 2, (wall, serial)  # 1.2 s serial; 4 in flight take well under half


def test_the_pool_raises_an_items_error_in_the_callers_thread_and_stops_new_work() -> None:
    log: list[str] = []
    stop = threading.Event()
    items = [_Item("bad", 0.0, log, fail=True), *(_Item(f"i{n}", 0.3, log) for n in range(8))]
    pool = ItemPool(2, stop.is_set)
    with pytest.raises(ValueError, match="bad failed"):
        pool.run(items[0], iter(items[1:]))
    stop.set()  # what -x does after the failed report
    pool.close()
    time.sleep(0.8)
    assert len(log) <= 3  # "bad" and the (at most two) items already running when it stopped


def _run_files(pytester: pytest.Pytester, run_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    folder = pytester.path / "reports" / run_id
    summary = json.loads((folder / "sequence_summary.json").read_text())
    for key in ("id", "started", "finished"):
        summary["run"].pop(key)
    records = json.loads((folder / "sequence_results.json").read_text())["records"]
    for record in records:
        record.pop("wall_s", None)
        for session in record.get("sessions") or []:
            session.pop("wall_s", None)
    return summary, records


def _verdicts(result: pytest.RunResult) -> list[str]:
    return [line.split(" ")[0] + " " + line.split(" ")[1] for line in result.outlines if "::ep0" in line]


def _junit_cases(path: Path) -> list[tuple[str, str]]:
    cases = ET.parse(path).getroot().iter("testcase")
    return [(c.get("name") or "", ",".join(sorted(child.tag for child in c))) for c in cases]


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_summaries_reports_order_and_junit_are_identical_at_k_1_and_k_16(pytester: pytest.Pytester) -> None:
    results = {}
    for k in (1, 16):
        results[k] = run(
            pytester, *SLICE, SLOW_MODEL, "-v", f"--pastbench-concurrency={k}",
            f"--pastbench-run-id=k{k}", f"--junitxml=k{k}.xml",
        )  # fmt: skip
    assert outcomes(results[1]) == outcomes(results[16])
    assert outcomes(results[1])["scored"] == outcomes(results[1])["control"] == 6
    assert _verdicts(results[1]) == _verdicts(results[16]) and len(_verdicts(results[1])) == 12
    assert _run_files(pytester, "k1") == _run_files(pytester, "k16")
    assert _junit_cases(pytester.path / "k1.xml") == _junit_cases(pytester.path / "k16.xml")


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_xdist_workers_with_k_in_flight_give_the_same_summary(pytester: pytest.Pytester) -> None:
    one = run(pytester, *SLICE, "--pastbench-concurrency=1", "--pastbench-run-id=a")
    many = run(pytester, *SLICE, "-n", "2", "--pastbench-concurrency=8", "--pastbench-run-id=b")
    assert outcomes(one)["scored"] == outcomes(many)["scored"] == 6
    assert _run_files(pytester, "a") == _run_files(pytester, "b")


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_exitfirst_stops_new_work_with_k_in_flight(pytester: pytest.Pytester) -> None:
    result = run(
        pytester, *SLICE, SLOW_MODEL, "-x", "--pastbench-concurrency=4",
        "--pastbench-model=pastbench/blind", "--pastbench-pass-threshold=0.9", "--pastbench-run-id=x",
    )  # fmt: skip
    assert outcomes(result)["failed"] == 1
    assert "stopping after 1 failures" in result.stdout.str()
    items = list((pytester.path / "reports" / "x" / "items").glob("*.json"))
    assert len(items) == sum(outcomes(result).get(k, 0) for k in ("failed", "scored", "control"))


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5"])
def test_a_bad_concurrency_is_a_usage_error_with_the_fix(pytester: pytest.Pytester, value: str) -> None:
    result = run(pytester, f"--pastbench-concurrency={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "whole number of items in flight per process, 1 or more" in result.stderr.str()


def test_more_sessions_than_connections_is_one_warning(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--collect-only", "--pastbench-concurrency=32", "--pastbench-max-connections=4")
    warning = "--pastbench-concurrency=32 is more than --pastbench-max-connections=4"
    assert result.stdout.str().count(warning) == 1


class _Node:
    """What xdist's scheduler needs of a worker: it records the items it is sent."""

    shutting_down = False

    def __init__(self, name: str) -> None:
        self.gateway = type("Gateway", (), {"id": name})()
        self.sent: list[int] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent += indices

    def shutdown(self) -> None:
        self.shutting_down = True


def test_the_k_deep_scheduler_keeps_each_worker_two_k_ahead_and_the_tail_balanced(
    pytester: pytest.Pytester,
) -> None:
    from pytest_pastbench.plugin.concurrency import keep_k_pending_scheduler

    config = pytester.parseconfig("-p", "xdist", "--tx", "2*popen")
    scheduler = keep_k_pending_scheduler(config, None, concurrency=4)
    nodes = [_Node("gw0"), _Node("gw1")]
    collection = [f"test_{n}" for n in range(40)]
    for node in nodes:
        scheduler.add_node(node)
        scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    first = {id(node): len(node.sent) for node in nodes}
    # Each worker runs one item: it is topped back up to 2 × K = 8 unreported items at once,
    # where xdist alone waits until a worker is down to one or two.
    for node in nodes:
        scheduler.mark_test_complete(node, node.sent[0])
        assert len(scheduler.node2pending[node]) >= 8, (first, scheduler.node2pending[node])
    # Run everything; the whole collection is sent exactly once, split evenly.
    while scheduler.has_pending:
        for node in nodes:
            if scheduler.node2pending[node]:
                scheduler.mark_test_complete(node, scheduler.node2pending[node][0])
    assert sorted(nodes[0].sent + nodes[1].sent) == list(range(40))
    assert abs(len(nodes[0].sent) - len(nodes[1].sent)) <= 8
