"""Where the packaged data is found: beside the package in a checkout, inside it in a wheel."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench import resources

ROOT = Path(__file__).resolve().parents[1]


def test_a_checkout_finds_families_agents_labels_and_prompts_beside_the_package() -> None:
    assert resources.package_dir() == ROOT / "pytest_pastbench"
    assert resources.families_dir() == ROOT / "families"
    assert resources.agents_dir() == ROOT / "agents"
    assert resources.labels_file() == ROOT / "families" / "labels" / "answers.jsonl"
    assert resources.labels_file().is_file()
    assert resources.prompt_file("judge_rubric.md").is_file()


def test_a_wheel_carries_the_data_inside_the_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    package = tmp_path / "site-packages" / "pytest_pastbench"
    (package / "_data" / "families" / "update").mkdir(parents=True)
    monkeypatch.setattr(resources, "_PACKAGE", package)
    assert resources.families_dir() == package / "_data" / "families"
    # agents/ is not inside this package: the folder beside it is the fallback
    assert resources.agents_dir() == package.parent / "agents"


def test_packaged_families_get_ids_from_the_families_root(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    package = tmp_path / "pytest_pastbench"
    family = package / "_data" / "families" / "update" / "rule_migration.yaml"
    family.parent.mkdir(parents=True)
    family.write_text("")
    monkeypatch.setattr(resources, "_PACKAGE", package)
    assert resources.packaged_nodeid(family) == "pastbench/update/rule_migration.yaml"
    assert resources.packaged_nodeid(ROOT / "families" / "update" / "x.yaml") is None
