"""The tools an agent gets in a plasticity session (a ``tools.SessionToolBox``).

Acting sessions (train and held-out) see the inventory read-only: search and read notes and
skills, list, read and run tools. Nothing an acting session does can change the inventory, so
held-out evaluation runs with it frozen. The reflection session also gets the ``propose_*``
tools; each proposal is checked at once and the answer says accepted or rejected, and why.

Every call records which artifacts it put in front of the agent or ran (``used``): the
evidence the failure taxonomy and the reuse rate are computed from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_pastbench.core.records import ToolCall
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.tools import (
    STORE_READS,
    STORE_TOOLS,
    MemoryTools,
    ToolSpec,
    param_spec,
    record_call,
    validated,
)

from ...errors import EditRejected, ToolError
from .artifacts import Inventory, run_tool

_ARTIFACT_READS = frozenset({"tool_list", "tool_read", "tool_run"})  # saved tools are kept artifacts too
ARTIFACT_TOOLS: tuple[ToolSpec, ...] = (
    *(spec for spec in STORE_TOOLS if spec.name in STORE_READS),
    ToolSpec("tool_list", "List your saved executable Python tools (name and description)."),
    ToolSpec(
        "tool_read", "Read the code of one of your saved tools.", {"name": param_spec("string", "tool name")}
    ),
    ToolSpec(
        "tool_run",
        "Run one of your saved tools on an input (its run(task) function, sandboxed); returns its output.",
        {
            "name": param_spec("string", "tool name"),
            "input": param_spec("string", "the text passed to run(task)"),
        },
    ),
)
REFLECTION_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "propose_note",
        "Propose a memory note for future sessions (kept if it passes the checks).",
        {
            "text": param_spec("string", "the note"),
            "tags": param_spec("array", "optional tags", required=False),
        },
    ),
    ToolSpec(
        "propose_skill",
        "Propose (or replace) a named skill: a reusable procedure in steps.",
        {
            "name": param_spec("string", "skill name"),
            "steps": param_spec("array", "the steps, in order"),
            "tags": param_spec("array", "when the skill applies", required=False),
        },
    ),
    ToolSpec(
        "propose_tool",
        "Propose (or replace) an executable Python tool. `code` must define run(task: str) -> str; "
        '`examples` is a JSON array of {"input": ..., "expected": ...} it is checked on in a '
        "sandbox (no network, no files outside its folder, 5 s) before it is kept.",
        {
            "name": param_spec("string", "tool name, lower_snake_case"),
            "description": param_spec("string", "what the tool is for"),
            "code": param_spec("string", "Python source defining run(task)"),
            "examples": param_spec("string", "JSON array of {input, expected} pairs"),
        },
    ),
)


class ArtifactToolBox:
    """The tools of one plasticity session, bound to the lineage's inventory."""

    clock = None
    # Proposals are checked before they persist and none acts on a world: nothing is irreversible.
    irreversible: frozenset[str] = frozenset()

    def __init__(self, inventory: Inventory, reflection: bool = False, max_edits: int = 8) -> None:
        self.inventory = inventory
        self.reflection = reflection
        self.max_edits = max_edits
        self.edits = 0
        self.calls: list[ToolCall] = []
        self.used: list[str] = []  # artifact ids, in the order they were first used
        store = inventory.store
        # What Hermes' mechanisms act on: the inventory's notes and skills, read-only in every
        # session (only reflection's checked proposals change it); entries they show count as used.
        self.memory = MemoryTools(
            store, writable=False, on_shown=self._entries, reads=STORE_READS | _ARTIFACT_READS
        )
        self._specs = {s.name: s for s in (*ARTIFACT_TOOLS, *(REFLECTION_TOOLS if reflection else ()))}
        self._handlers: dict[str, Callable[..., Any]] = {
            "memory_search": lambda query: self._entries(store.search(query)),
            "memory_read": lambda id: self._entries([store.read(id)])[0],
            "skill_search": lambda query: self._entries(store.search(query, kind="skill")),
            "skill_read": lambda name: self._entries([store.read_skill(name)])[0],
            "tool_list": lambda: [{"name": t.name, "description": t.description} for t in inventory.tools()],
            "tool_read": self._tool_read,
            "tool_run": self._tool_run,
            "propose_note": lambda text, tags=None: self._edit(inventory.propose_note, text, tags),
            "propose_skill": lambda name, steps, tags=None: self._edit(
                inventory.propose_skill, name, steps, tags
            ),
            "propose_tool": lambda name, description, code, examples: self._edit(
                inventory.propose_tool, name, description, code, examples
            ),
        }

    @property
    def store(self) -> Store:
        return self.inventory.store

    def specs(self) -> list[dict[str, Any]]:
        return [spec.to_openai() for spec in self._specs.values()]

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        return {}  # the inventory is read after the lineage's sessions, not per session

    def call(self, name: str, raw_arguments: str | dict[str, Any] | None) -> ToolCall:
        spec = self._specs.get(name) if isinstance(name, str) else None
        record = record_call(
            len(self.calls),
            name,
            raw_arguments,
            lambda arguments: self._handlers[validated(spec, name, arguments).name](**arguments),
            refusals=(EditRejected,),
            refusal_text=lambda exc: f"rejected: {exc}" if isinstance(exc, EditRejected) else str(exc),
        )
        self.calls.append(record)
        return record

    # -- handlers ----------------------------------------------------------------------------------
    def _use(self, artifact_id: str) -> None:
        if artifact_id not in self.used:
            self.used.append(artifact_id)

    def _entries(self, entries: list[Any]) -> list[dict[str, Any]]:
        views = []
        for entry in entries:
            if entry.kind == "memory":
                self._use(f"note:{entry.id}")
                views.append({"id": entry.id, "text": entry.text, "tags": entry.tags})
            else:
                self._use(f"skill:{entry.name}")
                views.append({"name": entry.name, "text": entry.text, "tags": entry.tags})
        return views

    def _tool(self, name: str) -> Any:
        tool = self.inventory.tool(name)
        if tool is None:
            raise ToolError(f"no saved tool named {name!r} (tool_list shows them)")
        return tool

    def _tool_read(self, name: str) -> dict[str, Any]:
        tool = self._tool(name)
        self._use(f"tool:{tool.name}")
        return {"name": tool.name, "description": tool.description, "code": tool.code}

    def _tool_run(self, name: str, input: str) -> dict[str, Any]:
        tool = self._tool(name)
        self._use(f"tool:{tool.name}")
        run = run_tool(tool, input, self.inventory.limits)
        if not run.ok:
            raise ToolError(f"tool {name} failed: {run.error}")
        return {"output": run.output}

    def _edit(self, propose: Callable[..., str], *args: Any) -> dict[str, Any]:
        if self.edits >= self.max_edits:
            raise ToolError(f"this reflection may propose at most {self.max_edits} edits")
        self.edits += 1  # a rejected proposal counts too: it was made and checked
        return {"accepted": propose(*args)}
