"""What an option is, as data: ``OptionSpec`` and the ``OptionGroup`` of a ``pytest --help``
section. Imports nothing of the package, so a protocol's options module (loaded by every pytest
run) stays light; plugin/options.py registers, validates and resolves them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

# A further check of one option's value (after type, bounds and choices): the value so far, the
# config, and the options resolved before it (in OPTIONS order) in; the final value out. Raises
# ValueError (shown after "--pastbench-NAME=VALUE: ") or pytest.UsageError (shown as it is).
Check = Callable[[Any, pytest.Config, dict[str, Any]], Any]


@dataclass(frozen=True)
class OptionSpec:
    """One ``--pastbench-NAME`` option and its ini key ``pastbench_NAME``, declared as data."""

    name: str
    help: str
    kind: type = str  # str, int or float; bool: a flag (no value on the command line)
    default: Any = None
    choices: tuple[str, ...] = ()
    low: float | None = None  # inclusive bounds
    high: float | None = None
    above_zero: str | None = None  # the value must be > 0; this says how to fix it
    multiple: bool = False  # repeatable: a list
    check: Check | None = None
    field: str | None = None  # the RunOptions field it fills (default: its name); "" for none
    default_text: str | None = None  # the default as the reference shows it, when not the value
    group: str = ""  # a shared option's key of GROUPS (a protocol's options are its OptionGroup)
    metavar: str | None = None  # the placeholder in `pytest --help` (default: from kind and choices)
    # A protocol's option that changes what its items measure: run.json records it and a resume
    # must match it (plugin/resume.py); the shared ones are listed there.
    resume: bool = False

    @property
    def flag(self) -> bool:
        return self.kind is bool

    @property
    def placeholder(self) -> str | None:
        """``{both,on,off}`` for choices, else the declared metavar, ``N`` (int), ``X`` (float)."""
        if self.flag:
            return None
        if self.choices:
            return "{" + ",".join(self.choices) + "}"
        return self.metavar or {int: "N", float: "X"}.get(self.kind, "VALUE")

    @property
    def ini_key(self) -> str:
        return "pastbench_" + self.name.replace("-", "_")

    @property
    def ini_type(self) -> str:
        """The ini key's type as pytest parses and shows it (``pytest --help``: ``(int)``)."""
        if self.flag:
            return "bool"
        if self.multiple:
            return "args"
        return {int: "int", float: "float"}.get(self.kind, "string")

    @property
    def target(self) -> str:
        return self.name.replace("-", "_") if self.field is None else self.field


@dataclass(frozen=True)
class OptionGroup:
    """A section of options: a protocol's own (``key`` its name), or one of the shared GROUPS."""

    key: str
    title: str  # "stream protocol (...)": `pytest --help` shows "pastbench: <title>:"
    specs: tuple[OptionSpec, ...]
