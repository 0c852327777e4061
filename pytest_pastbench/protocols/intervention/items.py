"""An intervention item: one event × profile × model × trial (× mechanism set) of a family, and
how it is measured (``InterventionItem.measure`` runs it on ``engine.py``'s ``run``).
``collect.py`` yields them."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from pytest_pastbench.plugin.run_handle import pastbench_run

from ..base import ProtocolItem
from .schema import Event, InterventionFamily


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
        # Lazy: collection imports this module; the engine and all it loads only when an item runs.
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
        # Lazy: redaction is asked when an item reports, not when it is collected.
        from pytest_pastbench.core.trace import secret_values

        return secret_values([s for q in self.family.queries for s in q.safety.secrets])
