"""Collection: an intervention family yields one item (``items.py`` ``InterventionItem``) per
event × profile × model × trial (× mechanism set),
``families/interventions/analytics.yaml::correlation_method[power-t0]``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_pastbench.core.family_files import load_family_model
from pytest_pastbench.plugin.collection import config_variants
from pytest_pastbench.plugin.run_handle import pastbench_run

from ..base import ProtocolFile
from .items import InterventionItem
from .schema import InterventionFamily


def load_intervention_family(path: Path) -> InterventionFamily:
    """Validate an intervention family file; errors name the file and the field path."""
    return load_family_model(path, InterventionFamily)[0]


def collect(parent: ProtocolFile) -> Iterator[pytest.Item]:
    family = load_intervention_family(parent.path)
    options = pastbench_run(parent.config).options
    for event in family.events:
        for profile in family.profiles:
            for model, trial, mechanisms, parts in config_variants(options):
                yield InterventionItem.from_parent(
                    parent,
                    name=f"{event.id}[{'-'.join([profile, *parts])}]",
                    model=model,
                    trial=trial,
                    mechanisms=mechanisms,
                    family=family,
                    event=event,
                    profile=profile,
                )
