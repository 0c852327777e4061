"""The suite's own deal to xdist workers (tests/scheduling.py): whole units, longest first, even."""

from __future__ import annotations

from pathlib import Path

from tests.scheduling import DEFAULT_S, deal, record, unit_of


def test_long_modules_go_first_to_the_least_loaded_worker_and_stay_whole() -> None:
    ids = [f"tests/{m}.py::t{i}" for m, n in (("a", 3), ("b", 2), ("c", 1), ("d", 2)) for i in range(n)]
    seconds = {"tests/a.py": 100.0, "tests/b.py": 60.0, "tests/c.py": 50.0, "tests/d.py": 5.0}
    shares = deal(ids, 2, seconds)
    modules = [[ids[i].split("::")[0] for i in share] for share in shares]
    # a (100) to worker 0; b (60) to 1; c (50) to 1, the lighter (60); d (5) to 0 (100 < 110).
    assert modules == [
        ["tests/a.py"] * 3 + ["tests/d.py"] * 2,
        ["tests/b.py"] * 2 + ["tests/c.py"],
    ]
    assert sorted(i for share in shares for i in share) == list(range(len(ids)))  # each item once
    assert deal(ids, 2, seconds) == shares  # the same collection and file: the same deal


def test_a_module_the_file_does_not_know_counts_its_tests_and_folders_sharing_runs_stay_together() -> None:
    ids = ["tests/new.py::t1", "tests/new.py::t2"]
    ids += ["tests/adversarial/test_x.py::t", "tests/adversarial/test_y.py::t"]
    seconds = {"tests/adversarial/test_x.py": 1.0, "tests/adversarial/test_y.py": 1.0}
    assert unit_of("tests/adversarial/test_x.py::t") == unit_of("tests/adversarial/test_y.py::t")
    # The adversarial folder is one unit of 2 s, dealt first; the unknown module counts 2 x DEFAULT_S.
    assert 2 * DEFAULT_S < 2.0
    assert deal(ids, 2, seconds) == [[2, 3], [0, 1]]


def test_more_workers_than_units_leaves_some_without_a_deal() -> None:
    assert deal(["tests/a.py::t"], 3, {}) == [[0], [], []]


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
