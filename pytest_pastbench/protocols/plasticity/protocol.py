"""Plasticity checkpoints (docs/design.md §8, the "Agent Plasticity" paper).

A family file (``format: pastbench/plasticity-v1``) is one lineage setting; each model × arm ×
trial is an item that runs checkpoints 0..C (``engine.run_lineage``). Arm ``on`` reflects and
keeps validated artifacts; arm ``off`` never reflects (the control: the inventory stays empty).

Modules: ``schema`` (family file), ``text_env`` and ``chess_env`` (environments), ``artifacts``
(inventory and edit checks, sandboxed), ``toolbox`` (the agent's tools), ``engine`` (the
checkpoint loop), ``metrics`` (P, P_sat, taxonomy), ``report`` (summary, tables, PNGs).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.core.family_files import read_family_mapping, validate_family
from pytest_pastbench.core.stats import stratified_mean
from pytest_pastbench.plugin.collection import item_variants
from pytest_pastbench.plugin.run_handle import pastbench_run

from ..base import GateMetric, ProtocolBase, ProtocolFile, ProtocolItem, known_units, tool_names
from .report import ABLATION, render, summarize, write_files
from .schema import FORMAT_TAG, PlasticityFamily

__all__ = [
    "PROTOCOL",
    "collect",
    "describe",
    "summarize",
    "render",
    "write_files",
    "load_plasticity_family",
    "PlasticityItem",
]


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
        from ...errors import EngineMissing
        from .engine import run_lineage
        from .metrics import lineage_metrics

        session = pastbench_run(self.config)
        options = session.options
        budgets = session.budgets()
        root = Path(tempfile.mkdtemp(prefix="pastbench-plasticity-"))
        try:
            result = run_lineage(
                self.family,
                self.arm,
                self.agent(),
                session.client(self.model, self.trial),
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


class PlasticityOfflinePolicy:
    """The plasticity sessions are recognised by their tools (offline/plasticity_policy.py)."""

    catch_all = False

    def handles(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> bool:
        from . import offline_policy as plasticity_policy

        return plasticity_policy.handles(tool_names(tools))

    def decide(
        self, policy: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> dict[str, Any]:
        from . import offline_policy as plasticity_policy

        return plasticity_policy.decide(policy, messages, tool_names(tools))


class PlasticityProtocol(ProtocolBase):
    name = "plasticity"
    format_tag = FORMAT_TAG
    markers = {"plasticity": "protocol: plasticity checkpoints"}
    options = ("plasticity-checkpoints", "persistence", "mechanisms", "ablation")
    gate_metric_names = frozenset({"id_end", "ood_end", "p_sat"})
    ablation = ABLATION

    # The module's functions are the protocol's (its items, summary section and table).
    items = staticmethod(collect)
    summarize = staticmethod(summarize)
    render_section = staticmethod(render)

    def write_files(self, summary: dict[str, Any], run_dir: Path) -> list[Path]:
        section = self.section(summary)
        return [] if section is None else write_files(section, run_dir)

    describe = staticmethod(describe)

    def offline_policy(self) -> PlasticityOfflinePolicy:
        return PlasticityOfflinePolicy()

    def gate_metrics(self, summary: Mapping[str, Any]) -> list[GateMetric]:
        """Per config (``agent@model[arm]``, trials pooled): the held-out ID and OOD scores
        (points) at the last checkpoint and P_sat (points per 1,000 tokens), per family
        (``plasticity.<id>``) and overall (``plasticity``, the mean over families); the trials
        are the units (``gate_units`` gives the held-out episodes instead, from the records)."""
        per_config: dict[str, dict[str, dict[str, dict[str, dict[str, float]]]]] = {}
        for family, entry in sorted(((self.section(summary) or {}).get("families") or {}).items()):
            for line in entry.get("lineages", {}).values():
                label = f"{line['agent']}@{line['model']}[{line['arm']}]"
                metrics = per_config.setdefault(label, {name: {} for name in _METRICS})
                last = (line.get("scores") or [{}])[-1]
                for split in ("id", "ood"):
                    if last.get(split) is not None:
                        metrics[f"{split}_end"].setdefault(family, {})[f"t{line['trial']}"] = float(
                            last[split]
                        )
                p_sat = ((line.get("p_sat") or {}).get("per_1000_tokens") or {}).get("value")
                if p_sat is not None:
                    metrics["p_sat"].setdefault(family, {})[f"t{line['trial']}"] = float(p_sat)
        result = []
        for label, metrics in sorted(per_config.items()):
            for name, families in metrics.items():
                overall = known_units(families)
                value = None if overall is None else stratified_mean(overall)
                result.append(GateMetric(self.name, label, self.name, name, value, units=overall))
                for family in sorted(families):
                    units = known_units({family: families[family]})
                    value = None if units is None else stratified_mean(units)
                    result.append(GateMetric(self.name, label, family, name, value, units=units))
        return result

    def gate_units(
        self, records: list[dict[str, Any]]
    ) -> dict[tuple[str, str, str], dict[str, dict[str, float]]]:
        """(config, scope, metric) -> units: each trial's held-out episodes at the last
        checkpoint (``t<trial>/<episode id>``), per family, for ``id_end`` and ``ood_end``."""
        units: dict[tuple[str, str, str], dict[str, dict[str, float]]] = {}
        for record in records:
            rows = record.get("checkpoints") or []
            if record.get("infra_blocked") or not rows:
                continue
            label = f"{record['agent']}@{record['model']}[{record['arm']}]"
            for split, scores in (rows[-1].get("episode_scores") or {}).items():
                if split not in ("id", "ood"):
                    continue
                values = {f"t{record['trial']}/{e}": float(v) for e, v in scores.items()}
                for scope in (self.name, record["family"]):
                    units.setdefault((label, scope, f"{split}_end"), {}).setdefault(
                        record["family"], {}
                    ).update(values)
        return {key: kept for key, value in units.items() if (kept := known_units(value))}


# Gate metrics: the held-out scores at the last checkpoint and the saturating plasticity.
_METRICS = ("id_end", "ood_end", "p_sat")


PROTOCOL = PlasticityProtocol()
