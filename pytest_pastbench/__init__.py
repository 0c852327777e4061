"""pytest-pastbench: agent self-improvement benchmarks as pytest suites.

The public API is re-exported here from small private modules and loaded lazily, so that
``import pytest_pastbench`` stays cheap (litellm is only imported when a model is called).
Modules are named in full, so the map reads the same wherever a module lives.

This map is the one place outside ``protocols/past/`` that names PAST's modules, and on purpose:
the family types and ``run_agent_session`` are public API that users' own tests import from the
package (docs/extending.md). It imports nothing until a name is asked for, so no shared layer
depends on PAST through it.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Agent": "pytest_pastbench.agents.base",
    "AgentResult": "pytest_pastbench.agents.base",
    "Budgets": "pytest_pastbench.agents.base",
    "HermesAgent": "pytest_pastbench.agents.base",
    "SessionContext": "pytest_pastbench.agents.base",
    "Family": "pytest_pastbench.protocols.past.schema",
    "Episode": "pytest_pastbench.protocols.past.schema",
    "Session": "pytest_pastbench.protocols.past.schema",
    "family_json_schema": "pytest_pastbench.protocols.past.schema",
    "Store": "pytest_pastbench.core.store",
    "World": "pytest_pastbench.protocols.past.world",
    "ToolBox": "pytest_pastbench.protocols.past.toolbox",
    "SessionToolBox": "pytest_pastbench.core.tools",
    "MemoryTools": "pytest_pastbench.core.tools",
    "ModelClient": "pytest_pastbench.models.client",
    "ModelReply": "pytest_pastbench.models.client",
    "LiteLLMClient": "pytest_pastbench.models.client",
    "InfraError": "pytest_pastbench.errors",
    "ItemRecord": "pytest_pastbench.results.item_record",
    "plugin_version": "pytest_pastbench.version",
    "run_agent_session": "pytest_pastbench.protocols.past.engine",
    "run_session": "pytest_pastbench.agents.session_runner",
    "SessionRecord": "pytest_pastbench.core.records",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
