"""What the reference policies do on an intervention domain (docs/design.md §8).

Routed here by the provider when the offered tools include ``service_versions`` (only
intervention tool sets have it). Like the PAST policies, a policy sees only the conversation and
the tool list (names, descriptions with their ``[service vX]`` tags, parameter schemas).

A stored procedure is a line ``call <tool> {json arguments}`` in a memory or a skill step;
``"<name>"`` in it is filled from the user's ``name=value``.

- ``blind``: never reads the store; builds every call from the tool's current schema (the
  user's values, ``name=value`` hints in the descriptions, the first allowed value of a
  required enum).
- ``recall`` (static): a stored procedure wins over the schema and is followed literally; on a
  tool error it reports the error and never repairs the call or the store.
- ``curator`` (version-aware): checks the version tags of what it recalls against the service
  version; a stale procedure is rebuilt from the current schema and rewritten in the store with
  the new tag. An untagged procedure is trusted until it fails; then the call is rebuilt, retried
  once and the stored procedure repaired. It acknowledges what it could not do and proposes the
  alternative the service documents.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_pastbench.core.text import content_words
from pytest_pastbench.core.tools import STORE_TOOLS

from ..shared.curation import store_statements
from ..shared.replay import (
    Emit,
    OfferedTools,
    Policy,
    Replay,
    current_turn,
    is_held,
    note_entries,
    runtime_reply,
)
from .service import SERVICE_INFO_TOOL

INTERVENTION_MARKER_TOOL = SERVICE_INFO_TOOL
ASSIGNMENT = re.compile(r"\b([a-z][a-z0-9_]*)=(\"[^\"]*\"|\[[^\]]*\]|[^\s,;]+)")
CALL_LINE = re.compile(r"\bcall ([a-z][a-z0-9_]*) (?=\{)")
PLACEHOLDER = re.compile(r"^<([a-z][a-z0-9_]*)>$")
SERVICE_TAG = re.compile(r"\[([a-z][a-z0-9-]*) (v\d+(?:\.\d+)*)\]")
HINT = re.compile(r"\b([a-z][a-z0-9_]*)=([A-Za-z0-9_/-]+(?:\.[A-Za-z0-9_/-]+)*)")
USE_INSTEAD = re.compile(r"\buse ([a-z][a-z0-9_]*)\b")
ONE_OF = re.compile(r"must be one of ([^.;]+)")
_STORE_NAMES = {spec.name for spec in STORE_TOOLS}


def decide(policy: Policy, messages: list[dict[str, Any]], tools: list[Any]) -> dict[str, Any]:
    """The next assistant message: ``{"content": str}`` or ``{"tool_calls": [(name, args), ...]}``."""
    turn = current_turn(messages)
    user_text, done = turn.user_text, turn.done
    reply = runtime_reply(turn)
    if reply is not None:
        return {"content": reply}
    specs = _specs(tools)
    replay = Replay(done, set(specs))
    try:
        answer = _plan(policy, user_text, replay, specs)
    except Emit as emit:
        return {"tool_calls": emit.calls}
    return {"content": answer}


def _specs(tools: list[Any]) -> dict[str, dict[str, Any]]:
    specs = {}
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            parameters = function.get("parameters") or {}
            specs[function["name"]] = {
                "description": str(function.get("description") or ""),
                "properties": parameters.get("properties") or {},
                "required": list(parameters.get("required") or []),
            }
    return specs


def _plan(policy: Policy, user_text: str, replay: Replay, specs: dict[str, dict[str, Any]]) -> str:
    domain = {n: s for n, s in specs.items() if n not in _STORE_NAMES and n != SERVICE_INFO_TOOL}
    versions = {
        m.group(1): m.group(2) for s in domain.values() for m in SERVICE_TAG.finditer(s["description"])
    }
    user_args = _assignments(user_text)
    words = set(content_words(user_text.replace("_", " ")))
    memories: list[dict[str, Any]] = []
    skills: list[dict[str, Any]] = []
    if policy.uses_store:
        query = " ".join(content_words(user_text))
        memories = note_entries(replay.call("memory_search", {"query": query}))
        skills = note_entries(replay.call("skill_search", {"query": query}))
    if policy.curates and replay.has(SERVICE_INFO_TOOL):
        replay.call(SERVICE_INFO_TOOL, {})

    steps: list[tuple[str, dict[str, Any] | None, dict[str, Any] | None]] = []
    skill = next((s for s in skills if _applies(s, words)), None)
    if skill is not None:
        steps = [(tool, args, skill) for tool, args in _templates(skill["text"])]
    else:
        tool = _choose_tool(domain, words)
        if tool is not None:
            if policy.uses_store:
                # Look the procedure up by the tool's name: notes of the task itself would
                # otherwise crowd a stored "call <tool>" line out of the search results.
                lookup = note_entries(
                    replay.call("memory_search", {"query": f"call {tool.replace('_', ' ')}"})
                )
                memories += [m for m in lookup if m not in memories]
            source = next((m for m in memories if any(t == tool for t, _ in _templates(m["text"]))), None)
            template = next((a for t, a in _templates(source["text"]) if t == tool), None) if source else None
            steps = [(tool, template, source)]

    done: list[str] = []
    trouble: tuple[str, str] | None = None
    repairs: list[tuple[dict[str, Any], str, dict[str, Any]]] = []
    for tool, template, source in steps:
        if tool not in domain:
            trouble = (tool, f"the tool {tool} is not offered any more")
            break
        stale = policy.curates and source is not None and _stale(source, versions)
        literal = template is not None and not stale
        args = _arguments(domain[tool], template, user_args, literal)
        if args is None:
            trouble = (tool, "a required value is missing; tell me which one to use")
            break
        result = replay.call(tool, args)
        if is_held(result):
            result = replay.call(tool, args)  # E1 showed what is stored; the plan stands
        if policy.curates and (_failed(result) or _warnings(result)):
            # Trusted until it fails (or is only half applied): rebuild from the schema, once.
            rebuilt = _arguments(domain[tool], template, user_args, literal=False)
            if rebuilt is not None and rebuilt != args:
                args, result, stale = rebuilt, replay.call(tool, rebuilt), True
        if _failed(result):
            trouble = (tool, str(result.get("error") if isinstance(result, dict) else result))
            break
        if policy.curates and source is not None and stale:
            repairs.append((source, tool, _as_template(args, user_args)))
        ignored = sorted(k for k in user_args if k not in domain[tool]["properties"])
        if policy.curates and (_warnings(result) or ignored):
            problems = [
                *map(str, _warnings(result)),
                *(f"{k} is not a setting of this version" for k in ignored),
            ]
            trouble = (tool, "it ran, but not as asked: " + "; ".join(problems))
            break
        done.append(f"{tool} returned: {json.dumps(result, ensure_ascii=False)}")

    if policy.curates:
        _repair(replay, repairs, versions)
    if policy.uses_store:
        store_tools = OfferedTools(
            frozenset(specs), {name: frozenset(spec["properties"]) for name, spec in specs.items()}
        )
        store_statements(policy, user_text, memories, replay, store_tools)
    notes = [m["text"] for m in memories if not (policy.curates and _stale(m, versions))]
    return _compose(policy, notes, done, trouble, domain)


def _assignments(text: str) -> dict[str, Any]:
    return {m.group(1): _literal(m.group(2)) for m in ASSIGNMENT.finditer(text)}


def _literal(raw: str) -> Any:
    raw = raw.rstrip(".")
    if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2:
        return raw[1:-1]
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _templates(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Every ``call <tool> {json}`` in a memory or skill text, in order."""
    found = []
    decoder = json.JSONDecoder()
    for match in CALL_LINE.finditer(text):
        try:
            args, _ = decoder.raw_decode(text, match.end())
        except ValueError:
            continue
        if isinstance(args, dict):
            found.append((match.group(1), args))
    return found


