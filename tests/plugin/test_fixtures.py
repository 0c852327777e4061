"""The public fixtures for users' own tests: the same building blocks the benchmark items use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.core.store import Store
from tests.test_plugin import run


def test_the_store_is_a_fresh_one_in_this_tests_tmp_path(pastbench_store: Store, tmp_path: Path) -> None:
    assert isinstance(pastbench_store, Store)
    assert pastbench_store.root == tmp_path / "pastbench-store"
    assert pastbench_store.entries() == []


def test_the_world_has_an_empty_seed(pastbench_world: Any) -> None:
    snapshot = pastbench_world.snapshot()
    assert snapshot and all(rows == [] for rows in snapshot.values())


def test_a_test_asking_for_a_profile_runs_once_per_analytics_profile(
    pastbench_profile: Any, request: pytest.FixtureRequest
) -> None:
    assert pastbench_profile.family.id == "analytics"
    assert request.node.callspec.id == pastbench_profile.name  # this run's profile, by name


@pytest.mark.parametrize("pastbench_profile", ["reimbursement:power"], indirect=True)
def test_a_chosen_profile_is_family_and_name(pastbench_profile: Any) -> None:
    assert (pastbench_profile.family.id, pastbench_profile.name) == ("reimbursement", "power")


def test_public_fixtures_in_a_users_own_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_mine="""
        from pytest_pastbench import run_agent_session

        def test_agent_keeps_a_preference(pastbench_agent, pastbench_model, pastbench_store, pastbench_world):
            run_agent_session(pastbench_agent, pastbench_model, pastbench_store, pastbench_world,
                              ["Plan the offsite. The Brightwater team prefers vegetarian catering."])
            later = run_agent_session(pastbench_agent, pastbench_model, pastbench_store, pastbench_world,
                                      ["What catering does the Brightwater team prefer?"], index=1)
            assert "vegetarian" in later.answer

        def test_arms(pastbench_persistence):
            assert pastbench_persistence in ("on", "off")
        """
    )
    result = run(pytester, "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*test_arms?on? PASSED*", "*test_arms?off? PASSED*"])
