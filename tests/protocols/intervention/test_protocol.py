"""The intervention protocol object: it names and describes a family, collects through
``collect.py``, answers only conversations that announce an intervention domain, and gives gates
the five metrics per config, family and cell, overall and per family as means over the cells."""

from __future__ import annotations

import hashlib

import pytest

from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.base import BenchProtocol
from pytest_pastbench.protocols.intervention import collect as intervention_collect
from pytest_pastbench.protocols.intervention.offline_policy import INTERVENTION_MARKER_TOOL
from pytest_pastbench.protocols.intervention.protocol import PROTOCOL
from pytest_pastbench.resources import families_dir
from tests.protocols.stand_ins import Made, StandInFile

ANALYTICS = families_dir() / "interventions" / "analytics.yaml"


def test_it_names_and_describes_a_family() -> None:
    assert isinstance(PROTOCOL, BenchProtocol)
    digest = hashlib.sha256(ANALYTICS.read_bytes()).hexdigest()
    assert PROTOCOL.family_identity(ANALYTICS) == ("intervention.analytics", digest)
    assert PROTOCOL.describe(ANALYTICS) == "intervention.analytics, 2 events × 3 profiles"


def test_collect_names_the_family_and_yields_its_items(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intervention_collect, "InterventionItem", Made)
    parent = StandInFile(ANALYTICS, RunOptions())
    made = list(PROTOCOL.collect(parent))  # type: ignore[arg-type]
    assert parent.family_id == "intervention.analytics" and len(made) == 2 * 3


def test_its_offline_policy_answers_only_an_intervention_domain() -> None:
    policy = PROTOCOL.offline_policy()
    marker = {"type": "function", "function": {"name": INTERVENTION_MARKER_TOOL}}
    other = {"type": "function", "function": {"name": "notes_search"}}
    assert not policy.catch_all
    assert policy.handles([], [other, marker]) and not policy.handles([], [other])


def cell(alpha_l: float, rho: float) -> dict:
    return {"alpha_l": alpha_l, "alpha_l_trials": [alpha_l], "rho": {"rho": rho, "ci": [0.0, 0.5]}}


def test_gate_metrics_are_means_over_the_cells_with_the_cells_own() -> None:
    matrix = {"intervention.analytics": {"ev": {"profiles": {"light": cell(2, 0.1), "power": cell(4, 0.3)}}}}
    summary = {"protocols": {"intervention": {"configs": [{"label": "hermes@m", "matrix": matrix}]}}}
    metrics = {(m.scope, m.name): m for m in PROTOCOL.gate_metrics(summary)}
    overall = metrics[("intervention", "alpha_l")]
    assert overall.value == 3.0 and overall.higher_is_better is False
    assert overall.units == {"intervention.analytics": {"ev/light": 2, "ev/power": 4}}
    assert metrics[("intervention.analytics", "rho")].value == pytest.approx(0.2)
    power = metrics[("intervention.analytics/ev/power", "rho")]
    assert (power.value, power.ci) == (0.3, (0.0, 0.5))
    assert metrics[("intervention", "gamma")].value is None  # no cell measured γ
    assert PROTOCOL.gate_metrics({}) == []
