"""Public fixtures for users' own tests (docs/design.md §3).

They hand out the same building blocks the benchmark items use, so a team can write a
targeted test of its agent against a store and the simulated world.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .run_handle import pastbench_run


@pytest.fixture
def pastbench_persistence(request: pytest.FixtureRequest) -> str:
    """ "on", "off" or "ablated": a test that asks for it runs once per arm of ``--pastbench-persistence``."""
    return str(getattr(request, "param", pastbench_run(request.config).options.arms[0]))


@pytest.fixture
def pastbench_store(tmp_path: Path) -> Any:
    """A fresh, isolated persistent store (``pytest_pastbench.Store``) in this test's tmp_path."""
    from ..core.store import Store  # lazy: keeps pytest's start light (tests/test_lazy_start.py)

    return Store(tmp_path / "pastbench-store")


@pytest.fixture
def pastbench_world(request: pytest.FixtureRequest) -> Any:
    """The simulated services (notes, archive, tickets, deploys) with an empty seed: the first
    registered protocol's ``empty_world`` (of the built-in four, PAST's)."""
    registry = pastbench_run(request.config).registry
    world = next((w for w in (protocol.empty_world() for protocol in registry) if w is not None), None)
    if world is None:
        raise pytest.UsageError("pastbench_world: no registered protocol has a simulated world")
    return world


@pytest.fixture
def pastbench_model(request: pytest.FixtureRequest) -> Any:
    """A ``ModelClient`` for the first ``--pastbench-model`` (default pastbench/recall)."""
    bench = pastbench_run(request.config)
    return bench.client(bench.options.models[0])


@pytest.fixture
def pastbench_agent(request: pytest.FixtureRequest) -> Any:
    """The agent selected by ``--pastbench-agent`` (default hermes)."""
    return pastbench_run(request.config).agent()


@pytest.fixture
def pastbench_profile(request: pytest.FixtureRequest) -> Any:
    """A user-state profile of an intervention family (``UserProfile``: ``seed(store)``,
    ``run_session(agent, model, store, turns, after=EVENT)``). A test that asks for it runs once
    per profile of the built-in ``analytics`` family; parametrize it indirectly with
    ``"[family:]profile"`` (e.g. ``"reimbursement:power"``) to choose."""
    # lazy: keeps pytest's start light (tests/test_lazy_start.py)
    from ..protocols.intervention.profiles import load_profile

    try:
        return load_profile(str(getattr(request, "param", "power")))
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
