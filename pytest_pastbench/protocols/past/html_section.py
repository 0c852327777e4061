"""PAST's tables on the HTML report page (``templates/past.html.j2``): the summary table of every
config and each config's families, capabilities and overall, as the terminal shows them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...results.render.table import (
    HURT_NOTE,
    HURT_TEXT,
    ci_basis,
    config_notes,
    format_delta,
    format_number,
    format_violations,
    memory_hurt,
    row_marks,
)
from ..base import HtmlSection
from .components import COMPONENTS

TEMPLATE = Path(__file__).parent / "templates" / "past.html.j2"
HURT = {"note": HURT_NOTE, "text": HURT_TEXT}


def configs(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    return sorted(summary.get("configs") or [], key=lambda c: str(c.get("label", "")))


def scope(entry: Mapping[str, Any]) -> dict[str, Any]:
    """One scope's cells as text (the template lays them out)."""
    delta = entry.get("delta")
    number = isinstance(delta, int | float) and not isinstance(delta, bool)
    return {
        "n": str(entry.get("n_episodes", 0)),
        "s_on": format_number(entry.get("s_on")),
        "s_off": format_number(entry.get("s_off")),
        "delta": format_delta(entry),
        "delta_class": "pos" if number and delta > 0 else "neg" if number and delta < 0 else "",
        # Δ's whole CI below 0: said in words, not only in red (issue 29).
        "hurt": HURT if memory_hurt(entry) else None,
        "delta_c": format_number(entry.get("delta_c"), signed=True),
        "delta_causal": format_delta(entry, "delta_causal"),
        "mech": format_number(entry.get("mech")),
        "violations": format_violations(entry, ("on", "off", "ablated")),
        "blocked": str(entry.get("infra_blocked", 0)),
    }


def ci_note(shown: list[dict[str, Any]]) -> str:
    """The CIs' basis as the terminal says it (table.ci_basis): one sentence when every config
    shares it, else one per config."""
    bases = {str(c.get("label")): ci_basis(c.get("overall") or {}) for c in shown}
    known = {label: basis for label, basis in bases.items() if basis}
    if not known:
        return "95% CIs: paired bootstrap"
    if len(set(known.values())) == 1:
        return f"95% CIs: {next(iter(known.values()))}"
    return "95% CIs: " + "; ".join(f"{label}: {basis}" for label, basis in sorted(known.items()))


def summary_row(config: Mapping[str, Any]) -> dict[str, Any]:
    overall = config.get("overall") or {}
    cost = overall.get("cost_usd")
    return {
        "label": config.get("label"),
        "model": config.get("model"),
        "agent": config.get("agent"),
        "mechanisms": ", ".join(config.get("mechanisms") or []) or "—",
        "scope": scope(overall),
        "cost": "—" if cost is None else f"{cost:.4f}",
        "tokens": str(overall.get("tokens", 0)),
    }


def config_table(config: Mapping[str, Any]) -> dict[str, Any]:
    """A config's rows: its families (with their mechanism components), then its capabilities and
    overall; and the footnotes of its marks († fallback rubrics, ‡ undecided text checks)."""
    families = sorted(
        (config.get("families") or {}).items(), key=lambda kv: (kv[1].get("capability", ""), kv[0])
    )
    rows = [
        {
            "label": fid + row_marks(entry, hurt=False),
            "capability": entry.get("capability"),
            "hurt": memory_hurt(entry),
            "scope": scope(entry),
            "components": [format_number((entry.get("mech_components") or {}).get(c)) for c in COMPONENTS],
        }
        for fid, entry in families
    ]
    overall = config.get("overall") or {}
    aggregates = [
        {"label": f"[{cap}]{row_marks(entry)}", "capability": cap, "scope": scope(entry)}
        for cap, entry in sorted((config.get("capabilities") or {}).items())
    ]
    aggregates.append(
        {"label": f"[overall]{row_marks(overall)}", "capability": "all", "scope": scope(overall)}
    )
    return {
        "label": config.get("label"),
        "families": rows,
        "aggregates": aggregates,
        "notes": [line for line in config_notes(config) if line.startswith(("†", "‡"))],
    }


def past_section(summary: Mapping[str, Any]) -> HtmlSection:
    shown = configs(summary)
    return HtmlSection(
        TEMPLATE,
        {
            "ci_note": ci_note(shown),
            "summary_rows": [summary_row(c) for c in shown],
            "config_tables": [config_table(c) for c in shown],
            "components": COMPONENTS,
        },
    )
