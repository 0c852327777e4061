"""The plasticity protocol object: it names and describes a family, collects through
``collect.py``, and gives gates the last checkpoint's held-out scores per config and family,
the overall a mean over families, with each trial's episodes as units."""

from __future__ import annotations

import pytest

from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.base import BenchProtocol
from pytest_pastbench.protocols.plasticity import collect as plasticity_collect
from pytest_pastbench.protocols.plasticity.protocol import PROTOCOL
from pytest_pastbench.resources import families_dir
from tests.protocols.stand_ins import Made, StandInFile

OPS_RULES = families_dir() / "plasticity" / "ops_rules.yaml"


def test_it_names_describes_and_collects_a_family(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(PROTOCOL, BenchProtocol)
    assert PROTOCOL.family_identity(OPS_RULES)[0] == "plasticity.ops_rules"
    assert PROTOCOL.describe(OPS_RULES) == "plasticity.ops_rules, text environment, checkpoints 0..5"
    monkeypatch.setattr(plasticity_collect, "PlasticityItem", Made)
    parent = StandInFile(OPS_RULES, RunOptions())
    assert len(list(PROTOCOL.collect(parent))) == 2  # type: ignore[arg-type]
    assert parent.family_id == "plasticity.ops_rules"


def lineage(trial: int, id_end: float) -> dict:
    return {
        "agent": "hermes",
        "model": "m",
        "arm": "on",
        "trial": trial,
        "scores": [{"id": 0.0}, {"id": id_end}],
    }


def test_gate_metrics_are_the_last_checkpoint_per_family_and_their_mean_overall() -> None:
    families = {
        "plasticity.a": {"lineages": {"t0": lineage(0, 60.0), "t1": lineage(1, 80.0)}},
        "plasticity.b": {"lineages": {"t0": lineage(0, 40.0)}},
    }
    summary = {"protocols": {"plasticity": {"families": families}}}
    metrics = {(m.scope, m.name): m for m in PROTOCOL.gate_metrics(summary)}
    assert metrics[("plasticity.a", "id_end")].value == 70.0
    assert metrics[("plasticity", "id_end")].value == 55.0  # (70 + 40) / 2: each family weighs once
    assert metrics[("plasticity", "id_end")].units == {
        "plasticity.a": {"t0": 60.0, "t1": 80.0},
        "plasticity.b": {"t0": 40.0},
    }
    assert metrics[("plasticity", "ood_end")].value is None


def test_gate_units_are_each_trials_held_out_episodes() -> None:
    record = {
        "agent": "hermes",
        "model": "m",
        "arm": "on",
        "trial": 1,
        "family": "plasticity.a",
        "checkpoints": [{}, {"episode_scores": {"id": {"e1": 1.0, "e2": 0.0}, "train": {"e9": 1.0}}}],
    }
    units = PROTOCOL.gate_units([record, {**record, "infra_blocked": True, "trial": 2}])
    assert units == {
        ("hermes@m[on]", "plasticity", "id_end"): {"plasticity.a": {"t1/e1": 1.0, "t1/e2": 0.0}},
        ("hermes@m[on]", "plasticity.a", "id_end"): {"plasticity.a": {"t1/e1": 1.0, "t1/e2": 0.0}},
    }
