"""pastbench export: the whole dataset in one JSON file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_pastbench.cli import main
from pytest_pastbench.core.family_files import dataset_hash
from pytest_pastbench.protocols.detect import is_past_family_file
from pytest_pastbench.protocols.past.dataset.audit import EXPECTED_SHAPE
from pytest_pastbench.protocols.past.dataset.export import DEFAULT_EXPORT
from pytest_pastbench.protocols.past.family_files import load_family
from pytest_pastbench.protocols.past.schema import Family
from pytest_pastbench.resources import families_dir

# families and episodes of the built-in set
TOTAL = tuple(sum(shape[i] for shape in EXPECTED_SHAPE.values()) for i in (0, 1))


def test_export_writes_every_family_with_its_hash_and_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["export", "--families", str(families_dir())]) == 0
    # The file's name says what it is, not how many episodes it held once (it was
    # 204_episodes_full.json, and held 220).
    assert DEFAULT_EXPORT == "past_dataset.json" and not any(c.isdigit() for c in DEFAULT_EXPORT)
    document = json.loads((tmp_path / DEFAULT_EXPORT).read_text())
    assert (document["n_families"], document["n_episodes"]) == TOTAL
    assert document["dataset_versions"] == ["1.0", "4.0"]  # 4.0 (issue 29); SM08 and PC05 are new in 1.0
    hashes = {}
    for path in sorted(p for p in families_dir().rglob("*.yaml") if is_past_family_file(p)):
        family, file_hash = load_family(path)
        hashes[family.qualified_id] = file_hash
    assert document["dataset_hash"] == dataset_hash(hashes)
    printed = f"{TOTAL[0]} families, {TOTAL[1]} episodes, dataset hash {document['dataset_hash']}"
    assert printed in capsys.readouterr().out
    per_capability: dict[str, list[int]] = {}
    for entry in document["families"]:
        Family.model_validate({k: v for k, v in entry.items()})  # each entry is a valid family
        per_capability.setdefault(entry["capability"], []).append(len(entry["episodes"]))
    assert {c: (len(v), sum(v)) for c, v in per_capability.items()} == EXPECTED_SHAPE


def test_export_of_a_broken_folder_fails_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "broken.yaml").write_text("format: pastbench/v1\nid: broken\n")
    assert main(["export", "--families", str(tmp_path), "--out", str(tmp_path / "x.json")]) == 1
    assert "broken.yaml" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_export_defaults_to_the_built_in_families(tmp_path: Path) -> None:
    assert main(["export", "--out", str(tmp_path / "past.json")]) == 0
    document = json.loads((tmp_path / "past.json").read_text())
    assert (document["n_families"], document["n_episodes"]) == TOTAL
