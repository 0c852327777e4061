"""The package's public names: each one resolves, lazily, to the object its module defines."""

from __future__ import annotations

import subprocess
import sys
from importlib import import_module

import pytest

import pytest_pastbench


def test_every_exported_name_is_the_object_of_the_module_it_names() -> None:
    for name, module in pytest_pastbench._EXPORTS.items():
        assert getattr(pytest_pastbench, name) is getattr(import_module(module), name), name
    assert pytest_pastbench.__all__ == sorted(pytest_pastbench._EXPORTS)


def test_an_unknown_name_is_an_attribute_error_naming_it() -> None:
    with pytest.raises(AttributeError, match="'pytest_pastbench' has no attribute 'Nope'"):
        pytest_pastbench.Nope  # noqa: B018


def test_importing_the_package_loads_none_of_the_modules_it_exports() -> None:
    # A fresh interpreter: this process has long imported them.
    code = (
        "import sys, pytest_pastbench\n"
        "print(sorted(set(pytest_pastbench._EXPORTS.values()) & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
