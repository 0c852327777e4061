"""The event–dependency graph: which nodes an event's changes reach through depends_on."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pytest_pastbench.protocols.intervention.collect import load_intervention_family
from pytest_pastbench.protocols.intervention.graph import DependencyGraph, changed_nodes
from tests.protocols.intervention.samples import TINY
from tests.protocols.intervention.test_schema import write


def test_dependents_are_the_transitive_reverse_closure() -> None:
    graph = DependencyGraph(
        {
            "tool:a": (),
            "tool:b": (),
            "skill:s": ("tool:a",),
            "query:q": ("skill:s",),
            "query:free": ("tool:b",),
            "memory:m": (),
        }
    )
    assert graph.dependents(["tool:a"]) == {"skill:s", "query:q"}
    assert graph.dependents(["tool:b"]) == {"query:free"}
    assert graph.dependents([]) == set()


def test_the_tiny_graph_and_its_changed_nodes(tmp_path: Path) -> None:
    family = load_intervention_family(write(tmp_path, yaml.safe_load(TINY)))
    graph = DependencyGraph.of(family)
    event = family.event("method")
    assert changed_nodes(event) == ["tool:correlation"]
    assert graph.dependents(changed_nodes(event)) == {
        "query:corr_a",
        "query:corr_b",
        "memory:howto",
        "fallback:kendall",
    }


def test_a_dependency_cycle_still_ends_and_reaches_every_node_on_it() -> None:
    graph = DependencyGraph({"tool:a": (), "skill:s": ("tool:a", "query:q"), "query:q": ("skill:s",)})
    assert graph.dependents(["tool:a"]) == {"skill:s", "query:q"}


def test_the_json_form_lists_every_node_sorted_with_its_needs() -> None:
    graph = DependencyGraph({"query:q": ("tool:b", "tool:a"), "tool:b": (), "tool:a": ()})
    assert list(graph.as_json().items()) == [
        ("query:q", ["tool:b", "tool:a"]),
        ("tool:a", []),
        ("tool:b", []),
    ]


def test_a_family_whose_node_depends_on_an_unknown_node_is_refused(tmp_path: Path) -> None:
    data = yaml.safe_load(TINY)
    family = load_intervention_family(write(tmp_path, data))
    family.queries[0].depends_on.append("skill:ghost")
    with pytest.raises(ValueError, match=r"depends_on names unknown node\(s\) \['skill:ghost'\]"):
        DependencyGraph.of(family)
