"""The plugin version a run records."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

import pytest

from pytest_pastbench import version as version_module
from pytest_pastbench.version import plugin_version


def test_the_installed_distributions_version() -> None:
    assert plugin_version() == version("pytest-pastbench")


def test_a_source_tree_without_metadata_says_unknown_rather_than_failing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_installed(name: str) -> str:
        raise PackageNotFoundError(name)

    monkeypatch.setattr(version_module, "version", not_installed)
    assert plugin_version() == "0+unknown"
