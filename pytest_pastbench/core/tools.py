"""Tools the agent sees, whatever the protocol: the tool-box interface every protocol's tools
implement, the store tools, their JSON schemas, validation and call logging.

``SessionToolBox`` is what the session runner (``session_runner.py``), the agents and Hermes'
mechanisms rely on; PAST's ``ToolBox`` (store + world, ``protocols/past/toolbox.py``), the
intervention domain's, the stream harness's and the plasticity inventory's tool boxes implement
it. ``MemoryTools`` are the memory_* and skill_* tools over one store, shared by every tool box
that offers them.

A malformed call (unknown tool, missing or mistyped argument, a service refusal) is returned to
the agent as a tool error and logged with ``ok=False``; it never raises out of the agent loop.
That is what r_e (recovery after a tool error) is measured on. Whatever the model sends (any
JSON value, invalid JSON, a name that is not a string) ends as a logged ``ToolCall``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..errors import InfraError, StoreError, ToolError, WorldError
from .records import StoreEntry, ToolCall
from .store import Store

_JSON_TYPES = {"string": str, "integer": int, "array": list}
MAX_ARGUMENT_CHARS = 200_000  # raw JSON of one call; far above any legitimate store or world call
MAX_NAME_CHARS = 100
_SURROGATE = re.compile(r"[\ud800-\udfff]")


@dataclass(frozen=True)
class Param:
    type: str
    description: str
    required: bool = True


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    params: dict[str, Param] = field(default_factory=dict)
    irreversible: bool = False

    def to_openai(self) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        for name, param in self.params.items():
            prop: dict[str, Any] = {"type": param.type, "description": param.description}
            if param.type == "array":
                prop["items"] = {"type": "string"}
            properties[name] = prop
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {
                    "type": "object",
                    "properties": properties,
                    "required": [n for n, p in self.params.items() if p.required],
                },
            },
        }


def param_spec(type_: str, description: str, required: bool = True) -> Param:
    return Param(type_, description, required)


STORE_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "memory_search",
        "Search your persistent memory (kept across sessions) for notes matching a query.",
        {"query": param_spec("string", "words to look for")},
    ),
    ToolSpec(
        "memory_read", "Read one memory note by id.", {"id": param_spec("string", "note id, e.g. m0003")}
    ),
    ToolSpec(
        "memory_write",
        "Save a note to persistent memory so a future session can use it.",
        {
            "text": param_spec("string", "the note"),
            "tags": param_spec("array", "optional tags", required=False),
        },
    ),
    ToolSpec(
        "memory_update",
        "Replace the text of an existing memory note (e.g. when a fact changed).",
        {"id": param_spec("string", "note id"), "text": param_spec("string", "the new text")},
    ),
    ToolSpec(
        "memory_delete",
        "Delete a memory note that is wrong or obsolete.",
        {"id": param_spec("string", "note id")},
    ),
    ToolSpec(
        "skill_search",
        "Search your saved skills (reusable multi-step procedures).",
        {"query": param_spec("string", "words to look for")},
    ),
    ToolSpec("skill_read", "Read a saved skill by name.", {"name": param_spec("string", "skill name")}),
    ToolSpec(
        "skill_write",
        "Save (or replace) a reusable multi-step procedure as a named skill.",
        {
            "name": param_spec("string", "skill name"),
            "steps": param_spec("array", "the steps, in order"),
            "tags": param_spec("array", "when the skill applies", required=False),
        },
    ),
)

STORE_READS = frozenset({"memory_search", "memory_read", "skill_search", "skill_read"})


def irreversible_names(specs: Iterable[ToolSpec]) -> frozenset[str]:
    """The names of the specs declared irreversible (what a tool box reports as ``irreversible``)."""
    return frozenset(spec.name for spec in specs if spec.irreversible)


# E2 (render): structured entries. The same tools with the fields that say what an entry is about,
# where it applies, until when it holds and what replaced it; reads then hide dead entries.
_E2_FIELDS = {
    "entity": param_spec("string", "who or what the note is about, e.g. 'Pinecrest account'", required=False),
    "scope": param_spec("string", "where it applies, e.g. 'billing' or 'staging'", required=False),
    "expires": param_spec("string", "ISO date-time after which the note no longer holds", required=False),
}
RENDER_TOOLS: dict[str, ToolSpec] = {
    "memory_write": ToolSpec(
        "memory_write",
        "Save a note to persistent memory so a future session can use it. When the note corrects "
        "or replaces an older note, give that note's id as 'supersedes': the old one is retired.",
        {
            "text": param_spec("string", "the note"),
            "tags": param_spec("array", "optional tags", required=False),
            **_E2_FIELDS,
            "supersedes": param_spec("string", "id of the note this one replaces", required=False),
        },
    ),
    "memory_update": ToolSpec(
        "memory_update",
        "Change an existing memory note: its text or fields, or retire it by naming the note "
        "that replaced it ('superseded_by').",
        {
            "id": param_spec("string", "note id"),
            "text": param_spec("string", "the new text", required=False),
            **_E2_FIELDS,
            "superseded_by": param_spec("string", "id of the note that replaces this one", required=False),
        },
    ),
}


@runtime_checkable
class SessionToolBox(Protocol):
    """The tools of one agent session, whatever the protocol: what the session runner drives,
    what an agent (Hermes or an external program) calls, and what it records."""

    calls: list[ToolCall]  # every call of the session, in order, refused ones included
    # Names of the offered tools whose effect cannot be undone (E1 plan holds them once); the
    # tool box declares them, from its tool specs (``ToolSpec.irreversible``) or its family file.
    irreversible: frozenset[str]

    @property
    def store(self) -> Store | None:
        """The persistent store the tools act on (an external agent may read its folder); None
        when the session has none."""

    @property
    def memory(self) -> MemoryTools | None:
        """The memory and skill tools Hermes' mechanisms E1–E5 act on; None: they do not apply."""

    @property
    def clock(self) -> str | None:
        """The session's simulated time, None where the tools have no clock."""

    def specs(self) -> list[dict[str, Any]]:
        """The tools the agent is offered, as OpenAI function specs (JSON schemas)."""

    def call(self, name: Any, raw_arguments: Any) -> ToolCall:
        """Validate and run one call; every outcome, garbage input included, is a logged ToolCall."""

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        """The state of the services the tools act on, after the session (what checks read)."""