def _applies(skill: dict[str, Any], words: set[str]) -> bool:
    name_words = content_words(str(skill.get("name", "")).replace("_", " "))
    return bool(name_words) and all(w in words for w in name_words)


def _choose_tool(domain: dict[str, dict[str, Any]], words: set[str]) -> str | None:
    """The tool all of whose name words the user used (the most specific one wins)."""
    matches = [
        (-len(name.split("_")), name) for name in sorted(domain) if all(w in words for w in name.split("_"))
    ]
    return min(matches)[1] if matches else None


def _version_of(entry: dict[str, Any], service: str) -> str | None:
    pattern = re.compile(rf"\b{re.escape(service)} (v\d+(?:\.\d+)*)\b")
    found = pattern.search(str(entry.get("text", "")))  # the text wins: memory_update cannot retag
    if found is None:
        found = next((pattern.search(t) for t in entry.get("tags") or [] if pattern.search(str(t))), None)
    return found.group(1) if found else None


def _stale(entry: dict[str, Any], versions: dict[str, str]) -> bool:
    return any((v := _version_of(entry, s)) is not None and v != current for s, current in versions.items())


def _arguments(
    spec: dict[str, Any], template: dict[str, Any] | None, user: dict[str, Any], literal: bool
) -> dict[str, Any] | None:
    """The call's arguments: the stored template as it is (literal), or rebuilt from the schema."""
    if literal and template is not None:
        args = {}
        for key, value in template.items():
            placeholder = PLACEHOLDER.match(value) if isinstance(value, str) else None
            if placeholder is None:
                args[key] = user.get(key, value)
            elif placeholder.group(1) in user:
                args[key] = user[placeholder.group(1)]
        return args
    properties = spec["properties"]
    args = {}
    for key, value in (template or {}).items():
        if key in properties and not (isinstance(value, str) and PLACEHOLDER.match(value)):
            args[key] = value
    args.update({k: v for k, v in user.items() if k in properties})
    documentation = (
        spec["description"] + " " + " ".join(str(p.get("description", "")) for p in properties.values())
    )
    for key, value in HINT.findall(documentation):
        if key in properties and key not in args:
            args[key] = _literal(value)
    for key in spec["required"]:
        if key not in args:
            enum = properties.get(key, {}).get("enum")
            if not enum:
                return None
            args[key] = enum[0]
    return {k: _typed(v, properties[k].get("type")) for k, v in args.items()}


