"""Agent selection: ``--pastbench-agent`` (an agent file, a registered name, ``module:factory`` or an
external program) to an ``Agent``.

Kept apart from ``base.py`` (the protocol and the base agent) because selection knows every
implementation, the external adapters included, and those adapters build on ``base.py``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import yaml

from ..resources import agents_dir
from .base import Agent, AgentFactory
from .external.agent_files import IMPLEMENTATIONS, SPEC_PREFIXES, agent_from_spec, external_agent


def agent_file_path(name: str) -> Path | None:
    """The agent file for ``name``: a ``.yaml`` path, or ``agents/<name>.yaml``."""
    if name.endswith((".yaml", ".yml")):
        path = Path(name)
        return path if path.is_file() else None
    path = agents_dir() / f"{name}.yaml"
    return path if path.is_file() else None


def load_agent_file(name: str) -> dict[str, Any] | None:
    path = agent_file_path(name)
    if path is None:
        return None
    return yaml.safe_load(path.read_text()) or {}


def available_agents(registered: dict[str, AgentFactory]) -> list[str]:
    agent_files = {p.stem for p in agents_dir().glob("*.yaml") if p.stem != "models"}
    return sorted(agent_files | set(registered))


def make_agent(spec: str, registered: dict[str, AgentFactory], docker_host: str | None = None) -> Agent:
    """Build the agent named by ``--pastbench-agent``: an agent file (by name or path), a registered name,
    ``module:factory``, or an external program (``subprocess:CMD``, ``docker:IMAGE [CMD]``).
    Raises ``ValueError`` with the choices when it cannot."""
    if spec.startswith(SPEC_PREFIXES):
        return agent_from_spec(spec, docker_host)
    if ":" in spec and not spec.endswith((".yaml", ".yml")):
        module_name, _, attr = spec.partition(":")
        try:
            factory = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot load agent factory {spec!r}: {exc}") from exc
        return factory()
    path = agent_file_path(spec)
    if path is not None:
        agent_file = load_agent_file(spec) or {}
        name = path.stem
        implementation = agent_file.get("implementation", "hermes")
        if implementation in IMPLEMENTATIONS:
            return external_agent(name, agent_file, path.resolve().parent, docker_host)
        factory = registered.get(implementation)
        if factory is None:
            raise ValueError(f"agent file {spec!r} names unknown implementation {implementation!r}")
        return factory(name=name, mechanisms=agent_file.get("mechanisms") or [])
    if spec in registered:
        return registered[spec](name=spec)
    if spec.endswith((".yaml", ".yml")):
        raise ValueError(f"agent file {spec!r}: no such file")
    raise ValueError(
        f"unknown agent {spec!r}; choose one of {', '.join(available_agents(registered))}, "
        "or give module:factory, an agent file (.yaml), subprocess:COMMAND or docker:IMAGE"
    )
