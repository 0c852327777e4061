"""The intervention protocol's options: m and τ override every family's own, within their bounds."""

from __future__ import annotations

import pytest

from pytest_pastbench.plugin.options import resume_options, validate
from pytest_pastbench.protocols.intervention.options import OPTIONS

SPECS = {spec.name: spec for spec in OPTIONS.specs}


def check(name: str, value: object) -> object:
    return validate(SPECS[name], value, None, {})  # type: ignore[arg-type] (no check reads the config)


def test_not_given_leaves_each_familys_own() -> None:
    assert check("intervention-m", None) is None
    assert check("intervention-tau", None) is None


def test_values_convert_to_their_kind() -> None:
    assert check("intervention-m", "3") == 3
    assert check("intervention-tau", "0") == 0.0
    assert check("intervention-tau", "0.999") == 0.999


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("intervention-m", "0", "--pastbench-intervention-m=0: must be at least 1"),
        ("intervention-m", "two", "--pastbench-intervention-m='two': expected an integer"),
        ("intervention-tau", "-0.1", "--pastbench-intervention-tau=-0.1: must be at least 0.0"),
        ("intervention-tau", "1", "--pastbench-intervention-tau=1.0: τ must be below 1"),
        ("intervention-tau", "1.5", "--pastbench-intervention-tau=1.5: τ must be below 1"),
    ],
)
def test_out_of_range_values_are_refused_with_a_fix(name: str, value: str, message: str) -> None:
    with pytest.raises(pytest.UsageError) as info:
        check(name, value)
    assert str(info.value).startswith(message)


def test_both_change_what_an_item_measures_so_a_resume_must_match_them() -> None:
    assert resume_options(OPTIONS) == {
        "intervention_m": "--pastbench-intervention-m",
        "intervention_tau": "--pastbench-intervention-tau",
    }
    assert OPTIONS.key == "intervention"
