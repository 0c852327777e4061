"""Collection details: the work estimate of an item and the longest-first order under xdist."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_pastbench.collect import longest_first


class _Item:
    def __init__(self, name: str, work: int | None) -> None:
        self.name = name
        if work is not None:
            self.work_estimate = lambda: work

    def __repr__(self) -> str:
        return self.name


def test_longest_first_puts_unknown_lengths_first_then_longest_with_ties_in_collection_order() -> None:
    items: list[Any] = [_Item("a", 2), _Item("b", 5), _Item("own-test", None), _Item("c", 2), _Item("d", 9)]
    assert [i.name for i in longest_first(items)] == ["own-test", "d", "b", "a", "c"]
    assert longest_first([]) == []


def test_an_item_s_work_is_its_user_turns_and_the_control_arm_runs_only_the_eval_sessions(
    pytester: pytest.Pytester,
) -> None:
    # SM03_fact_correction ep01: learn (2 turns), learn (1), distractor (1), eval_near (1), eval_far (1).
    selection = ["-k", "fact_correction and ep01", "--collect-only", "-p", "no:cacheprovider"]
    reprec = pytester.inline_run("--pastbench-families=builtin", *selection)
    items = reprec.getcalls("pytest_collection_finish")[0].session.items
    work = {item.name: item.work_estimate() for item in items}
    assert work == {"ep01[off-t0]": 2, "ep01[on-t0]": 6}


def test_xdist_workers_run_the_longest_items_first(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "import json, os\n"
        "def pytest_collection_finish(session):\n"
        "    worker = getattr(session.config, 'workerinput', {}).get('workerid')\n"
        "    if worker:\n"
        "        with open(f'order-{worker}.json', 'w') as handle:\n"
        "            json.dump([i.name for i in session.items], handle)\n"
    )
    selection = "fact_correction and (ep01 or ep02)"
    result = pytester.runpytest_subprocess(
        "--pastbench-families=builtin", "-k", selection, "--pastbench-model=pastbench/blind", "-n", "2"
    )
    assert result.ret == 0
    orders = [json.loads((pytester.path / f"order-gw{i}.json").read_text()) for i in (0, 1)]
    assert orders[0] == orders[1]  # xdist requires the same order on every worker
    assert [name.split("[")[1] for name in orders[0]] == ["on-t0]", "on-t0]", "off-t0]", "off-t0]"]
