"""Plasticity checkpoints (docs/design.md §8, the "Agent Plasticity" paper).

A family file (``format: pastbench/plasticity-v1``) is one lineage setting; each model × arm ×
trial is an item that runs checkpoints 0..C (``engine.run``). Arm ``on`` reflects and
keeps validated artifacts; arm ``off`` never reflects (the control: the inventory stays empty).

Modules: ``schema`` (family file), ``collect`` and ``items`` (its items), ``text_env`` and ``chess_env``
(environments), ``artifacts`` (inventory and edit checks, sandboxed), ``toolbox`` (the agent's
tools), ``engine`` (the checkpoint loop), ``metrics`` (P, P_sat, taxonomy), ``report`` (summary,
tables, PNGs).

Imports inside functions: its methods import the package's other modules where they use them,
as the registry loads every protocol object at start, a run only the code of the protocols it
collects (issue 31 item 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..base import GateMetric, HtmlSection, ProtocolBase, ProtocolFile, known_units, tool_names
from .options import OPTIONS

if TYPE_CHECKING:
    from ...results.ablation import AblationSpec
    from ...results.render.figure_kit import FigureSpec

TEMPLATES = Path(__file__).parent / "templates"

__all__ = ["PROTOCOL"]


class PlasticityOfflinePolicy:
    """The plasticity sessions are recognised by their tools (offline_policy.py)."""

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
    format_tag = "pastbench/plasticity-v1"
    markers = {"plasticity": "protocol: plasticity checkpoints"}
    options = OPTIONS
    gate_metric_names = frozenset({"id_end", "ood_end", "p_sat"})
    title = "Plasticity: learning curves over checkpoints"

    # The package's modules load when the run needs them, not when the protocol registers: a run
    # that collects no plasticity family never imports them (issue 31 item 3).
    @property
    def ablation(self) -> AblationSpec:  # type: ignore[override]
        from .report import ABLATION

        return ABLATION

    def items(self, parent: ProtocolFile) -> Iterable[pytest.Item]:
        from .collect import collect

        return collect(parent)

    def summarize(self, records: list[dict[str, Any]], seed: int) -> dict[str, Any]:
        from .metrics import summarize

        return summarize(records, seed)

    def render_section(self, section: dict[str, Any]) -> str:
        from .report import render

        return render(section)

    def html_section(self, summary: Mapping[str, Any]) -> HtmlSection:
        from .report import HTML_HEADERS, html_families

        context = {"headers": HTML_HEADERS, "families": html_families(self.section(summary) or {})}
        return HtmlSection(TEMPLATES / "plasticity.html.j2", context)

    def figures(self) -> Sequence[FigureSpec]:
        from .figures import FIGURES

        return FIGURES

    def write_files(self, summary: dict[str, Any], run_dir: Path) -> list[Path]:
        from .report import write_files

        section = self.section(summary)
        return [] if section is None else write_files(section, run_dir)

    def describe(self, path: Path) -> str:
        from .collect import describe

        return describe(path)

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
        from ...core.stats import stratified_mean  # lazy: asked only of a gate, not at start

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
