"""pytest hook glue, in process: what each hook hands on, and that it does nothing for a project
that runs no benchmark (the plugin end to end is tests/test_plugin.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pytest_pastbench.plugin import hooks
from pytest_pastbench.plugin.collection import INVALID_FAMILY_NAME
from pytest_pastbench.plugin.run_handle import RUN_KEY, pastbench_run
from pytest_pastbench.protocols.intervention.profiles import profile_names


class FakeRun:
    """The parts of ``PastbenchRun`` the xdist hooks use."""

    def __init__(self, concurrency: int = 1) -> None:
        self.expected: list[str] = []
        self.gateway_started = 0
        self.options = SimpleNamespace(concurrency=concurrency)
        self.models = SimpleNamespace(ensure_gateway=self.start)

    def start(self) -> None:
        self.gateway_started += 1

    def expect(self, nodeids: list[str]) -> None:
        self.expected.extend(nodeids)


def node_of(run: FakeRun | None) -> Any:
    return SimpleNamespace(config=SimpleNamespace(stash={} if run is None else {RUN_KEY: run}))


class FakeMetafunc:
    def __init__(self, config: Any, fixturenames: list[str], markers: tuple[Any, ...] = ()) -> None:
        self.config = config
        self.fixturenames = fixturenames
        self.definition = SimpleNamespace(iter_markers=lambda name: iter(markers))
        self.parametrized: list[tuple[str, list[str], dict[str, Any]]] = []

    def parametrize(self, argname: str, values: list[str], **kwargs: Any) -> None:
        self.parametrized.append((argname, list(values), kwargs))


def test_this_session_has_the_builtin_protocols_and_its_own_controller_hooks(
    pytestconfig: pytest.Config,
) -> None:
    manager = pytestconfig.pluginmanager
    assert manager.get_plugin("pastbench-builtin-protocols") is not None
    assert manager.get_plugin("pastbench-reports") is not None
    assert manager.get_plugin(hooks._HOOKS_NAME).config is pytestconfig  # per config, not global


def test_workers_that_collected_benchmark_items_start_the_gateway_and_only_those_are_expected() -> None:
    run = FakeRun()
    ids = [
        "tests/test_x.py::test_a",
        "families/memory/a.yaml::ep01[on-t0]",
        "families/memory/b.yml::ep01[off-t0]",
        f"families/memory/broken.yaml::{INVALID_FAMILY_NAME}",
    ]
    hooks.pytest_xdist_node_collection_finished(node_of(run), ids)
    assert run.expected == ids[1:3] and run.gateway_started == 1
    hooks.pytest_xdist_node_collection_finished(node_of(run), ids[:1])  # no benchmark items: inert
    assert run.gateway_started == 1
    hooks.pytest_xdist_node_collection_finished(node_of(None), ids)  # no run at all: nothing to do


@pytest.mark.parametrize(
    ("run", "dist"), [(None, "load"), (FakeRun(concurrency=1), "load"), (FakeRun(concurrency=4), "loadfile")]
)
def test_xdist_keeps_its_own_scheduler_unless_sessions_overlap_under_load(
    run: FakeRun | None, dist: str
) -> None:
    config = SimpleNamespace(stash={} if run is None else {RUN_KEY: run}, getoption=lambda name: dist)
    assert hooks.pytest_xdist_make_scheduler(config, log=None) is None  # type: ignore[arg-type]


def test_a_test_asking_for_the_arm_runs_once_per_arm_and_for_a_profile_once_per_profile(
    pytestconfig: pytest.Config,
) -> None:
    metafunc = FakeMetafunc(pytestconfig, ["pastbench_persistence", "pastbench_profile"])
    hooks.pytest_generate_tests(metafunc)  # type: ignore[arg-type]
    arms = list(pastbench_run(pytestconfig).options.arms)
    names = profile_names()
    assert metafunc.parametrized == [
        ("pastbench_persistence", arms, {"ids": arms, "indirect": True}),
        ("pastbench_profile", names, {"ids": names, "indirect": True}),
    ]


def test_a_test_that_parametrizes_its_profile_itself_is_left_alone(pytestconfig: pytest.Config) -> None:
    own = pytest.mark.parametrize("pastbench_profile", ["reimbursement:power"], indirect=True).mark
    metafunc = FakeMetafunc(pytestconfig, ["pastbench_profile"], (own,))
    hooks.pytest_generate_tests(metafunc)  # type: ignore[arg-type]
    assert metafunc.parametrized == []
