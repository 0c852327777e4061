"""A plasticity item: one lineage (checkpoints 0..C of one model, agent, arm and trial), how it
is measured (``PlasticityItem.measure`` runs it on ``engine.py``'s ``run``) and the numbers its
record carries. ``collect.py`` yields them."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.plugin.run_handle import pastbench_run

from ...errors import EngineMissing
from ..base import ProtocolItem
from .schema import PlasticityFamily


class PlasticityItem(ProtocolItem):
    """One lineage: checkpoints 0..C of one model, agent, arm and trial."""

    protocol = "plasticity"

    def __init__(self, *, family: PlasticityFamily, arm: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.family = family
        self.arm = arm
        self.add_marker(arm)
        self.extra_keyword_matches.add(arm)

    def measure(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        # Lazy: collection imports this module; the engine and all it loads only when an item runs.
        from .engine import run
        from .metrics import lineage_metrics

        bench = pastbench_run(self.config)
        options = bench.options
        budgets = bench.budgets()
        root = Path(tempfile.mkdtemp(prefix="pastbench-plasticity-"))
        try:
            result = run(
                self.family,
                self.arm,
                self.agent(),
                bench.client(self.model, self.trial),
                root,
                budgets,
                checkpoints=options.plasticity_checkpoints,
            )
        except EngineMissing as exc:
            # An optional engine that is not installed skips the chess items with the fix, so a
            # newcomer's bare `pytest` stays green; it is never measured as a score.
            pytest.skip(str(exc))
        finally:
            shutil.rmtree(root, ignore_errors=True)
        record = result.record
        metrics = lineage_metrics(record["checkpoints"])
        record["headline"] = headline(record["checkpoints"], metrics)
        record["metrics"] = headline_metrics(record, metrics)
        return record, result.trace


def headline(rows: list[dict[str, Any]], metrics: dict[str, Any]) -> str:
    first, last = rows[0]["scores"], rows[-1]["scores"]
    p_sat = metrics["p_sat"]["usd_per_1000"]
    unit = "/$1k"
    if p_sat["value"] is None:
        p_sat, unit = metrics["p_sat"]["per_1000_tokens"], "/1k tok"
    value = "—" if p_sat["value"] is None else f"{p_sat['value']:.2f}{unit}"
    return f"ID {first['id']:.0f}→{last['id']:.0f} OOD {first['ood']:.0f}→{last['ood']:.0f} P_sat {value}"


def headline_metrics(record: dict[str, Any], metrics: dict[str, Any]) -> dict[str, float]:
    """The record's numbers for JUnit and quick reads (None values are left out)."""
    rows = record["checkpoints"]
    values: dict[str, Any] = {
        "id_start": rows[0]["scores"]["id"],
        "id_end": rows[-1]["scores"]["id"],
        "ood_start": rows[0]["scores"]["ood"],
        "ood_end": rows[-1]["scores"]["ood"],
        "learning_usd": record["learning_usage"]["usd"],
        "learning_tokens": record["learning_usage"]["tokens"],
        "eval_tokens": record["eval_usage"]["tokens"],
        "p_sat_usd_per_1000": metrics["p_sat"]["usd_per_1000"]["value"],
        "p_sat_per_1000_tokens": metrics["p_sat"]["per_1000_tokens"]["value"],
        "rejected_edits": len(record["rejected_edits"]),
    }
    for split, counts in metrics["taxonomy"].items():
        values[f"reuse_rate_{split}"] = counts["reuse_rate"]
        values[f"failed_{split}"] = counts["failed"]
    return {k: v for k, v in values.items() if v is not None}
