"""User-conditioned temporal interventions (DESIGN §8, the "Toward User-Conditioned Evaluation"
paper): one change event of a versioned domain, replayed over several user-state profiles.

Modules: ``schema`` (the family file), ``graph`` (event–dependency graph), ``domain`` (the
versioned service and the agent's tools), ``engine`` (one item: pre phase, event, post phase),
``scoring`` (pass/fail of a query), ``fallback`` (γ's fields), ``metrics`` (α_L, γ, σ, κ, ρ),
``items`` (collection), ``report`` (summary section and terminal matrix).
"""

from __future__ import annotations

from pathlib import Path

from .items import collect, load_intervention_family
from .report import render, summarize

__all__ = ["collect", "describe", "render", "summarize"]


def describe(path: Path) -> str:
    """``pastbench validate``: validate one file and say what it holds."""
    family = load_intervention_family(path)
    return f"{family.qualified_id}, {len(family.events)} events × {len(family.profiles)} profiles"
