"""The suite's own deal to xdist workers (tests/scheduling.py): whole modules, longest first, even."""

from __future__ import annotations

from pathlib import Path

from tests.scheduling import BOTH_CORES, DEFAULT_S, deal, record, unit_of


def test_long_modules_go_first_to_the_least_loaded_worker_and_stay_whole() -> None:
    ids = [f"m/{m}.py::t{i}" for m, n in (("a", 3), ("b", 2), ("c", 1), ("d", 2)) for i in range(n)]
    seconds = {"m/a.py": 100.0, "m/b.py": 60.0, "m/c.py": 50.0, "m/d.py": 5.0}
    shares = deal(ids, 2, seconds)
    modules = [[ids[i].split("::")[0] for i in share] for share in shares]
    # a (100) to worker 0; b (60) to 1; c (50) to 1, the lighter (60); d (5) to 0 (100 < 110).
    assert modules == [
        ["m/a.py"] * 3 + ["m/d.py"] * 2,
        ["m/b.py"] * 2 + ["m/c.py"],
    ]
    assert sorted(i for share in shares for i in share) == list(range(len(ids)))  # each item once
    assert deal(ids, 2, seconds) == shares  # the same collection and file: the same deal


def test_a_module_the_file_does_not_know_counts_its_tests() -> None:
    ids = ["m/new.py::t1", "m/new.py::t2", "m/known.py::t"]
    # The unknown module counts 2 x DEFAULT_S, more than the known one: it is dealt first.
    assert deal(ids, 2, {"m/known.py": DEFAULT_S * 1.5}) == [[0, 1], [2]]
    assert unit_of("m/new.py::t1") == unit_of("m/new.py::t2") == "m/new.py"


def test_more_workers_than_units_leaves_some_without_a_deal() -> None:
    assert deal(["m/a.py::t"], 3, {}) == [[0], [], []]


def test_durations_are_recorded_per_module_from_junit(tmp_path: Path) -> None:
    junit = tmp_path / "suite.xml"
    junit.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.plugin.test_run" name="test_a" time="1.25"/>'
        '<testcase classname="tests.plugin.test_run.TestGroup" name="test_b" time="0.5"/>'
        '<testcase classname="tests.test_cli" name="test_c" time="2"/>'
        "</testsuite></testsuites>"
    )
    out = tmp_path / "durations.json"
    assert record(junit, out) == {"tests/plugin/test_run.py": 1.8, "tests/test_cli.py": 2.0}
    assert out.read_text().startswith("{")


def test_modules_that_use_both_cores_go_to_one_worker_one_after_the_other() -> None:
    ids = [f"{module}::t" for module in BOTH_CORES] + ["m/a.py::t"]
    seconds = {BOTH_CORES[0]: 100.0, BOTH_CORES[1]: 90.0, "m/a.py": 150.0}
    # Longest first alone would put them beside each other, on the two workers.
    assert deal(ids, 2, seconds) == [[0, 1], [2]]
