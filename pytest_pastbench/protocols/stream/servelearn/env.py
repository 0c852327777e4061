"""What the three environments share: tool-call argument checks against ``tools.json``, the
``read_docs`` tool, the episode's view of the world, and the state hash graded by replay.

A tool's problem (unknown or missing argument, wrong type, a rule of the tool) is returned as an
observation starting ``Error:`` that the agent reads; it never ends the episode.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from ....errors import ToolFailure
from .schema import Scenario, Task

FINISH = "finish"
Handler = Callable[..., str]
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "array": (list,),
    "object": (dict,),
    "boolean": (bool,),
}


def tool_schemas(scenario: Scenario) -> dict[str, dict[str, Any]]:
    """``name -> function spec`` of ``tools.json`` (``finish`` included, as published)."""
    specs = {}
    for tool in scenario.environment.tools:
        function = tool.get("function") or {}
        specs[function.get("name", "")] = function
    return specs


def argument_error(spec: dict[str, Any], args: dict[str, Any]) -> str | None:
    """The first problem of ``args`` against the function's JSON schema (top level), or None."""
    params = spec.get("parameters") or {}
    props: dict[str, Any] = params.get("properties") or {}
    unknown = sorted(k for k in args if k not in props)
    if unknown:
        allowed = ", ".join(props) or "none"
        return f"unknown argument(s) {', '.join(map(repr, unknown))} for {spec['name']}; allowed: {allowed}"
    missing = [k for k in params.get("required") or [] if k not in args]
    if missing:
        return f"{spec['name']} requires {', '.join(map(repr, missing))}"
    for key, value in args.items():
        kind = props[key].get("type")
        types = _JSON_TYPES.get(kind or "")
        if types and (not isinstance(value, types) or (kind != "boolean" and isinstance(value, bool))):
            return f"argument {key!r} of {spec['name']} must be a JSON {kind}"
        if "enum" in props[key] and value not in props[key]["enum"]:
            return f"argument {key!r} of {spec['name']} must be one of {props[key]['enum']}"
    return None


Section = tuple[str, str, str]  # (slug, title, text)


def document_sections(scenario: Scenario, doc: str) -> list[Section]:
    """``doc``'s ``## `` sections, named by the slugs the system prompt lists for it.

    The published prompts list each document's retrievable sections in order ("policy:
    cancellation, returns, exchanges, modifications, placing-orders") and those slugs are not
    always the headings slugified ("## Order modifications" is ``modifications``); without such a
    list, or when it does not match the section count, the slugified headings name them.
    """
    text = getattr(scenario.environment, doc)
    found: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("## "):
            found.append((line[3:].strip(), []))
        if found:
            found[-1][1].append(line)
    listed = _listed_slugs(scenario.environment.system_prompt, doc)
    names = listed if listed and len(listed) == len(found) else [slug(title) for title, _ in found]
    return [
        (name, title, "\n".join(lines).strip()) for name, (title, lines) in zip(names, found, strict=True)
    ]


def _listed_slugs(prompt: str, doc: str) -> list[str]:
    match = re.search(rf"^[ \t]*(?:- )?{doc}:[ \t]*(\S.*)$", prompt, re.M)
    return [part.strip() for part in match.group(1).split(",") if part.strip()] if match else []


def read_docs(docs: dict[str, list[Section]], doc: str, section: str | None = None) -> str:
    """The table of contents of ``doc`` (one ``- slug — title`` line per section), or one section."""
    sections = docs.get(doc)
    if not sections:
        available = ", ".join(sorted(name for name, parts in docs.items() if parts))
        raise ToolFailure(f"unknown document {doc!r} (available: {available})")
    if section is None:
        return "\n".join(
            [f"Sections of {doc} (read one with read_docs(doc, section)):"]
            + [f"- {name} — {title}" for name, title, _ in sections]
        )
    for name, _, text in sections:
        if name == section:
            return text
    raise ToolFailure(f"unknown section {section!r} (available: {', '.join(n for n, _, _ in sections)})")


def slug(heading: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", heading.strip().lower()).strip("-")


def episode_world(scenario: Scenario, task: Task) -> dict[str, Any]:
    """A fresh copy of the world as this task's episode sees it.

    The published worlds mark which records every episode may see (``_episode_view``): Retail
    shows the base orders plus the task's own order, Banking only the task's own case, so one
    episode cannot study the others. The marker itself is dropped.
    """
    published = scenario.environment.world
    view = published.get("_episode_view")
    # Filter before copying: a Retail world holds every episode's order, an episode keeps few.
    world = {key: value for key, value in published.items() if key != "_episode_view"}
    meta = task.evaluator.metadata
    if view is None:
        return copy.deepcopy(world)
    if view.get("kind") == "banking" or scenario.domain == "banking":
        for table in ("transactions", "limit_requests", "transfers"):
            world[table] = {k: v for k, v in (world.get(table) or {}).items() if k == meta.get("case_id")}
        return copy.deepcopy(world)
    allowed = set(view.get("base_orders") or ())
    if meta.get("order_id"):
        allowed.add(meta["order_id"])
    world["orders"] = {k: v for k, v in (world.get("orders") or {}).items() if k in allowed}
    world = copy.deepcopy(world)
    for user in (world.get("users") or {}).values():
        if isinstance(user.get("orders"), list):
            user["orders"] = [o for o in user["orders"] if o in allowed]
    hidden_variants = set(view.get("serving_only_variants") or ())
    if hidden_variants and task.split == "test":
        for product in (world.get("products") or {}).values():
            for item_id in list(product.get("variants") or {}):
                if item_id in hidden_variants:
                    del product["variants"][item_id]
    return world


def state_hash(state: dict[str, Any]) -> str:
    """Order-independent for mappings, order-sensitive for lists: what replay compares."""
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()
