"""The event–dependency graph of a domain: which memories, skills, queries and fallbacks depend
on what an event changes. κ uses it to pick dependency-free checks; the trace uses it to say
which dependent nodes broke (propagation)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .schema import Event, InterventionFamily


@dataclass(frozen=True)
class DependencyGraph:
    # node -> the nodes it depends on
    edges: dict[str, tuple[str, ...]]

    @classmethod
    def of(cls, family: InterventionFamily) -> DependencyGraph:
        tools = {*family.service.tools, *(name for event in family.events for name in event.changes)}
        edges: dict[str, tuple[str, ...]] = {f"tool:{name}": () for name in sorted(tools)}
        for query in family.queries:
            edges[f"query:{query.id}"] = tuple(query.depends_on)
        for profile in family.profiles.values():
            for memory in profile.memories:
                edges[f"memory:{memory.id}"] = tuple(memory.depends_on)
            for skill in profile.skills:
                edges[f"skill:{skill.id}"] = tuple(skill.depends_on)
        for event in family.events:
            for fallback in event.fallbacks:
                edges[f"fallback:{fallback.id}"] = tuple(fallback.depends_on)
        for node, needs in sorted(edges.items()):
            missing = [n for n in needs if n not in edges]
            if missing:
                raise ValueError(f"{node}: depends_on names unknown node(s) {missing}")
        return cls(edges)

    def dependents(self, changed: Iterable[str]) -> set[str]:
        """Every node that reaches a changed node through depends_on (the changed ones excluded)."""
        roots = set(changed)
        reached: set[str] = set()
        grew = True
        while grew:
            grew = False
            for node, needs in self.edges.items():
                if (
                    node not in reached
                    and node not in roots
                    and any(n in roots or n in reached for n in needs)
                ):
                    reached.add(node)
                    grew = True
        return reached

    def as_json(self) -> dict[str, list[str]]:
        return {node: list(needs) for node, needs in sorted(self.edges.items())}


def changed_nodes(event: Event) -> list[str]:
    return sorted(f"tool:{name}" for name in event.changes)
