"""The registry outside a pytest run, for the entry points only (the ``pastbench`` commands, the
offline model provider's process): the built-in protocols and the plugin modules named on a
command line, registered through ``pytest_pastbench_register_protocols`` as in a run. Everything
below takes the registry it is given; nothing else imports this module.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import pluggy
import pytest

from .. import hookspec
from . import builtin
from .registry import ProtocolRegistry, filled

_standalone: dict[tuple[str, ...], ProtocolRegistry] = {}


def _hook_manager() -> Any:
    class PastbenchHooks(pluggy.PluginManager):
        """Like pytest's: a ``pytest_pastbench_*`` function is a hook implementation unmarked."""

        def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
            opts = super().parse_hookimpl_opts(plugin, name)
            if (
                opts is None
                and name.startswith("pytest_pastbench_")
                and callable(getattr(plugin, name, None))
            ):
                return {}
            return opts

    return PastbenchHooks("pytest")


def standalone_registry(plugins: Sequence[str] = ()) -> ProtocolRegistry:
    """The registry outside a pytest run: the built-in protocols and the ``plugins`` modules'."""
    key = tuple(plugins)
    if key not in _standalone:
        manager = _hook_manager()
        manager.add_hookspecs(hookspec)
        manager.register(builtin, "pastbench-builtin-protocols")
        for name in plugins:
            try:
                manager.register(importlib.import_module(name), name)
            except ImportError as exc:
                raise pytest.UsageError(f"-p {name}: cannot import it ({exc})") from None
        _standalone[key] = filled(manager.hook)
    return _standalone[key]
