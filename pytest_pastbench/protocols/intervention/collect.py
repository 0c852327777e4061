"""Collection: an intervention family yields one item per event × profile × model × trial (×
mechanism set), ``families/interventions/analytics.yaml::correlation_method[power-t0]``."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.core.family_files import load_family_model
from pytest_pastbench.plugin.collection import config_variants
from pytest_pastbench.plugin.run_handle import pastbench_run

from ..base import ProtocolFile, ProtocolItem
from .schema import Event, InterventionFamily


def load_intervention_family(path: Path) -> InterventionFamily:
    """Validate an intervention family file; errors name the file and the field path."""
    return load_family_model(path, InterventionFamily)[0]


class InterventionItem(ProtocolItem):
    protocol = "intervention"

    def __init__(self, *, family: InterventionFamily, event: Event, profile: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.family = family
        self.event = event
        self.profile = profile
        for keyword in (event.id, event.kind, profile, family.domain):
            self.extra_keyword_matches.add(keyword)

    def measure(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        from .engine import ItemPlan, run

        bench = pastbench_run(self.config)
        budgets = bench.budgets()
        store_root = Path(tempfile.mkdtemp(prefix="pastbench-intervention-"))
        try:
            options = bench.options
            record, trace = run(
                ItemPlan(
                    self.family, self.event, self.profile, options.intervention_m, options.intervention_tau
                ),
                self.agent(),
                bench.client(self.model, self.trial),
                store_root,
                budgets,
                bench.judge(),
            )
        finally:
            shutil.rmtree(store_root, ignore_errors=True)
        return record, trace

    def base_record(self) -> dict[str, Any]:
        # Also on a blocked item's record, so the summary still places it in its matrix cell.
        return {
            **super().base_record(),
            "domain": self.family.domain,
            "event": self.event.id,
            "event_kind": self.event.kind,
            "profile": self.profile,
            "config_label": pastbench_run(self.config).config_label(self.model, self.mechanisms),
            "family_version": self.family.version,
        }

    def secrets(self) -> list[str]:
        from pytest_pastbench.core.trace import secret_values

        return secret_values([s for q in self.family.queries for s in q.safety.secrets])


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
