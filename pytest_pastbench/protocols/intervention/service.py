"""The versioned domain service of an intervention family (its tool box is ``toolbox.py``).

The service validates calls against the tool versions in force (schema: enforced, a tool error
to the agent) and returns the declared result; policy rules are not enforced (a call that breaks
one succeeds: that is what σ measures). ``apply`` performs an event. Every tool description ends
with its version tag (``[stats-api v3]``) and ``service_versions`` reports the version and the
changelog, so an agent that checks version tags can notice a change before a call fails.
"""

from __future__ import annotations

from typing import Any

from ...errors import ToolError
from .schema import Event, Param, Service, ToolVersion

SERVICE_INFO_TOOL = "service_versions"
SESSION_CLOCK = "2026-03-02T10:00:00"  # every session's simulated time
_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "array": (list,),
    "boolean": (bool,),
}


class DomainService:
    """One service of one item: starts at the family's version; ``apply`` moves it on."""

    def __init__(self, service: Service) -> None:
        self.name = service.name
        self.version = service.version
        self.tools: dict[str, ToolVersion] = dict(service.tools)
        self.changelog: list[str] = []

    def apply(self, event: Event) -> None:
        self.version = event.version
        self.tools.update(event.changes)
        self.changelog.append(f"{self.name} {event.version}: {event.description}")

    @property
    def tag(self) -> str:
        return f"{self.name} {self.version}"

    @property
    def irreversible(self) -> frozenset[str]:
        """The tools whose version in force is declared ``irreversible`` (and not removed)."""
        return frozenset(n for n, t in self.tools.items() if t.irreversible and not t.removed)

    def specs(self) -> list[dict[str, Any]]:
        specs = [_openai_spec(name, tool, self.tag) for name, tool in sorted(self.tools.items())]
        info = ToolVersion(description="The domain service's current version and its changelog.")
        return [*specs, _openai_spec(SERVICE_INFO_TOOL, info, self.tag)]

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        if name == SERVICE_INFO_TOOL:
            return {"service": self.name, "version": self.version, "changelog": list(self.changelog)}
        tool = self.tools.get(name)
        if tool is None:
            raise ToolError(f"unknown tool {name!r}")
        if tool.removed:
            raise ToolError(f"{self.tag}: {name} is gone (410): {tool.removed}")
        warnings = []
        for argument in sorted(arguments):
            if argument in tool.legacy_params:
                warnings.append(f"{argument} ignored: {tool.legacy_params[argument]}")
            elif argument not in tool.params:
                raise ToolError(f"{self.tag}: {name} has no argument {argument!r}")
        for param_name, param in tool.params.items():
            value = arguments.get(param_name)
            if value is None:
                if param.required:
                    raise ToolError(f"{self.tag}: {name} needs argument {param_name!r}{_choices(param)}")
                continue
            _check_value(self.tag, name, param_name, param, value)
        result: dict[str, Any] = {"service": self.name, "version": self.version}
        result.update(_fill(tool.returns, arguments))
        if warnings:
            result["warnings"] = warnings
        return result


def _choices(param: Param) -> str:
    return f" (one of {', '.join(str(v) for v in param.enum)})" if param.enum else ""


def _check_value(tag: str, tool: str, name: str, param: Param, value: Any) -> None:
    wanted = _PYTHON_TYPES[param.type]
    if not isinstance(value, wanted) or (isinstance(value, bool) and param.type != "boolean"):
        raise ToolError(f"{tag}: {tool}: {name!r} must be of type {param.type}")
    if param.enum is not None and value not in param.enum:
        raise ToolError(f"{tag}: {tool}: {name!r} must be one of {', '.join(str(v) for v in param.enum)}")


def _fill(value: Any, arguments: dict[str, Any]) -> Any:
    """The declared result with ``{arg}`` placeholders replaced by the call's arguments."""
    if isinstance(value, str):
        try:
            return value.format_map(_Defaulting(arguments))
        except (ValueError, IndexError, AttributeError):
            return value
    if isinstance(value, dict):
        return {k: _fill(v, arguments) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, arguments) for v in value]
    return value


class _Defaulting(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _openai_spec(name: str, tool: ToolVersion, tag: str) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for param_name, param in tool.params.items():
        prop: dict[str, Any] = {"type": param.type, "description": param.description}
        if param.type == "array":
            prop["items"] = {}
        if param.enum is not None:
            prop["enum"] = list(param.enum)
        properties[param_name] = prop
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{tool.description} [{tag}]",
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": [n for n, p in tool.params.items() if p.required],
            },
        },
    }