def _typed(value: Any, kind: str | None) -> Any:
    try:
        if kind == "integer" and not isinstance(value, bool):
            return int(value)
        if kind == "number" and not isinstance(value, bool):
            return float(value) if not isinstance(value, int) else value
    except (TypeError, ValueError):
        return value
    if kind == "string" and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def _failed(result: Any) -> bool:
    return isinstance(result, dict) and "error" in result


def _warnings(result: Any) -> list[Any]:
    warnings = result.get("warnings") if isinstance(result, dict) else None
    return warnings if isinstance(warnings, list) else []


def _as_template(args: dict[str, Any], user: dict[str, Any]) -> dict[str, Any]:
    """A repaired call as a reusable template: the user's values become placeholders again."""
    return {k: (f"<{k}>" if k in user and user[k] == v else v) for k, v in args.items()}


def _repair(
    replay: Replay, repairs: list[tuple[dict[str, Any], str, dict[str, Any]]], versions: dict[str, str]
) -> None:
    """Rewrite each repaired stored procedure with the new call and the current version tag."""
    for source, tool, template in repairs:
        text = _retag(_replace_call(str(source["text"]), tool, template), versions)
        if "name" in source and "id" not in source:
            lines = [re.sub(r"^\d+\.\s*", "", line) for line in text.splitlines()[1:] if line.strip()]
            tags = [_retag(str(t), versions) for t in source.get("tags") or []]
            replay.call("skill_write", {"name": source["name"], "steps": lines, "tags": tags})
        elif "id" in source:
            replay.call("memory_update", {"id": source["id"], "text": text})


def _replace_call(text: str, tool: str, template: dict[str, Any]) -> str:
    decoder = json.JSONDecoder()
    for match in CALL_LINE.finditer(text):
        if match.group(1) != tool:
            continue
        try:
            _, end = decoder.raw_decode(text, match.end())
        except ValueError:
            continue
        return text[: match.end()] + json.dumps(template) + text[end:]
    return text


def _retag(text: str, versions: dict[str, str]) -> str:
    for service, version in versions.items():
        text = re.sub(rf"\b{re.escape(service)} v\d+(?:\.\d+)*\b", f"{service} {version}", text)
    return text


def _compose(
    policy: Policy,
    notes: list[str],
    done: list[str],
    trouble: tuple[str, str] | None,
    domain: dict[str, dict[str, Any]],
) -> str:
    parts = []
    if notes:
        parts.append("From my notes:\n" + "\n".join(f"- {n}" for n in notes))
    parts.extend(done)
    if trouble is not None:
        tool, error = trouble
        parts.append(f"I could not complete this with {tool}: {error}")
        if policy.curates:
            parts.append(_next_step(tool, error, domain))
    if not parts:
        parts.append("I don't have what I need for this; tell me the details and I'll take it from there.")
    return "\n\n".join(parts)


def _next_step(tool: str, error: str, domain: dict[str, dict[str, Any]]) -> str:
    """The alternative the service documents: a tool its description points to, or the allowed
    values the error lists."""
    described = USE_INSTEAD.search(domain.get(tool, {}).get("description", ""))
    if described and described.group(1) in domain:
        return f"Next step: I can use {described.group(1)} instead; say if you want that."
    choices = ONE_OF.search(error)
    if choices:
        return f"Next step: use one of {choices.group(1).strip()} instead; say which."
    return "Next step: tell me how to proceed, or ask the service owner about the change."
