"""The seeded generator: families/ is exactly its output, and it is deterministic."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from pytest_pastbench.cli import main
from pytest_pastbench.dataset.generate import DEFAULT_SEED, differences, render_families, template_names
from pytest_pastbench.resources import families_dir


def test_the_families_folder_is_what_the_generator_writes(capsys: pytest.CaptureFixture[str]) -> None:
    assert differences(families_dir()) == []
    assert main(["generate-families", "--out", str(families_dir()), "--check"]) == 0
    assert f"matches the generator (seed {DEFAULT_SEED})" in capsys.readouterr().out


def test_check_names_every_changed_missing_and_extra_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "families"
    assert main(["generate-families", "--out", str(out)]) == 0
    (out / "memory" / "preference_adoption.yaml").write_text("edited by hand\n")
    (out / "update" / "price_change.yaml").unlink()
    shutil.copy(out / "gathering" / "oncall_handoff.yaml", out / "gathering" / "extra.yaml")
    capsys.readouterr()
    assert main(["generate-families", "--out", str(out), "--check"]) == 1
    printed = capsys.readouterr().out
    assert "preference_adoption.yaml: differs from the generator" in printed
    assert "price_change.yaml: missing" in printed
    assert "extra.yaml: not produced by the generator" in printed
    # Writing again restores the folder and removes what the generator does not produce.
    assert main(["generate-families", "--out", str(out)]) == 0
    assert differences(out) == []


def test_generation_is_deterministic_and_follows_the_seed() -> None:
    first = render_families(DEFAULT_SEED)
    assert render_families(DEFAULT_SEED) == first
    other = render_families(DEFAULT_SEED + 1)
    assert other.keys() == first.keys()
    assert all(other[path] != first[path] for path in first)


def test_every_family_uses_at_least_three_scenario_templates() -> None:
    names = template_names()
    assert len(names) == 26
    for family, templates in names.items():
        counts = Counter(templates)
        assert len(counts) >= 3, f"{family}: {sorted(counts)}"
        # round-robin: no template carries a family
        assert max(counts.values()) - min(counts.values()) <= 1, f"{family}: {counts}"


def test_a_capability_with_authored_files_is_left_to_its_authors(tmp_path: Path) -> None:
    out = tmp_path / "families"
    assert main(["generate-families", "--out", str(out)]) == 0
    for generated in (out / "update").glob("*.yaml"):
        generated.unlink()
    authored = out / "update" / "SM03_fact_correction.yaml"
    authored.write_text("# Authored for v3; reviewed against shortcuts (issue 16)\nformat: pastbench/v1\n")
    assert differences(out) == []  # the generated update files are not "missing"
    assert main(["generate-families", "--out", str(out)]) == 0
    assert sorted(p.name for p in (out / "update").iterdir()) == ["SM03_fact_correction.yaml"]
    assert differences(out) == []
