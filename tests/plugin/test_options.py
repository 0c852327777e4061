"""Options declared as data (options.OPTIONS and each protocol's OptionGroup), validated by one
routine, and their reference page."""

from dataclasses import fields
from pathlib import Path

import pytest

from pytest_pastbench.cli.options import REFERENCE_FILE, builtin_option_groups, reference_markdown
from pytest_pastbench.plugin.option_spec import OptionGroup, OptionSpec
from pytest_pastbench.plugin.options import (
    OPTIONS,
    SHARED_GROUPS,
    RunOptions,
    all_specs,
    check_group,
    validate,
)

ROOT = Path(__file__).resolve().parents[2]
SPECS = {spec.name: spec for spec in OPTIONS}
PROTOCOL_GROUPS = builtin_option_groups()
EVERY_SPEC = all_specs([*SHARED_GROUPS, *PROTOCOL_GROUPS])


def test_every_run_option_is_filled_by_exactly_one_declared_option() -> None:
    targets = [spec.target for spec in OPTIONS if spec.target]
    # protocol_options holds the protocols' own, by their names (no field of its own each).
    assert sorted(targets) == sorted(f.name for f in fields(RunOptions) if f.name != "protocol_options")


def test_names_and_ini_keys_are_unique() -> None:
    assert len({spec.name for spec in EVERY_SPEC}) == len(EVERY_SPEC) > len(OPTIONS)
    assert len({spec.ini_key for spec in EVERY_SPEC}) == len(EVERY_SPEC)
    assert sum(len(group.specs) for group in SHARED_GROUPS) == len(OPTIONS)  # each in a section


def test_each_builtin_protocol_declares_the_options_its_plugin_registers() -> None:
    from pytest_pastbench.protocols.standalone import standalone_registry

    declared = [p.options for p in standalone_registry() if p.options is not None]
    assert sorted(declared, key=lambda g: g.key) == sorted(PROTOCOL_GROUPS, key=lambda g: g.key)
    assert {g.key for g in PROTOCOL_GROUPS} == {"intervention", "plasticity", "stream"}


def test_a_protocol_option_reads_as_an_attribute_and_a_missing_one_is_named() -> None:
    options = RunOptions(protocol_options={"stream_scale": "full"})
    assert options.stream_scale == "full" and options.trials == 1
    with pytest.raises(AttributeError, match="RunOptions has no 'stream_sclae'"):
        _ = options.stream_sclae


@pytest.mark.parametrize(
    ("spec", "taken"),
    [
        (OptionSpec("trials", "again"), "--pastbench-trials"),
        (OptionSpec("my-trials", "a field of the shared ones", field="trials"), "the name 'trials'"),
        (OptionSpec("my-scale", "a stream option's name", field="stream_scale"), "the name 'stream_scale'"),
    ],
)
def test_a_protocol_group_cannot_take_a_name_that_is_taken(spec: OptionSpec, taken: str) -> None:
    with pytest.raises(pytest.UsageError, match=f"'mine' takes {taken}.*, taken already; rename it"):
        check_group(OptionGroup("mine", "my protocol", (spec,)), [*SHARED_GROUPS, *PROTOCOL_GROUPS])
    check_group(OptionGroup("mine", "my protocol", (OptionSpec("my-level", "free"),)), SHARED_GROUPS)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("trials", "0", "--pastbench-trials=0: must be at least 1"),
        ("trials", "two", "--pastbench-trials='two': expected an integer"),
        ("pass-threshold", "1.5", "--pastbench-pass-threshold=1.5: must be between 0.0 and 1.0"),
        (
            "persistence",
            "maybe",
            "--pastbench-persistence='maybe': choose one of both, on, off, ablated, all",
        ),
        ("max-cost", "-1", "--pastbench-max-cost=-1: give a budget above 0 in USD"),
        ("max-cost", "lots", "--pastbench-max-cost=lots: give a budget above 0 in USD"),
    ],
)
def test_the_one_routine_refuses_with_a_fix(name: str, value: str, message: str) -> None:
    with pytest.raises(pytest.UsageError) as info:
        validate(SPECS[name], value, None, {})  # type: ignore[arg-type] (no check reads the config)
    assert str(info.value).startswith(message)


def test_the_one_routine_converts_and_fills_defaults() -> None:
    assert validate(SPECS["trials"], "3", None, {}) == 3  # type: ignore[arg-type]
    assert validate(SPECS["session-timeout"], None, None, {}) == 300.0  # type: ignore[arg-type]
    assert validate(SPECS["compare-fail"], None, None, {}) == []  # type: ignore[arg-type]
    assert validate(SPECS["ablation"], True, None, {}) is True  # type: ignore[arg-type]


def test_the_options_reference_is_generated_from_the_declarations() -> None:
    page = (ROOT / REFERENCE_FILE).read_text()
    assert page == reference_markdown(PROTOCOL_GROUPS), (
        f"{REFERENCE_FILE} is stale: run pastbench options -o {REFERENCE_FILE}"
    )
    for spec in EVERY_SPEC:
        assert f"`{spec.ini_key}`" in page


def test_run_options_defaults_are_the_declared_ones() -> None:
    # RunOptions() (tests, resume) must mean what an empty command line means.
    defaults = RunOptions()
    for spec in OPTIONS:
        if spec.target and spec.check is None:
            assert getattr(defaults, spec.target) == validate(spec, None, None, {}), spec.name  # type: ignore[arg-type]


def test_pytest_help_has_a_section_per_group_placeholders_choices_and_typed_ini_keys(
    pytester: pytest.Pytester,
) -> None:
    text = pytester.runpytest("--help").stdout.str()
    groups = [*SHARED_GROUPS, *PROTOCOL_GROUPS]
    starts = [text.index(f"pastbench: {group.title}:") for group in groups]
    assert starts == sorted(starts)  # every section, the shared ones first, then each protocol's
    ends = [*starts[1:], text.index("[pytest] configuration options")]
    for group, a, b in zip(groups, starts, ends, strict=True):
        for spec in group.specs:
            assert f"--pastbench-{spec.name}" in text[a:b], spec.name
    assert "PASTBENCH_" not in text  # argparse's default placeholders, e.g. PASTBENCH_MAX_COST
    assert "--pastbench-persistence={both,on,off,ablated,all}" in text
    assert "--pastbench-max-cost=USD" in text and "--pastbench-shard=K/N" in text
    for key, kind in [("seed", "int"), ("max_cost", "float"), ("ablation", "bool"), ("model", "args")]:
        assert f"pastbench_{key} ({kind})" in text
    assert "README" not in text  # a wheel ships no README: the help names docs pages


def test_typed_ini_keys_resolve_and_a_zero_is_a_value(pytester: pytest.Pytester) -> None:
    from pytest_pastbench.plugin.options import resolve

    pytester.makeini(
        "[pytest]\npastbench_retry_delay = 0\npastbench_trials = 3\npastbench_no_report = true\n"
    )
    options = resolve(pytester.parseconfig())
    # 0 == False: an untyped check took a 0 for "not given" and kept the 1.0 s default.
    assert (options.retry_delay, options.trials, options.report) == (0.0, 3, False)
    pytester.makeini("[pytest]\npastbench_concurrency = 0\n")
    with pytest.raises(pytest.UsageError, match="--pastbench-concurrency=0: give a whole number"):
        resolve(pytester.parseconfig())
