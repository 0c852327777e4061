"""User-conditioned temporal interventions (docs/design.md §8, the "Toward User-Conditioned Evaluation"
paper): one change event of a versioned domain, replayed over several user-state profiles.

Modules: ``schema`` (the family file), ``graph`` (event–dependency graph), ``domain`` (the
versioned service and the agent's tools), ``engine`` (one item: pre phase, event, post phase),
``scoring`` (pass/fail of a query), ``fallback`` (γ's fields), ``metrics`` (α_L, γ, σ, κ, ρ),
``items`` (collection), ``report`` (summary section and terminal matrix).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..base import GateMetric, ProtocolBase, tool_names
from .collect import collect, load_intervention_family
from .report import ABLATION, render, summarize
from .schema import FORMAT

__all__ = ["PROTOCOL", "collect", "describe", "render", "summarize"]


def describe(path: Path) -> str:
    """``pastbench validate``: validate one file and say what it holds."""
    family = load_intervention_family(path)
    return f"{family.qualified_id}, {len(family.events)} events × {len(family.profiles)} profiles"


class InterventionOfflinePolicy:
    """An intervention domain announces itself with its service-info tool."""

    catch_all = False

    def handles(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> bool:
        from .offline_policy import INTERVENTION_MARKER_TOOL

        return INTERVENTION_MARKER_TOOL in tool_names(tools)

    def decide(
        self, policy: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> dict[str, Any]:
        from .offline_policy import decide_intervention

        return decide_intervention(policy, messages, tools)


class InterventionProtocol(ProtocolBase):
    name = "intervention"
    format_tag = FORMAT
    markers = {"intervention": "protocol: user-conditioned temporal interventions"}
    options = ("mechanisms", "ablation")  # its profiles are a fixture's parameters, not an option
    gate_metric_names = frozenset({"rho", "gamma", "sigma_ratio", "kappa", "alpha_l"})
    ablation = ABLATION

    # The module's functions are the protocol's (its items, summary section and table).
    items = staticmethod(collect)
    summarize = staticmethod(summarize)
    render_section = staticmethod(render)
    describe = staticmethod(describe)

    def offline_policy(self) -> InterventionOfflinePolicy:
        return InterventionOfflinePolicy()

    def gate_metrics(self, summary: Mapping[str, Any]) -> list[GateMetric]:
        """Per config × ``family/event/profile``: ρ (with its Wilson CI; lower is better), γ, σ's
        ratio, κ and α_L (lower is better: fewer rounds to re-learn)."""
        metrics = []
        for config in (self.section(summary) or {}).get("configs", []):
            for family, events in sorted(config.get("matrix", {}).items()):
                for event, entry in sorted(events.items()):
                    for profile, cell in sorted(entry.get("profiles", {}).items()):
                        scope = f"{family}/{event}/{profile}"
                        rho = cell.get("rho") or {}
                        values = [
                            ("rho", rho.get("rho"), tuple(rho["ci"]) if rho.get("ci") else None, False),
                            ("gamma", (cell.get("gamma") or {}).get("gamma"), None, True),
                            ("sigma_ratio", (cell.get("sigma") or {}).get("ratio"), None, True),
                            ("kappa", (cell.get("kappa") or {}).get("kappa"), None, True),
                            ("alpha_l", cell.get("alpha_l"), None, False),
                        ]
                        metrics += [
                            GateMetric(self.name, config["label"], scope, name, value, ci, higher)
                            for name, value, ci, higher in values
                        ]
        return metrics


PROTOCOL = InterventionProtocol()
