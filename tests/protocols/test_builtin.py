"""The built-in protocols and their options, registered through the hooks a plugin uses."""

from __future__ import annotations

from typing import Any

from pytest_pastbench.protocols import builtin
from pytest_pastbench.protocols.base import BenchProtocol
from pytest_pastbench.protocols.standalone import standalone_registry


def test_the_four_built_in_protocols_register_through_the_hook() -> None:
    registry = standalone_registry()
    assert [p.name for p in registry] == ["past", "intervention", "plasticity", "stream"]
    assert all(isinstance(p, BenchProtocol) for p in registry)
    assert registry.by_tag("pastbench/v1") is registry["past"]
    assert registry.of_payload({"record": {}}) is registry["past"]  # item files written before names
    # The catch-all offline policy is PAST's alone: the others recognise their own sessions.
    assert [p.name for p in registry if p.offline_policy().catch_all] == ["past"]


def test_the_hooks_register_the_four_protocols_first_and_each_ones_own_option_group() -> None:
    protocols: list[Any] = []
    groups: list[Any] = []
    builtin.pytest_pastbench_register_protocols(protocols.append)
    builtin.pytest_pastbench_register_options(groups.append)
    assert [p.name for p in protocols] == ["past", "intervention", "plasticity", "stream"]
    # The group registered for pytest's options is the very object the protocol reads them from.
    by_name = {p.name: p for p in protocols}
    assert [g.key for g in groups] == ["intervention", "plasticity", "stream"]
    assert all(by_name[g.key].options is g for g in groups)
