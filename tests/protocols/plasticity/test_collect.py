"""Plasticity collection: one lineage item per model × trial × mechanism set × arm,
``lineage[on-t0]``; ``describe`` says what a file holds and a malformed file names its field."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.errors import FamilyFileError
from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.plasticity import collect as plasticity_collect
from pytest_pastbench.resources import families_dir
from tests.protocols.stand_ins import Made, StandInFile

OPS_RULES = families_dir() / "plasticity" / "ops_rules.yaml"


def collected(options: RunOptions, monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    monkeypatch.setattr(plasticity_collect, "PlasticityItem", Made)
    return list(plasticity_collect.collect(StandInFile(OPS_RULES, options)))  # type: ignore[arg-type]


def test_a_lineage_per_trial_and_arm_in_a_fixed_order(monkeypatch: pytest.MonkeyPatch) -> None:
    made = collected(RunOptions(trials=2), monkeypatch)
    assert [m["name"] for m in made] == [
        "lineage[on-t0]",
        "lineage[off-t0]",
        "lineage[on-t1]",
        "lineage[off-t1]",
    ]
    assert [(m["arm"], m["trial"]) for m in made][:2] == [("on", 0), ("off", 0)]
    assert all(m["family"].id == "ops_rules" for m in made)


def test_one_arm_and_several_models_join_the_id(monkeypatch: pytest.MonkeyPatch) -> None:
    options = RunOptions(persistence="on", models=["pastbench/blind", "pastbench/recall"])
    names = [m["name"] for m in collected(options, monkeypatch)]
    assert names == ["lineage[on-t0-pastbench/blind]", "lineage[on-t0-pastbench/recall]"]


def test_describe_says_the_environment_and_checkpoints(tmp_path: Path) -> None:
    assert (
        plasticity_collect.describe(OPS_RULES) == "plasticity.ops_rules, text environment, checkpoints 0..5"
    )
    broken = tmp_path / "broken.yaml"
    broken.write_text("format: pastbench/plasticity-v1\nid: broken\ncheckpoints: many\n")
    with pytest.raises(FamilyFileError, match="broken.yaml"):
        plasticity_collect.load_plasticity_family(broken)
