"""Family files of any protocol: bounded reading (size, depth, YAML, a mapping), validation against
the protocol's model with errors naming the file and field path, and the hashes a run records."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from pytest_pastbench.core import family_files
from pytest_pastbench.core.family_files import (
    MAX_DEPTH,
    dataset_hash,
    load_family_model,
    read_family_mapping,
    validate_family,
)
from pytest_pastbench.errors import FamilyFileError


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid")
    stage: int


class Family(BaseModel):
    """A stand-in protocol's family model: nothing PAST-specific."""

    model_config = ConfigDict(extra="forbid")
    id: str
    steps: list[Step] = []


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_valid_file_loads_with_the_sha256_of_its_bytes(tmp_path: Path) -> None:
    path = write(tmp_path, "tiny.yaml", "id: tiny\nsteps:\n  - stage: 1\n")
    family, file_hash = load_family_model(path, Family)
    assert family == Family(id="tiny", steps=[Step(stage=1)])
    assert file_hash == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("- a\n- b\n", "the top level must be a mapping"),
        ("", "the top level must be a mapping"),
        ("id: [unclosed\n", "not valid YAML: "),
        ("id: x\nwhen: 2001-13-01\n", "not valid YAML: ValueError: "),  # a date that is no date
    ],
)
def test_what_is_no_yaml_mapping_is_refused_naming_the_file(tmp_path: Path, text: str, problem: str) -> None:
    path = write(tmp_path, "f.yaml", text)
    with pytest.raises(FamilyFileError) as raised:
        read_family_mapping(path)
    assert str(raised.value).startswith(f"{path}: {problem}")


def test_nesting_past_the_limit_is_refused_before_the_yaml_is_built(tmp_path: Path) -> None:
    deep = write(tmp_path, "deep.yaml", "id: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n")
    with pytest.raises(FamilyFileError, match=rf"nested more than {MAX_DEPTH} levels deep \(line 1\)"):
        read_family_mapping(deep)
    at_limit = write(tmp_path, "ok.yaml", "a: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n")
    assert "a" in read_family_mapping(at_limit)[0]  # the top mapping is one level


def test_a_file_over_the_size_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(family_files, "MAX_FAMILY_BYTES", 10)
    path = write(tmp_path, "big.yaml", "id: big\nsteps: []\n")
    with pytest.raises(FamilyFileError, match=r"big.yaml: 18 bytes; the limit is 10$"):
        read_family_mapping(path)


def test_validation_errors_name_every_field_path_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "tiny.yaml"
    with pytest.raises(FamilyFileError) as raised:
        validate_family(path, {"id": "tiny", "steps": [{"stage": 1}, {"stage": "late"}], "extra": 1}, Family)
    message = str(raised.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    assert "steps.1.stage: Input should be a valid integer" in message
    assert "extra: Extra inputs are not permitted" in message


def test_the_id_must_be_the_file_name(tmp_path: Path) -> None:
    with pytest.raises(FamilyFileError, match=r"id: 'other' must equal the file name 'tiny'"):
        validate_family(tmp_path / "tiny.yaml", {"id": "other"}, Family)


def test_the_dataset_hash_is_of_the_set_not_its_order() -> None:
    one = dataset_hash({"a.x": "h1", "b.y": "h2"})
    assert one == dataset_hash({"b.y": "h2", "a.x": "h1"})
    assert len(one) == 16
    assert one != dataset_hash({"a.x": "h1", "b.y": "h3"})  # a changed file
    assert one != dataset_hash({"a.x": "h1"})  # a family fewer
