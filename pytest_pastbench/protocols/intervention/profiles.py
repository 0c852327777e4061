"""User-state profiles as a public object: what the ``pastbench_profile`` fixture hands out.

A profile is named ``[family:]profile``: ``power`` (the built-in ``analytics`` family),
``reimbursement:middle``, or ``path/to/family.yaml:light``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_pastbench.agents.base import Agent, Budgets
from pytest_pastbench.core.records import SessionRecord
from pytest_pastbench.core.store import Store
from pytest_pastbench.models.client import ModelClient

from ...resources import families_dir
from .collect import load_intervention_family
from .engine import run_domain_session, seed_store
from .schema import InterventionFamily
from .service import DomainService

DEFAULT_FAMILY = "analytics"


@dataclass(frozen=True)
class UserProfile:
    family: InterventionFamily
    name: str

    @property
    def memories(self) -> list[Any]:
        return list(self.family.profiles[self.name].memories)

    @property
    def skills(self) -> list[Any]:
        return list(self.family.profiles[self.name].skills)

    @property
    def regression(self) -> list[str]:
        return list(self.family.profiles[self.name].regression)

    def seed(self, store: Store) -> dict[str, str]:
        """Write the profile's memories and skills into ``store``; store id -> graph node."""
        return seed_store(store, self.family.profiles[self.name])

    def service(self, after: str | None = None) -> DomainService:
        """The domain service at its starting version, or after the event named ``after``."""
        service = DomainService(self.family.service)
        if after is not None:
            service.apply(self.family.event(after))
        return service

    def run_session(
        self,
        agent: Agent,
        model: ModelClient,
        store: Store,
        user_turns: list[str],
        *,
        after: str | None = None,
        budgets: Budgets | None = None,
    ) -> SessionRecord:
        """One session against the domain, before the event or after the event ``after``."""
        return run_domain_session(agent, model, store, self.service(after), user_turns, budgets=budgets)


def family_path(name: str) -> Path:
    """A built-in intervention family by stem, or a path to a family file."""
    path = Path(name)
    if path.suffix in (".yaml", ".yml"):
        return path
    return families_dir() / "interventions" / f"{name}.yaml"


def load_profile(spec: str) -> UserProfile:
    """``power`` / ``reimbursement:middle`` / ``path.yaml:light`` -> a ``UserProfile``."""
    family_name, _, profile = spec.rpartition(":")
    path = family_path(family_name or DEFAULT_FAMILY)
    if not path.is_file():
        raise ValueError(f"pastbench_profile {spec!r}: no intervention family at {path}")
    family = load_intervention_family(path)
    if profile not in family.profiles:
        raise ValueError(f"pastbench_profile {spec!r}: choose one of {', '.join(family.profiles)}")
    return UserProfile(family, profile)


def profile_names(family: str = DEFAULT_FAMILY) -> list[str]:
    return list(load_intervention_family(family_path(family)).profiles)
