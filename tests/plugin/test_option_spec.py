"""OptionSpec: what one declared option derives from its fields (flag, placeholder, ini key and
type, the RunOptions field it fills)."""

from __future__ import annotations

import dataclasses

import pytest

from pytest_pastbench.plugin.option_spec import OptionGroup, OptionSpec


@pytest.mark.parametrize(
    ("spec", "placeholder"),
    [
        (OptionSpec("on", "a flag", kind=bool), None),
        (OptionSpec("arm", "choices win over a metavar", choices=("on", "off"), metavar="ARM"), "{on,off}"),
        (OptionSpec("cost", "declared", kind=float, metavar="USD"), "USD"),
        (OptionSpec("trials", "an integer", kind=int), "N"),
        (OptionSpec("tau", "a number", kind=float), "X"),
        (OptionSpec("label", "text"), "VALUE"),
    ],
)
def test_the_placeholder_comes_from_choices_metavar_or_kind(
    spec: OptionSpec, placeholder: str | None
) -> None:
    assert spec.placeholder == placeholder
    assert spec.flag is (spec.kind is bool)


@pytest.mark.parametrize(
    ("spec", "ini_type"),
    [
        (OptionSpec("a", "", kind=bool, multiple=True), "bool"),  # a flag before repeatable
        (OptionSpec("a", "", multiple=True, kind=int), "args"),
        (OptionSpec("a", "", kind=int), "int"),
        (OptionSpec("a", "", kind=float), "float"),
        (OptionSpec("a", ""), "string"),
    ],
)
def test_the_ini_type_is_the_one_pytest_parses(spec: OptionSpec, ini_type: str) -> None:
    assert spec.ini_type == ini_type


def test_names_with_dashes_become_underscored_keys_and_fields() -> None:
    spec = OptionSpec("stream-reference-model", "")
    assert spec.ini_key == "pastbench_stream_reference_model"
    assert spec.target == "stream_reference_model"
    assert OptionSpec("no-report", "", field="report").target == "report"
    assert OptionSpec("note-only", "", field="").target == ""  # fills no field


def test_a_declaration_is_immutable_data() -> None:
    spec = OptionSpec("trials", "how many", kind=int)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.name = "other"  # type: ignore[misc]
    group = OptionGroup("mine", "my protocol", (spec,))
    assert group == OptionGroup("mine", "my protocol", (OptionSpec("trials", "how many", kind=int),))
    assert (spec.default, spec.choices, spec.multiple, spec.resume) == (None, (), False, False)