class MemoryTools:
    """The memory_* and skill_* tools over one store: handlers, their specs and E2 (render).

    ``clock`` is the session's time, used by E2 reads to hide expired entries. The protocol says
    what the session may do with its store (Hermes' mechanisms read it to know which of them can
    apply): ``writable`` False offers the read tools only (the session sees the store frozen);
    ``persists`` False: what the session writes is discarded when it ends, so no later session
    sees it. ``on_shown`` hears of entries the runtime put in front of the agent (E1, E3), so a
    protocol that counts which stored entries were used counts those too. ``reads``: the tool
    names that read what the session keeps (the memory and skill reads, and a protocol's own
    artifact reads): E4 accepts a draft that followed one."""

    def __init__(
        self,
        store: Store,
        clock: str | None = None,
        *,
        writable: bool = True,
        persists: bool = True,
        on_shown: Callable[[list[StoreEntry]], None] | None = None,
        reads: frozenset[str] = STORE_READS,
    ) -> None:
        self.store = store
        self.reads = reads
        self.clock = clock
        self.writable = writable
        self.persists = persists
        self.on_shown = on_shown
        # E2 (render): the agent switches it on for its session; off, the tools are the base ones.
        self.render = False
        self.handlers: dict[str, Callable[..., Any]] = {
            "memory_search": self._memory_search,
            "memory_read": lambda id: self.entry_view(store.read(id, live_at=self.read_clock())),
            "memory_write": self._memory_write,
            "memory_update": self._memory_update,
            "memory_delete": lambda id: (store.delete(id), {"deleted": id})[1],
            "skill_search": lambda query: [_skill_view(e) for e in store.search(query, kind="skill")],
            "skill_read": lambda name: _skill_view(store.read_skill(name)),
            "skill_write": lambda name, steps, tags=None: {"name": store.write_skill(name, steps, tags).name},
        }

    def spec(self, name: str) -> ToolSpec | None:
        """The spec of an offered store tool (the E2 one with render on), None for any other name
        (a write tool of a read-only store included)."""
        if not self.writable and name not in STORE_READS:
            return None
        return (RENDER_TOOLS.get(name) if self.render else None) or _STORE_SPECS.get(name)

    def specs(self) -> list[ToolSpec]:
        return [spec for name in _STORE_SPECS if (spec := self.spec(name)) is not None]

    def run(self, name: str, arguments: dict[str, Any]) -> Any:
        """Validate and run one store tool call (a ``ToolError`` for a bad name or argument)."""
        return self.handlers[validated(self.spec(name), name, arguments).name](**arguments)

    def read_clock(self) -> str | None:
        """The session clock when reads hide dead entries (E2), else None (base: only deletes).
        Without a clock E2 still hides superseded entries; expiry cannot be judged ("": no
        expiry date lies before it)."""
        if not self.render:
            return None
        return self.clock if self.clock is not None else ""

    def shown(self, entries: list[StoreEntry]) -> None:
        """The runtime put ``entries`` in front of the agent (E1 held a call with them, E3 offered them)."""
        if self.on_shown is not None and entries:
            self.on_shown(entries)

    def entry_view(self, entry: StoreEntry) -> dict[str, Any]:
        view = _memory_view(entry)
        if self.render:
            view.update({k: v for k in ("entity", "scope", "expires") if (v := getattr(entry, k))})
        return view

    def _memory_search(self, query: str) -> list[dict[str, Any]]:
        return [self.entry_view(e) for e in self.store.search(query, live_at=self.read_clock())]

    def _memory_write(self, text: str, tags: list[str] | None = None, **fields: Any) -> dict[str, Any]:
        old = fields.pop("supersedes", None)
        if old is not None:
            self.store.require(old, kind="memory")  # refuse a bad id before writing anything
        entry = self.store.write_memory(text, tags, **fields)
        if old is not None:
            self.store.update_memory(old, superseded_by=entry.id)
            return {"id": entry.id, "superseded": old}
        return {"id": entry.id}

    def _memory_update(self, id: str, text: str | None = None, **fields: Any) -> dict[str, Any]:
        if text is None and not fields:
            raise ToolError("memory_update needs a new text or a field to change")
        return {"id": self.store.update_memory(id, text, **fields).id}


