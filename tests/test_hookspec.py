"""The extension surface: each hook specification is one a plugin or conftest can implement, with
the arguments the docs name; options registration is historic, so a late conftest is heard too."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pluggy
import pytest

from pytest_pastbench import hookspec
from tests.docs_text import docs_text

HOOKS = sorted(
    name
    for name, value in vars(hookspec).items()
    if inspect.isfunction(value) and value.__module__ == hookspec.__name__
)


def manager() -> pluggy.PluginManager:
    plugins = pluggy.PluginManager("pytest")
    plugins.add_hookspecs(hookspec)
    return plugins


def test_every_function_is_a_pastbench_hook_specification() -> None:
    assert HOOKS  # the module defines the hooks
    for name in HOOKS:
        assert name.startswith("pytest_pastbench_"), name
        assert hasattr(getattr(hookspec, name), "pytest_spec"), f"{name} is not marked @hookspec"


def test_a_pytest_run_knows_every_hook(pytestconfig: pytest.Config) -> None:
    for name in HOOKS:
        assert getattr(pytestconfig.pluginmanager.hook, name).spec is not None, name


def test_the_docs_name_every_hook_and_its_arguments_where_they_give_them() -> None:
    text = " ".join(docs_text().split())
    for name in HOOKS:
        assert name in text, f"docs: {name} is not described"
        arguments = ", ".join(inspect.signature(getattr(hookspec, name)).parameters)
        for written in re.findall(rf"{name}\(([^)]*)\)", text):
            # a definition in an example (def hook(register):) or a call written out in prose
            assert written.rstrip(":") in (arguments, ""), (
                f"docs: {name}({written}), the hook takes ({arguments})"
            )


def test_an_implementation_with_an_argument_the_hook_lacks_is_refused() -> None:
    class Misspelled:
        @pluggy.HookimplMarker("pytest")
        def pytest_pastbench_run_written(self, config: Any, run_folder: Path) -> None: ...

    with pytest.raises(pluggy.PluginValidationError, match="run_folder"):
        manager().register(Misspelled())


def test_options_registered_before_a_plugin_arrives_still_reach_it() -> None:
    plugins = manager()
    groups: list[str] = []
    plugins.hook.pytest_pastbench_register_options.call_historic(kwargs={"register": groups.append})

    class LateConftest:
        @pluggy.HookimplMarker("pytest")
        def pytest_pastbench_register_options(self, register: Any) -> None:
            register("late group")

    plugins.register(LateConftest())
    assert groups == ["late group"]
