"""Agent selection: ``--pastbench-agent`` (a profile, a registered name, ``module:factory`` or an
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
from .external.profiles import IMPLEMENTATIONS, SPEC_PREFIXES, agent_from_spec, external_agent


def agent_profile_path(name: str) -> Path | None:
    """The profile file for ``name``: a ``.yaml`` path, or ``agents/<name>.yaml``."""
    if name.endswith((".yaml", ".yml")):
        path = Path(name)
        return path if path.is_file() else None
    path = agents_dir() / f"{name}.yaml"
    return path if path.is_file() else None


def load_agent_profile(name: str) -> dict[str, Any] | None:
    path = agent_profile_path(name)
    if path is None:
        return None
    return yaml.safe_load(path.read_text()) or {}


def available_agents(registered: dict[str, AgentFactory]) -> list[str]:
    profiles = {p.stem for p in agents_dir().glob("*.yaml") if p.stem != "models"}
    return sorted(profiles | set(registered))


def make_agent(spec: str, registered: dict[str, AgentFactory], docker_host: str | None = None) -> Agent:
    """Build the agent named by ``--pastbench-agent``: a profile name or file, a registered name,
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
    profile_path = agent_profile_path(spec)
    if profile_path is not None:
        profile = load_agent_profile(spec) or {}
        name = profile_path.stem
        implementation = profile.get("implementation", "hermes")
        if implementation in IMPLEMENTATIONS:
            return external_agent(name, profile, profile_path.resolve().parent, docker_host)
        factory = registered.get(implementation)
        if factory is None:
            raise ValueError(f"agent profile {spec!r} names unknown implementation {implementation!r}")
        return factory(name=name, mechanisms=profile.get("mechanisms") or [])
    if spec in registered:
        return registered[spec](name=spec)
    if spec.endswith((".yaml", ".yml")):
        raise ValueError(f"agent profile {spec!r}: no such file")
    raise ValueError(
        f"unknown agent {spec!r}; choose one of {', '.join(available_agents(registered))}, "
        "or give module:factory, a profile .yaml, subprocess:COMMAND or docker:IMAGE"
    )
