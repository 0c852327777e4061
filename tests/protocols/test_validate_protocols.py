"""`pastbench validate` on the docs/design.md §8 protocols' files: each protocol validates its own format
and a mistake fails naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.cli import main
from pytest_pastbench.resources import families_dir


@pytest.mark.parametrize(
    ("relative", "said"),
    [
        ("streams/retail_l1.yaml", "stream.retail_l1, retail L1, 6 windows"),
        ("plasticity/ops_rules.yaml", "plasticity.ops_rules, text environment"),
        ("interventions/analytics.yaml", "intervention.analytics, 2 events × 3 profiles"),
    ],
)
def test_each_protocol_says_what_its_file_holds(
    relative: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(families_dir() / relative)]) == 0
    assert said in capsys.readouterr().out


@pytest.mark.parametrize(
    ("relative", "old", "new", "field"),
    [
        ("streams/retail_l1.yaml", "tier: L1", "tier: L9", "tier"),
        ("plasticity/ops_rules.yaml", "checkpoints: 5", "checkpoints: 0", "checkpoints"),
    ],
)
def test_a_broken_protocol_file_fails_naming_the_field(
    relative: str, old: str, new: str, field: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (families_dir() / relative).read_text()
    assert old in text
    broken = tmp_path / Path(relative).name
    broken.write_text(text.replace(old, new))
    assert main(["validate", str(broken)]) == 1
    printed = capsys.readouterr().out
    assert f"{broken}: {field}" in printed and "FAIL" in printed
