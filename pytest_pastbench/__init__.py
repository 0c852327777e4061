"""pytest-pastbench: agent self-improvement benchmarks as pytest suites.

The public API is re-exported here from small private modules and loaded lazily, so that
``import pytest_pastbench`` stays cheap (litellm is only imported when a model is called).
Modules are named in full, so the map reads the same wherever a module lives.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Agent": "pytest_pastbench.agent",
    "AgentResult": "pytest_pastbench.agent",
    "Budgets": "pytest_pastbench.agent",
    "HermesAgent": "pytest_pastbench.agent",
    "SessionContext": "pytest_pastbench.agent",
    "Family": "pytest_pastbench.schema",
    "Episode": "pytest_pastbench.schema",
    "Session": "pytest_pastbench.schema",
    "family_json_schema": "pytest_pastbench.schema",
    "Store": "pytest_pastbench.store",
    "World": "pytest_pastbench.world",
    "ToolBox": "pytest_pastbench.tools",
    "SessionToolBox": "pytest_pastbench.tools",
    "MemoryTools": "pytest_pastbench.tools",
    "ModelClient": "pytest_pastbench.models",
    "ModelReply": "pytest_pastbench.models",
    "LiteLLMClient": "pytest_pastbench.models",
    "InfraError": "pytest_pastbench.errors",
    "ItemRecord": "pytest_pastbench.item_record",
    "plugin_version": "pytest_pastbench.version",
    "run_agent_session": "pytest_pastbench.runner",
    "run_session": "pytest_pastbench.session_runner",
    "SessionRun": "pytest_pastbench.records",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
