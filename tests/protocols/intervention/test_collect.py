"""Intervention collection: one item per event × profile × model × trial (× mechanism set), the
profile first in the id, in the family file's order; a malformed file names its field."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.errors import FamilyFileError
from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.intervention import collect as intervention_collect
from pytest_pastbench.resources import families_dir
from tests.protocols.stand_ins import Made, StandInFile

ANALYTICS = families_dir() / "interventions" / "analytics.yaml"


def collected(options: RunOptions, monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    monkeypatch.setattr(intervention_collect, "InterventionItem", Made)
    return list(intervention_collect.collect(StandInFile(ANALYTICS, options)))  # type: ignore[arg-type]


def test_an_item_per_event_profile_and_trial_in_the_files_order(monkeypatch: pytest.MonkeyPatch) -> None:
    made = collected(RunOptions(trials=2), monkeypatch)
    family = intervention_collect.load_intervention_family(ANALYTICS)
    expected = [
        f"{event.id}[{profile}-t{trial}]"
        for event in family.events
        for profile in family.profiles
        for trial in (0, 1)
    ]
    assert [m["name"] for m in made] == expected
    assert len(made) == len(family.events) * len(family.profiles) * 2 > 0
    first = made[0]
    assert (first["event"].id, first["profile"], first["trial"], first["mechanisms"]) == (
        family.events[0].id,
        next(iter(family.profiles)),
        0,
        None,
    )


def test_several_models_and_mechanism_sets_join_the_id(monkeypatch: pytest.MonkeyPatch) -> None:
    options = RunOptions(
        models=["pastbench/blind", "pastbench/recall"], mechanism_sets=[["E1"], ["E1", "E5"]]
    )
    names = [m["name"] for m in collected(options, monkeypatch)][:4]
    assert names == [
        "correlation_method[light-t0-pastbench/blind-E1]",
        "correlation_method[light-t0-pastbench/blind-E1+E5]",
        "correlation_method[light-t0-pastbench/recall-E1]",
        "correlation_method[light-t0-pastbench/recall-E1+E5]",
    ]


def test_a_malformed_file_names_the_file_and_the_field(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("format: pastbench/intervention-v1\nid: broken\nevents: nope\n")
    with pytest.raises(FamilyFileError, match="broken.yaml"):
        intervention_collect.load_intervention_family(path)
