"""``--pastbench-stream-sample``: N test tasks per scenario or a fraction of each window, seeded."""

from __future__ import annotations

import pytest

from pytest_pastbench.protocols.stream.servelearn.sample import Sample, parse_sample, sample_scenario
from pytest_pastbench.protocols.stream.servelearn.schema import Scenario, Task

from .helpers import scenarios

RETAIL = scenarios()["retail_l1"]


def widened(scenario: Scenario, copies: int) -> Scenario:
    """The scenario with every task repeated (new ids): enough tasks for a draw to matter."""

    def more(tasks: list[Task]) -> list[Task]:
        return [t.model_copy(update={"task_id": f"{t.task_id}.{i}"}) for t in tasks for i in range(copies)]

    return scenario.model_copy(update={"serving": more(scenario.serving), "test": more(scenario.test)})


def ids(tasks: list[Task]) -> list[str]:
    return [t.task_id for t in tasks]


def test_values_parse_and_bad_ones_say_how_to_fix_them() -> None:
    assert parse_sample("20") == Sample(count=20) and str(Sample(count=20)) == "20 test tasks per scenario"
    assert parse_sample("0.1") == Sample(fraction=0.1) and str(Sample(fraction=0.1)) == "0.1 of each window"
    for bad in ("0", "1.5", "-3", "abc", "nan", ""):
        with pytest.raises(ValueError, match=r"e\.g\. 20\) or a fraction"):
            parse_sample(bad)


def test_n_test_tasks_are_spread_over_the_windows_and_serving_is_kept_whole() -> None:
    wide = widened(RETAIL, 10)
    sampled = sample_scenario(wide, Sample(count=6), seed=0)
    assert len(sampled.test) == 6 and sampled.serving == wide.serving
    windows = [t.window for t in sampled.test]
    assert windows.count(0) == windows.count(1) == 3
    assert ids(sampled.test) == [i for i in ids(wide.test) if i in set(ids(sampled.test))]  # stream order
    assert sample_scenario(wide, Sample(count=6), seed=0) == sampled  # seeded
    assert sample_scenario(wide, Sample(count=6), seed=1) != sampled
    assert sample_scenario(RETAIL, Sample(count=100), seed=0).test == RETAIL.test  # at most N


def test_a_fraction_of_each_window_keeps_its_last_serving_task() -> None:
    wide = widened(RETAIL, 10)
    sampled = sample_scenario(wide, Sample(fraction=0.2), seed=3)
    for window in (0, 1):
        served = [t for t in wide.serving if t.window == window]
        kept = [t for t in sampled.serving if t.window == window]
        assert kept[-1] == served[-1]  # the window's test tasks carry its timestamp
        assert len(kept) == 1 + round(0.2 * (len(served) - 1))
        tests = [t for t in wide.test if t.window == window]
        assert len([t for t in sampled.test if t.window == window]) == round(0.2 * len(tests))
    tiny = sample_scenario(RETAIL, Sample(fraction=0.01), seed=0)
    assert {t.window for t in tiny.test} == {0, 1}  # at least one test task per window


def test_a_bad_value_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--pastbench-stream-sample=lots", "--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--pastbench-stream-sample=lots: expected a number of test tasks per scenario*"]
    )
