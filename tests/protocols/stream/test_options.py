"""The stream protocol's options: the scale, and the ServeLearnBench reference and sample, whose
values are checked (a readable leaderboard CSV, a count or a fraction) before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.plugin.options import resume_options, validate
from pytest_pastbench.protocols.stream.options import OPTIONS, SCALES
from pytest_pastbench.protocols.stream.servelearn.sample import Sample

SPECS = {spec.name: spec for spec in OPTIONS.specs}


def check(name: str, value: object) -> object:
    return validate(SPECS[name], value, None, {})  # type: ignore[arg-type] (no check reads the config)


def test_the_scale_defaults_to_the_sample_and_takes_only_its_choices() -> None:
    assert check("stream-scale", None) == "sample" and SCALES == ("sample", "full")
    assert check("stream-scale", "full") == "full"
    with pytest.raises(pytest.UsageError, match="stream-scale='all': choose one of sample, full"):
        check("stream-scale", "all")


def test_the_sample_reads_a_count_or_a_fraction() -> None:
    assert check("stream-sample", None) is None
    assert check("stream-sample", "20") == Sample(count=20)
    assert check("stream-sample", "0.1") == Sample(fraction=0.1)


@pytest.mark.parametrize("value", ["0", "1.5", "1.0", "-3", "some", "nan"])
def test_a_sample_neither_a_count_nor_a_fraction_is_refused(value: str) -> None:
    with pytest.raises(pytest.UsageError, match=f"--pastbench-stream-sample={value}: expected a number"):
        check("stream-sample", value)


def test_an_unreadable_reference_is_refused_naming_the_file(tmp_path: Path) -> None:
    assert check("stream-reference", None) is None
    missing = tmp_path / "nowhere.csv"
    with pytest.raises(pytest.UsageError, match=f"--pastbench-stream-reference={missing}: .*leaderboard.csv"):
        check("stream-reference", str(missing))
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("name,score\na,1\n")
    with pytest.raises(pytest.UsageError, match="stream-reference=.*wrong.csv"):
        check("stream-reference", str(wrong))


def test_only_the_options_that_change_the_items_bind_a_resume() -> None:
    assert resume_options(OPTIONS) == {"stream_scale": "--pastbench-stream-scale"}