_STORE_SPECS = {spec.name: spec for spec in STORE_TOOLS}


def validated(spec: ToolSpec | None, name: Any, arguments: dict[str, Any]) -> ToolSpec:
    """``spec`` once ``arguments`` fit it; a ``ToolError`` for an unknown tool or a bad argument."""
    if spec is None:
        raise ToolError(f"unknown tool {printable_name(name)!r}")
    _validate(spec, arguments)
    return spec


def record_call(
    index: int,
    name: Any,
    raw_arguments: Any,
    run: Callable[[dict[str, Any]], Any],
    *,
    irreversible: bool = False,
    refusals: tuple[type[Exception], ...] = (),
    refusal_text: Callable[[Exception], str] = str,
) -> ToolCall:
    """One call of any tool set (this module's, or a protocol's own) as a logged ``ToolCall``:
    arguments parsed, ``run(arguments)`` called, a refusal (``ToolError``, ``StoreError``,
    ``WorldError`` and ``refusals``) turned into a tool error the agent reads. Nothing a model
    sends raises out of here (docs/design.md §9)."""
    record = ToolCall(index=index, name=printable_name(name), irreversible=irreversible)
    try:
        record.arguments = _parse_arguments(raw_arguments)
        record.result = run(record.arguments)
    except (ToolError, StoreError, WorldError, *refusals) as exc:
        record.ok = False
        record.error = refusal_text(exc)
    except InfraError:
        raise  # the harness could not do its part (a sandbox backstop): infra_blocked, never a score
    except Exception as exc:  # noqa: BLE001
        # The message says it was the harness, so a bug stays visible in the trace instead of
        # passing as 'ok' or crashing the session.
        record.ok = False
        record.error = f"internal error in tool {record.name!r}: {type(exc).__name__}: {exc}"[:500]
    return record


