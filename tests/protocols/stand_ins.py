"""Stand-ins for the pytest objects a protocol's ``collect`` and items read, so their unit tests
run in this process without a pytest run: the run (reached through ``pastbench_run``, a stash key
on the config), a family file's collector and an item built without a parent."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.plugin.run_handle import RUN_KEY


class StandInRun:
    """What collection and an item's ``measure`` ask of the run (``PastbenchRun``)."""

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        self.clients: list[tuple[str, int]] = []
        self.families: dict[str, str] = {}

    def agent_for(self, mechanisms: list[str] | None) -> Any:
        return SimpleNamespace(name="hermes", mechanisms=mechanisms or [])

    def agent_label(self) -> str:
        return "hermes"

    def config_label(self, model: str, mechanisms: list[str] | None = None) -> str:
        return f"hermes[{','.join(mechanisms or [])}]@{model}"

    def client(self, model: str, trial: int = 0) -> str:
        self.clients.append((model, trial))
        return f"client:{model}:{trial}"

    def budgets(self) -> str:
        return "budgets"

    def judge(self) -> str:
        return "judge"

    def note_family(self, family_id: str, file_hash: str) -> None:
        self.families[family_id] = file_hash


class StandInConfig:
    def __init__(self, run: StandInRun) -> None:
        self.stash = pytest.Stash()
        self.stash[RUN_KEY] = run  # type: ignore[assignment]
        self.ini_lines: list[tuple[str, str]] = []

    def addinivalue_line(self, name: str, line: str) -> None:
        self.ini_lines.append((name, line))


class StandInFile:
    """A family file's collector (``ProtocolFile``): its path, config and ``identify``."""

    def __init__(self, path: Path, options: RunOptions) -> None:
        self.path = path
        self.run = StandInRun(options)
        self.config = StandInConfig(self.run)
        self.family_id = ""
        self.file_hash = ""

    def identify(self, family_id: str, file_hash: str) -> None:
        self.family_id, self.file_hash = family_id, file_hash


class Made:
    """Replaces an item class in a ``collect`` module: ``from_parent`` keeps what it was given."""

    @classmethod
    def from_parent(cls, parent: Any, **kwargs: Any) -> dict[str, Any]:
        return kwargs


def item_of(item_class: type[pytest.Item], options: RunOptions, **attributes: Any) -> Any:
    """An item of ``item_class`` with ``attributes`` and a stand-in run, built without pytest's
    collection (``from_parent`` needs a real session); ``measure`` and the records read only these."""
    item = item_class.__new__(item_class)
    run = StandInRun(options)
    defaults = {
        "model": "pastbench/recall",
        "trial": 0,
        "mechanisms": None,
        "name": "x[t0]",
        "family_id": "f",
    }
    for key, value in {**defaults, **attributes}.items():
        setattr(item, key, value)
    item.config = StandInConfig(run)
    # The node id as pytest 9 (``_id``) and pytest 8 (``_nodeid``) keep it.
    item._id = item._nodeid = f"families/f.yaml::{item.name}"
    item.record, item.trace, item.infra_error = None, [], None
    return item


def run_of(item: Any) -> StandInRun:
    return item.config.stash[RUN_KEY]
