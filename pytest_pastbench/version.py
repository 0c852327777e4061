"""The installed plugin version (recorded in every run)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def plugin_version() -> str:
    try:
        return version("pytest-pastbench")
    except PackageNotFoundError:
        return "0+unknown"
