"""User-conditioned temporal interventions (docs/design.md §8, the "Toward User-Conditioned Evaluation"
paper): one change event of a versioned domain, replayed over several user-state profiles.

Modules: ``schema`` (the family file), ``graph`` (event–dependency graph), ``service`` (the
versioned domain), ``toolbox`` (the agent's tools), ``collect`` (a file's items), ``items`` (the
item and its measure), ``engine`` (one item: pre phase, event, post phase), ``scoring``
(pass/fail of a query), ``fallback`` (γ's fields), ``metrics`` (α_L, γ, σ, κ, ρ), ``report``
(summary section and terminal matrix).
Imports inside functions: its methods import the package's other modules where they use them,
as the registry loads every protocol object at start, a run only the code of the protocols it
collects (issue 31 item 3).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
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


class InterventionOfflinePolicy:
    """An intervention domain announces itself with its service-info tool."""

    catch_all = False

    def handles(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> bool:
        from .offline_policy import INTERVENTION_MARKER_TOOL

        return INTERVENTION_MARKER_TOOL in tool_names(tools)

    def decide(
        self, policy: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> dict[str, Any]:
        from .offline_policy import decide

        return decide(policy, messages, tools)


class InterventionProtocol(ProtocolBase):
    name = "intervention"
    format_tag = "pastbench/intervention-v1"
    markers = {"intervention": "protocol: user-conditioned temporal interventions"}
    # Its profiles are a fixture's parameters (pastbench_profile), not an option.
    options = OPTIONS
    gate_metric_names = frozenset({"alpha_l", "gamma", "sigma_ratio", "kappa", "rho"})
    title = "Interventions: α_L, γ, σ, κ, ρ"

    # The package's modules load when the run needs them, not when the protocol registers: a run
    # that collects no intervention family never imports them (issue 31 item 3).
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
        from .report import HEADERS, matrix_row

        section = self.section(summary) or {}
        configs = [
            {
                "label": config.get("label"),
                "rows": [
                    matrix_row(
                        f"{family.removeprefix('intervention.')}/{event}", entry.get("kind"), profile, cell
                    )
                    for family, events in sorted((config.get("matrix") or {}).items())
                    for event, entry in sorted(events.items())
                    for profile, cell in (entry.get("profiles") or {}).items()
                ],
            }
            for config in section.get("configs") or []
        ]
        definitions = sorted((section.get("definitions") or {}).items())
        return HtmlSection(
            TEMPLATES / "intervention.html.j2",
            {"headers": HEADERS, "configs": configs, "definitions": definitions},
        )

    def figures(self) -> Sequence[FigureSpec]:
        from .figures import FIGURES

        return FIGURES

    def describe(self, path: Path) -> str:
        """``pastbench validate``: validate one file and say what it holds."""
        from .collect import load_intervention_family

        family = load_intervention_family(path)
        return f"{family.qualified_id}, {len(family.events)} events × {len(family.profiles)} profiles"

    def offline_policy(self) -> InterventionOfflinePolicy:
        return InterventionOfflinePolicy()

    def gate_metrics(self, summary: Mapping[str, Any]) -> list[GateMetric]:
        """Per config: the five metrics overall (scope ``intervention``), per family
        (``intervention.analytics``) and per cell (``intervention.analytics/<event>/<profile>``).
        Overall and family values are means over the event × profile cells (the units a gate's
        noise estimate resamples, per family); a cell's ρ carries its Wilson interval and its
        α_L its trials as units."""
        metrics = []
        for config in (self.section(summary) or {}).get("configs", []):
            label = config["label"]
            cells = {
                family: {
                    f"{event}/{profile}": cell
                    for event, entry in sorted(events.items())
                    for profile, cell in sorted(entry.get("profiles", {}).items())
                }
                for family, events in sorted(config.get("matrix", {}).items())
            }
            for name, (value_of, higher) in _METRICS.items():
                per_family = {
                    family: {key: v for key, cell in entries.items() if (v := value_of(cell)) is not None}
                    for family, entries in cells.items()
                }
                overall = known_units(per_family)
                metrics.append(
                    GateMetric(self.name, label, self.name, name, _mean_of(overall), None, higher, overall)
                )
                for family, values in per_family.items():
                    units = known_units({family: values})
                    metrics.append(
                        GateMetric(self.name, label, family, name, _mean_of(units), None, higher, units)
                    )
                for family, entries in cells.items():
                    for key, cell in entries.items():
                        rho = cell.get("rho") or {}
                        ci = tuple(rho["ci"]) if name == "rho" and rho.get("ci") else None
                        trials = cell.get("alpha_l_trials") if name == "alpha_l" else None
                        units = {"trials": {f"t{i}": v for i, v in enumerate(trials)}} if trials else None
                        metrics.append(
                            GateMetric(
                                self.name, label, f"{family}/{key}", name, value_of(cell), ci, higher, units
                            )
                        )
        return metrics


def _mean_of(units: Mapping[str, Mapping[str, float]] | None) -> float | None:
    from ...core.stats import stratified_mean  # lazy: asked only of a gate, not at start

    return None if units is None else stratified_mean(units)


# name -> (its value in a matrix cell, higher is better). α_L counts rounds until the agent
# passes m in a row again and ρ the share of solved tasks that broke: lower is better for both.
_METRICS: dict[str, tuple[Callable[[Mapping[str, Any]], float | None], bool]] = {
    "alpha_l": (lambda cell: cell.get("alpha_l"), False),
    "gamma": (lambda cell: (cell.get("gamma") or {}).get("gamma"), True),
    "sigma_ratio": (lambda cell: (cell.get("sigma") or {}).get("ratio"), True),
    "kappa": (lambda cell: (cell.get("kappa") or {}).get("kappa"), True),
    "rho": (lambda cell: (cell.get("rho") or {}).get("rho"), False),
}


PROTOCOL = InterventionProtocol()
