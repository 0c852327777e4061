"""The extension surface of pytest-pastbench (pluggy hook specifications).

Implement these in a ``conftest.py`` or a plugin module to register agents or to act on a
finished run (upload it, post it to a PR, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pluggy
import pytest

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_pastbench_register_agents(register: Callable[[str, Callable[..., Any]], None]) -> None:
    """Register agent implementations: ``register("myagent", factory)``.

    ``factory(name=..., mechanisms=[...])`` returns an object with ``name``, ``mechanisms`` and
    ``run_session(ctx) -> AgentResult``. A name can then be used in an ``agents/*.yaml`` agent file
    (``implementation: myagent``) or directly as ``--pastbench-agent=myagent``.
    """


@hookspec
def pytest_pastbench_run_written(config: pytest.Config, run_dir: Path, summary: dict[str, Any]) -> None:
    """Called on the controller after a run's files are written (summary as in the JSON file)."""


@hookspec
def pytest_pastbench_register_protocols(register: Callable[[Any], None]) -> None:
    """Register protocols: ``register(MyProtocol())``, an object implementing
    ``pytest_pastbench.protocols.base.BenchProtocol`` (subclass ``ProtocolBase`` for defaults).

    Its family files (``format: <its format_tag>``) are then collected, run, summarised, merged,
    resumed and gated like the built-in protocols'.
    """


@hookspec(historic=True)
def pytest_pastbench_register_options(register: Callable[[Any], None]) -> None:
    """Register a protocol's options: ``register(OPTIONS)``, a
    ``pytest_pastbench.plugin.option_spec.OptionGroup`` (a section title and its ``OptionSpec``s).

    Each becomes ``--pastbench-NAME`` and the ini key ``pastbench_NAME`` in a ``pytest --help``
    section of its own, validated with the shared ones; its value is ``options.<name>`` of the
    run's ``RunOptions`` (``OptionSpec(resume=True)``: a resume must match it). Called when the
    options are added, as ``pytest_addoption`` is (historic: a conftest registered later is called
    too), so keep the group in a module that imports nothing heavy, and give the same object as
    the protocol's ``options``.
    """
