"""Plasticity collection: a family file's items (``items.py`` ``PlasticityItem``: model × arm ×
trial × mechanism set), each one lineage of checkpoints 0..C."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_pastbench.core.family_files import read_family_mapping, validate_family
from pytest_pastbench.plugin.collection import item_variants
from pytest_pastbench.plugin.run_handle import pastbench_run

from ..base import ProtocolFile
from .items import PlasticityItem
from .schema import PlasticityFamily


def load_plasticity_family(path: Path) -> PlasticityFamily:
    """Validate a plasticity family file; ``FamilyFileError`` names the file and field path."""
    data, _ = read_family_mapping(path)
    return validate_family(path, data, PlasticityFamily)


def describe(path: Path) -> str:
    """``pastbench validate``: validate one plasticity file and say what it holds."""
    family = load_plasticity_family(path)
    return (
        f"plasticity.{family.id}, {family.environment.type} environment, checkpoints 0..{family.checkpoints}"
    )


def collect(parent: ProtocolFile) -> Iterator[pytest.Item]:
    family = load_plasticity_family(parent.path)
    options = pastbench_run(parent.config).options
    for model, trial, arm, mechanisms, suffix in item_variants(options):
        yield PlasticityItem.from_parent(
            parent,
            name=f"lineage[{suffix}]",
            model=model,
            trial=trial,
            family=family,
            arm=arm,
            mechanisms=mechanisms,
        )
