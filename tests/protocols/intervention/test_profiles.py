"""``pastbench_profile``'s object: a user-state profile named ``[family:]profile``, its memories and
skills, and the domain service before or after one of the family's events."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.protocols.intervention.profiles import (
    DEFAULT_FAMILY,
    family_path,
    load_profile,
    profile_names,
)
from pytest_pastbench.resources import families_dir
from tests.protocols.intervention.samples import TINY


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return path


def test_a_family_is_a_built_in_stem_or_a_path_to_a_file(tiny: Path) -> None:
    assert family_path("reimbursement") == families_dir() / "interventions" / "reimbursement.yaml"
    assert family_path(str(tiny)) == tiny
    assert load_profile("power").family.id == DEFAULT_FAMILY  # no family named: the default
    assert load_profile("reimbursement:middle").family.id == "reimbursement"
    assert load_profile(f"{tiny}:light").name == "light"


def test_a_profile_that_is_not_there_is_an_error_naming_the_choices(tiny: Path) -> None:
    with pytest.raises(ValueError, match=r"no intervention family at .*nowhere\.yaml"):
        load_profile("nowhere:light")
    with pytest.raises(ValueError, match=r"tiny\.yaml:heavy': choose one of light, power$"):
        load_profile(f"{tiny}:heavy")
    assert profile_names(str(tiny)) == ["light", "power"]


def test_a_profiles_state_is_a_copy_the_test_may_change(tiny: Path) -> None:
    profile = load_profile(f"{tiny}:power")
    memories = profile.memories
    memories.clear()
    assert profile.memories and memories == []  # the family's own list is untouched
    assert profile.regression == ["corr_a", "mean_a"]


def test_the_service_starts_at_its_version_and_moves_on_after_the_event(tiny: Path) -> None:
    profile = load_profile(f"{tiny}:light")
    before, after = profile.service(), profile.service(after="method")
    assert (before.tag, after.tag) == ("stats-api v1", "stats-api v2")
    assert (
        "method" not in before.tools["correlation"].params and "method" in after.tools["correlation"].params
    )
    assert profile.service().tag == "stats-api v1"  # each call a fresh service
