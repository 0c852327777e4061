"""pytest-pastbench: agent self-improvement benchmarks as pytest suites.

The public API is re-exported here from small private modules and loaded lazily, so that
``import pytest_pastbench`` stays cheap (litellm is only imported when a model is called).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Agent": "agent",
    "AgentResult": "agent",
    "Budgets": "agent",
    "HermesAgent": "agent",
    "SessionContext": "agent",
    "Family": "schema",
    "Episode": "schema",
    "Session": "schema",
    "family_json_schema": "schema",
    "Store": "store",
    "World": "world",
    "ToolBox": "tools",
    "SessionToolBox": "tools",
    "MemoryTools": "tools",
    "ModelClient": "models",
    "ModelReply": "models",
    "LiteLLMClient": "models",
    "InfraError": "models",
    "ItemRecord": "item_record",
    "plugin_version": "version",
    "run_agent_session": "runner",
    "run_session": "session_runner",
    "SessionRun": "records",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
