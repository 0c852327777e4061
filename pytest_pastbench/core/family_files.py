"""Reading family files of any protocol: validating them (errors name file and field path) and
hashing them. Each protocol reads its own with its schema (PAST: ``protocols/past/family_files.py``)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from ..errors import FamilyFileError

# libyaml's safe loader when PyYAML was built with it: several times faster on the full dataset.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# Nesting deeper than any family needs. libyaml builds documents recursively in C, so ~100k
# nested brackets overflow the stack and kill the process: the depth is checked first, on the
# parser's event stream, which is iterative.
MAX_DEPTH = 64
MAX_FAMILY_BYTES = 10_000_000


FamilyModel = TypeVar("FamilyModel", bound=BaseModel)


def read_family_mapping(path: Path) -> tuple[dict[str, Any], bytes]:
    """The top-level mapping of a family file (of any protocol) and its bytes; ``FamilyFileError``
    when it is too big, too deep, not YAML or not a mapping."""
    raw = path.read_bytes()
    if len(raw) > MAX_FAMILY_BYTES:
        raise FamilyFileError(f"{path}: {len(raw)} bytes; the limit is {MAX_FAMILY_BYTES}")
    try:
        _check_depth(path, raw)
        data = yaml.load(raw, Loader=_SAFE_LOADER)
    except yaml.YAMLError as exc:
        # PyYAML names bytes input "<byte string>" in its marks (libyaml's are read-only).
        for attribute in ("context_mark", "problem_mark"):
            mark = getattr(exc, attribute, None)
            if mark is not None:
                setattr(exc, attribute, yaml.Mark(str(path), mark.index, mark.line, mark.column, None, None))
        raise FamilyFileError(f"{path}: not valid YAML: {exc}") from exc
    except (ValueError, OverflowError, RecursionError) as exc:
        # A plain scalar that looks like a date but is not one (2001-13-01), and friends.
        raise FamilyFileError(f"{path}: not valid YAML: {type(exc).__name__}: {exc}") from exc
    if not isinstance(data, dict):
        raise FamilyFileError(f"{path}: the top level must be a mapping")
    return data, raw


def validate_family(path: Path, data: dict[str, Any], model: type[FamilyModel]) -> FamilyModel:
    """``model`` (a protocol's family model with an ``id``) from a file's mapping; errors name the
    file and field path, and the id must be the file name."""
    try:
        family = model.model_validate(data)
    except ValidationError as exc:
        raise FamilyFileError(f"{path}: {format_validation_error(exc)}") from exc
    family_id = getattr(family, "id", None)
    if family_id != path.stem:
        raise FamilyFileError(f"{path}: id: {family_id!r} must equal the file name {path.stem!r}")
    return family


def load_family_model(path: Path, model: type[FamilyModel]) -> tuple[FamilyModel, str]:
    """Read, bound-check and validate a family file of any protocol (``model`` is its pydantic
    schema, with an ``id`` that must equal the file stem); return it with its SHA-256."""
    data, raw = read_family_mapping(path)
    return validate_family(path, data, model), hashlib.sha256(raw).hexdigest()


def _check_depth(path: Path, raw: bytes) -> None:
    depth = 0
    for event in yaml.parse(raw, Loader=_SAFE_LOADER):
        if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                line = event.start_mark.line + 1 if event.start_mark else "?"
                raise FamilyFileError(f"{path}: nested more than {MAX_DEPTH} levels deep (line {line})")
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            depth -= 1


def format_validation_error(exc: ValidationError) -> str:
    """``episodes.1.sessions.0.stage: Input should be 'learn', ...`` (one line per problem)."""
    lines = []
    for error in exc.errors():
        location = ".".join(str(part) for part in error["loc"]) or "(top level)"
        lines.append(f"{location}: {error['msg']}")
    return "; ".join(lines)


def dataset_hash(family_hashes: dict[str, str]) -> str:
    """One hash for the set of families a run used (family id -> file hash)."""
    digest = hashlib.sha256()
    for family_id, file_hash in sorted(family_hashes.items()):
        digest.update(f"{family_id}={file_hash}\n".encode())
    return digest.hexdigest()[:16]
