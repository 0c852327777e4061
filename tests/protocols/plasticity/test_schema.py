"""The plasticity family schema: each validator refuses the mistake it is for, by field."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from pytest_pastbench.protocols.plasticity.schema import ChessEnvironment, Range, Splits, TaskKind

from .helpers import SMALL_TEXT_FAMILY, small_family

SHIPPING: dict[str, Any] = SMALL_TEXT_FAMILY["environment"]["kinds"][0]


def kind(**changes: Any) -> TaskKind:
    return TaskKind.model_validate({**copy.deepcopy(SHIPPING), **changes})


def test_a_range_is_inclusive_and_ordered() -> None:
    assert Range(low=3, high=3).high == 3
    with pytest.raises(ValidationError, match=r"high \(2\) must be at least low \(3\)"):
        Range(low=3, high=2)


def test_a_template_uses_exactly_the_kinds_inputs() -> None:
    assert kind().inputs.keys() == {"weight", "distance"}
    with pytest.raises(ValidationError, match=r"templates.0: placeholders \['weight'\] must be exactly"):
        kind(templates=["A {weight} kg parcel?"])
    with pytest.raises(ValidationError, match=r"ood_templates.0: placeholders .* must be exactly"):
        kind(ood_templates=["{weight} kg, {distance} km, {speed} km/h?"])


def test_the_rule_and_the_ood_ranges_name_only_inputs() -> None:
    with pytest.raises(ValidationError, match="'volume' is not an input"):
        kind(rule="weight * volume")
    with pytest.raises(ValidationError, match=r"ood_inputs: \['speed'\] are not inputs"):
        kind(ood_inputs={"speed": {"low": 1, "high": 2}})
    assert kind(ood_inputs={"weight": {"low": 40, "high": 60}}).ood_inputs["weight"].low == 40


def test_kinds_are_unique_and_some_kind_trains() -> None:
    environment = SMALL_TEXT_FAMILY["environment"]
    twice = {**environment, "kinds": [SHIPPING, SHIPPING]}
    with pytest.raises(ValidationError, match="kind ids must be unique"):
        small_family(environment=twice)
    held_out_only = {**environment, "kinds": [{**SHIPPING, "splits": ["id", "ood"]}]}
    with pytest.raises(ValidationError, match="at least one kind must appear in the train split"):
        small_family(environment=held_out_only)


def test_the_environment_is_chosen_by_its_type_and_unknown_fields_are_refused() -> None:
    assert small_family().environment.type == "text"
    with pytest.raises(ValidationError, match="union_tag_invalid|does not match any of the expected tags"):
        small_family(environment={**SMALL_TEXT_FAMILY["environment"], "type": "go"})
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        small_family(checkpoint=5)  # a typo of checkpoints is an error, not a default
    assert Splits().model_dump() == {"train": 4, "id": 6, "ood": 6}


def test_a_chess_environment_needs_both_opponents_and_openings_for_every_split() -> None:
    openings = {"train": ["e4 e5"], "id": ["e4 e5 Nf3"], "ood": ["d4 d5"]}
    chess = {"type": "chess", "opponents": {"id": {"nodes": 1}, "ood": {"nodes": 50}}, "openings": openings}
    assert ChessEnvironment.model_validate(chess).max_plies == 40
    with pytest.raises(ValidationError, match="opponents.ood: required"):
        ChessEnvironment.model_validate({**chess, "opponents": {"id": {"nodes": 1}}})
    with pytest.raises(ValidationError, match="openings.id: at least one opening"):
        ChessEnvironment.model_validate({**chess, "openings": {**openings, "id": []}})
