"""The registry outside a pytest run: the built-in protocols, then those of the plugin modules
named, registered through the same hook as in a run (an unmarked function is a hook)."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_pastbench.protocols.standalone import standalone_registry

PLUGIN = """
from pytest_pastbench.protocols.base import ProtocolBase


class StandIn(ProtocolBase):
    name = "stand_in"
    format_tag = "pastbench/stand-in-v1"


def pytest_pastbench_register_protocols(register):
    register(StandIn())
"""


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    name = f"standalone_plugin_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(PLUGIN))
    monkeypatch.syspath_prepend(tmp_path)
    yield name
    sys.modules.pop(name, None)


def test_a_plugin_modules_protocol_comes_after_the_built_in_four(plugin: str) -> None:
    registry = standalone_registry([plugin])
    assert [p.name for p in registry] == ["past", "intervention", "plasticity", "stream", "stand_in"]
    assert registry.by_tag("pastbench/stand-in-v1") is registry["stand_in"]
    assert "stand_in" not in [p.name for p in standalone_registry()]  # the plain registry stays plain


def test_one_registry_per_list_of_plugins(plugin: str) -> None:
    assert standalone_registry([plugin]) is standalone_registry([plugin])
    assert standalone_registry() is standalone_registry(())


def test_a_plugin_that_cannot_be_imported_is_a_usage_error_naming_it() -> None:
    with pytest.raises(pytest.UsageError, match=r"-p no_such_plugin_module: cannot import it \(No module"):
        standalone_registry(["no_such_plugin_module"])