def printable_name(name: Any) -> str:
    text = name if isinstance(name, str) else repr(name)
    text = _SURROGATE.sub("\ufffd", text)
    return text if len(text) <= MAX_NAME_CHARS else text[:MAX_NAME_CHARS] + "…"


def _parse_arguments(raw: Any) -> dict[str, Any]:
    if raw is None or raw == "":
        return {}
    if isinstance(raw, bytes | bytearray):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolError(f"arguments are not UTF-8 text: {exc}") from exc
    if isinstance(raw, str):
        if len(raw) > MAX_ARGUMENT_CHARS:
            raise ToolError(f"arguments are {len(raw)} characters; the limit is {MAX_ARGUMENT_CHARS}")
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
            raise ToolError(f"arguments are not valid JSON: {str(exc)[:200]}") from exc
    else:
        value = raw
    if not isinstance(value, dict):
        raise ToolError(f"arguments must be a JSON object, not {_json_type(value)}")
    if not all(isinstance(key, str) for key in value):
        raise ToolError("argument names must be strings")
    if _has_surrogate(value):
        # Lone surrogates cannot be written as UTF-8 (traces, store files): refuse them here.
        raise ToolError("arguments must be valid Unicode text (no lone surrogates)")
    return value


def _json_type(value: Any) -> str:
    for kind, name in ((bool, "a boolean"), (int, "a number"), (float, "a number"), (str, "a string")):
        if isinstance(value, kind):
            return name
    return "an array" if isinstance(value, list | tuple) else type(value).__name__


def _has_surrogate(value: Any, depth: int = 0) -> bool:
    if depth > 50:
        return False  # json.loads already bounds nesting; this only guards direct dict input
    if isinstance(value, str):
        return bool(_SURROGATE.search(value))
    if isinstance(value, dict):
        return any(_has_surrogate(k, depth + 1) or _has_surrogate(v, depth + 1) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_surrogate(v, depth + 1) for v in value)
    return False


def _validate(spec: ToolSpec, arguments: dict[str, Any]) -> None:
    unknown = sorted(set(arguments) - set(spec.params))
    if unknown:
        shown = ", ".join(repr(u[:40]) for u in unknown[:5])
        raise ToolError(f"{spec.name} has no argument(s) {shown}")
    for name, param in spec.params.items():
        if name not in arguments or arguments[name] is None:
            if param.required:
                raise ToolError(f"{spec.name} needs argument {name!r}")
            continue
        value = arguments[name]
        # JSON true/false are not integers, although Python's bool is an int.
        if not isinstance(value, _JSON_TYPES[param.type]) or isinstance(value, bool):
            raise ToolError(
                f"{spec.name}: {name!r} must be a{'n' if param.type[0] in 'aeiou' else ''} {param.type}"
            )


def _memory_view(entry: StoreEntry) -> dict[str, Any]:
    return {"id": entry.id, "text": entry.text, "tags": entry.tags}


def _skill_view(entry: StoreEntry) -> dict[str, Any]:
    return {"name": entry.name, "text": entry.text, "tags": entry.tags}


def result_text(call: ToolCall) -> str:
    """What the agent reads back: the JSON result, or the error (the text itself when verbatim)."""
    if call.verbatim:
        return str(call.result if call.ok else call.error)
    if not call.ok:
        return json.dumps({"error": call.error})
    return json.dumps(call.result, ensure_ascii=False)


def result_value(call: ToolCall) -> Any:
    """What a trace records of the result the agent read (JSON, or the verbatim text)."""
    text = result_text(call)
    return text if call.verbatim else json.loads(text)
