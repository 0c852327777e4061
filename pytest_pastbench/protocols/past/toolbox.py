"""PAST's tools of one session: the world tools over the session's ``World`` and the store tools
(``core/tools.py``) over the item's store, in one ``ToolBox``.

The store tools, the tool-box interface (``SessionToolBox``), validation and call logging are
protocol-neutral and stay in ``core/tools.py``; only the world's catalog and its tool box are PAST's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_pastbench.core.records import ToolCall
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.tools import (
    RENDER_TOOLS,
    STORE_TOOLS,
    MemoryTools,
    ToolSpec,
    irreversible_names,
    param_spec,
    record_call,
    validated,
)
from pytest_pastbench.protocols.past.world import World

WORLD_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("notes_list", "List the titles of the team's shared notes."),
    ToolSpec("notes_read", "Read a shared team note.", {"title": param_spec("string", "note title")}),
    ToolSpec(
        "notes_write",
        "Create or overwrite a shared team note (visible to the team).",
        {"title": param_spec("string", "note title"), "body": param_spec("string", "note body")},
        irreversible=True,
    ),
    ToolSpec(
        "archive_search",
        "Search the company document archive (retrospectives, handoffs, audits, minutes).",
        {"query": param_spec("string", "words to look for")},
    ),
    ToolSpec("archive_read", "Read an archive document by id.", {"id": param_spec("string", "document id")}),
    ToolSpec(
        "tickets_list",
        "List tickets, optionally in one queue.",
        {"queue": param_spec("string", "queue name", required=False)},
    ),
    ToolSpec(
        "tickets_create",
        "Open a ticket.",
        {
            "title": param_spec("string", "ticket title"),
            "body": param_spec("string", "description", required=False),
            "queue": param_spec("string", "queue name", required=False),
            "priority": param_spec("string", "P0..P4", required=False),
            "assignee": param_spec("string", "assignee handle", required=False),
        },
        irreversible=True,
    ),
    ToolSpec(
        "tickets_update",
        "Change a ticket's status, priority or assignee, or add a comment.",
        {
            "id": param_spec("string", "ticket id"),
            "status": param_spec("string", "new status", required=False),
            "priority": param_spec("string", "new priority", required=False),
            "assignee": param_spec("string", "new assignee", required=False),
            "comment": param_spec("string", "comment to add", required=False),
        },
        irreversible=True,
    ),
    ToolSpec(
        "deploys_list",
        "List recent deploys, optionally of one service.",
        {"service": param_spec("string", "service name", required=False)},
    ),
    ToolSpec(
        "deploys_create",
        "Deploy a version of a service to production.",
        {
            "service": param_spec("string", "service name"),
            "version": param_spec("string", "version to deploy"),
        },
        irreversible=True,
    ),
)

ALL_TOOLS = {spec.name: spec for spec in (*STORE_TOOLS, *WORLD_TOOLS)}


def tool_specs(render: bool = False) -> dict[str, ToolSpec]:
    """The tools by name; with ``render`` (E2) the structured memory tools."""
    return {**ALL_TOOLS, **RENDER_TOOLS} if render else ALL_TOOLS


class _SpecList:
    """``ToolBox.specs(render=False)`` on the class: the base tool list (what model clients and
    tests send); ``box.specs()`` on a box: the list its session offers (E2 changes the memory tools)."""

    def __get__(self, box: ToolBox | None, owner: type) -> Callable[..., list[dict[str, Any]]]:
        if box is None:
            return lambda render=False: [spec.to_openai() for spec in tool_specs(render).values()]
        return lambda: [spec.to_openai() for spec in tool_specs(box.render).values()]


class ToolBox:
    """PAST's tools of one session: the store tools over the item's store and the world tools
    over the session's world (implements ``SessionToolBox``)."""

    specs = _SpecList()
    irreversible = irreversible_names(WORLD_TOOLS)

    def __init__(self, store: Store, world: World) -> None:
        self.store = store
        self.world = world
        self.memory = MemoryTools(store, clock=world.now)
        self.calls: list[ToolCall] = []
        self._world_handlers: dict[str, Callable[..., Any]] = {
            spec.name: getattr(world, spec.name) for spec in WORLD_TOOLS
        }

    @property
    def clock(self) -> str:
        return self.world.now

    @property
    def render(self) -> bool:
        """E2 (render) switched on for this session (by the agent's mechanisms)."""
        return self.memory.render

    @render.setter
    def render(self, value: bool) -> None:
        self.memory.render = value

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        return self.world.snapshot()

    def call(self, name: str, raw_arguments: str | dict[str, Any] | None) -> ToolCall:
        """Run one tool call; every outcome, including garbage input, becomes a logged ToolCall."""
        spec = tool_specs(self.render).get(name) if isinstance(name, str) else None
        record = record_call(
            len(self.calls),
            name,
            raw_arguments,
            lambda arguments: self._run(validated(spec, name, arguments), arguments),
            irreversible=bool(spec and spec.irreversible),
        )
        self.calls.append(record)
        return record

    def _run(self, spec: ToolSpec, arguments: dict[str, Any]) -> Any:
        if spec.name in self._world_handlers:
            return self._world_handlers[spec.name](**arguments)
        return self.memory.handlers[spec.name](**arguments)
