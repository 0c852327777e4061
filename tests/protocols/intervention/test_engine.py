"""One item end to end in process (agent loop, versioned domain, store, metrics, propagation),
and the effect the design predicts on the built-in families."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.agents.base import HermesAgent
from pytest_pastbench.protocols.intervention import engine
from pytest_pastbench.protocols.intervention.collect import load_intervention_family
from pytest_pastbench.protocols.intervention.engine import ItemPlan
from pytest_pastbench.resources import families_dir
from tests.protocols.intervention.samples import TINY, InterventionPolicyClient

BUILTIN = families_dir() / "interventions"


@pytest.fixture
def tiny(tmp_path: Path):  # noqa: ANN201
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return load_intervention_family(path)


def run(family, event: str, profile: str, model: str, tmp_path: Path) -> tuple[dict, list[dict]]:  # noqa: ANN001
    plan = ItemPlan(family, family.event(event), profile)
    return engine.run(plan, HermesAgent(), InterventionPolicyClient(model), tmp_path / f"{profile}-{model}")


def test_recall_follows_the_stale_note_of_the_power_profile(tiny, tmp_path: Path) -> None:  # noqa: ANN001
    light, _ = run(tiny, "method", "light", "recall", tmp_path)
    power, trace = run(tiny, "method", "power", "recall", tmp_path)
    assert light["alpha"]["z"] == [1, 1] and light["metrics"]["alpha_l"] == 1
    assert power["alpha"]["z"] == [0, 0] and power["metrics"]["alpha_l"] == 3  # T + 1
    assert (light["rho"]["k"], light["rho"]["n"]) == (0, 2)
    assert (power["rho"]["k"], power["rho"]["n"], power["rho"]["broke"]) == (1, 2, ["corr_a"])
    assert power["sigma"]["s_pre"] == power["sigma"]["s_post"] == 1.0
    assert power["kappa"]["included"] == ["mean_a", "note"] and power["kappa"]["kappa"] == 1.0
    # propagation: the stale note was returned in failed sessions; the queries on it broke
    assert power["propagation"]["broken"] == [
        "fallback:kendall",
        "memory:howto",
        "query:corr_a",
        "query:corr_b",
    ]
    [propagation] = [e for e in trace if e["kind"] == "propagation"]
    assert propagation["changed"] == ["tool:correlation"]
    assert propagation["nodes"]["memory:howto"]["repaired"] is False
    assert "memory:currency" not in propagation["dependents"]


def test_the_version_aware_curator_repairs_the_stale_note(tiny, tmp_path: Path) -> None:  # noqa: ANN001
    power, trace = run(tiny, "method", "power", "curator", tmp_path)
    assert power["alpha"]["z"] == [1, 1] and power["rho"]["k"] == 0
    assert power["gamma"]["gamma"] == 1.0  # acknowledges, claims nothing, proposes pearson/spearman
    [propagation] = [e for e in trace if e["kind"] == "propagation"]
    assert propagation["nodes"]["memory:howto"]["repaired"] is True
    [profile] = [e for e in trace if e["kind"] == "profile"]
    assert profile["nodes"] == {"m0001": "memory:currency", "m0002": "memory:howto"}


def test_blind_fails_the_memory_check_before_the_event_so_kappa_excludes_it(tiny, tmp_path: Path) -> None:  # noqa: ANN001
    record, _ = run(tiny, "method", "light", "blind", tmp_path)
    assert record["kappa"]["excluded"] == ["note"] and record["kappa"]["included"] == ["mean_a"]


def test_a_broken_safety_rule_fails_the_safety_check(tiny, tmp_path: Path) -> None:  # noqa: ANN001
    # The safety check forbids correlation; ask for one, so every policy breaks the rule.
    query = tiny.query("safe").model_copy(update={"user": ["Compute the correlation between x=e and y=f."]})
    family = tiny.model_copy(update={"queries": [*tiny.queries[:4], query]})
    record, _ = run(family, "method", "light", "recall", tmp_path)
    assert record["sigma"]["s_pre"] == 0.0 and record["sigma"]["ratio"] is None  # N/A


@pytest.mark.parametrize(
    ("family", "event"),
    [
        ("analytics", "correlation_method"),
        ("reimbursement", "approval_threshold"),
        ("scheduling", "timezone_required"),
    ],
)
def test_builtin_power_regresses_more_than_light_and_version_tags_lower_it(
    family: str, event: str, tmp_path: Path
) -> None:
    loaded = load_intervention_family(BUILTIN / f"{family}.yaml")
    rho = {
        (model, profile): run(loaded, event, profile, model, tmp_path)[0]["metrics"]["rho"]
        for model in ("recall", "curator")
        for profile in ("light", "power")
    }
    assert rho[("recall", "power")] > rho[("recall", "light")]
    assert rho[("curator", "power")] < rho[("recall", "power")]
