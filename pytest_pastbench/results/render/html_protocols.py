"""The summary tables of the stream, intervention and plasticity sections of the report page,
from their ``sequence_summary.json`` sections (the same numbers as the terminal tables)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .html_kit import esc, text_table


def stream_tables(section: Mapping[str, Any]) -> str:
    from pytest_pastbench.protocols.stream.report import tables

    return "".join(
        f"<p>{esc(title[:1].upper() + title[1:])}.</p>"
        + text_table(headers, rows, table_id="stream-summary-table" if index == 0 else "")
        for index, (title, headers, rows) in enumerate(tables(dict(section)))
    )


def intervention_tables(section: Mapping[str, Any]) -> str:
    from pytest_pastbench.protocols.intervention.report import HEADERS, matrix_row

    blocks = []
    for index, config in enumerate(section.get("configs") or []):
        rows = [
            matrix_row(f"{family.removeprefix('intervention.')}/{event}", entry.get("kind"), profile, cell)
            for family, events in sorted((config.get("matrix") or {}).items())
            for event, entry in sorted(events.items())
            for profile, cell in (entry.get("profiles") or {}).items()
        ]
        table_id = "intervention-summary-table" if index == 0 else ""
        blocks.append(
            f"<h3>{esc(config.get('label'))}</h3>" + text_table(HEADERS, rows, table_id=table_id, labels=3)
        )
    definitions = section.get("definitions") or {}
    if definitions:
        items = "".join(f"<li><code>{esc(k)}</code>: {esc(v)}</li>" for k, v in sorted(definitions.items()))
        blocks.append(
            f'<details><summary>metric definitions</summary><ul class="muted">{items}</ul></details>'
        )
    return "".join(blocks)


def _curve(points: list[Mapping[str, Any]]) -> str:
    return " ".join(f"{p['y']:.0f}" for p in points if isinstance(p.get("y"), int | float)) or "—"


def plasticity_tables(section: Mapping[str, Any]) -> str:
    blocks = []
    for index, (family_id, family) in enumerate(sorted((section.get("families") or {}).items())):
        rows = []
        for label, entry in (family.get("lineages") or {}).items():
            curves = entry.get("curves") or {}
            tokens = (entry.get("learning_cost") or {}).get("tokens") or []
            rows.append(
                [
                    label,
                    str(entry.get("environment", "")),
                    _curve(curves.get("id") or []),
                    _curve(curves.get("ood") or []),
                    _curve(curves.get("train") or []),
                    str(tokens[-1]) if tokens else "—",
                    str(entry.get("rejected_edits", 0)),
                ]
            )
        headers = (
            "lineage",
            "environment",
            "held-out ID by checkpoint",
            "held-out OOD",
            "train",
            "tokens",
            "rejected edits",
        )
        table_id = "plasticity-summary-table" if index == 0 else ""
        blocked = (
            f'<p class="muted">blocked lineages: {family["blocked"]}</p>' if family.get("blocked") else ""
        )
        from pytest_pastbench.protocols.plasticity.report import flat_notes

        notes = "".join(
            f'<p class="muted">note: {esc(n)}</p>' for n in flat_notes(family.get("lineages") or {})
        )
        blocks.append(
            f"<h3>{esc(family_id)} (points 0-100)</h3>"
            + text_table(headers, rows, table_id=table_id)
            + blocked
            + notes
        )
    return "".join(blocks)


SECTION_TABLES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "intervention": intervention_tables,
    "plasticity": plasticity_tables,
    "stream": stream_tables,
}
TITLES = {
    "past": "PAST: persistence on/off (Δ, Mech)",
    "intervention": "Interventions: α_L, γ, σ, κ, ρ",
    "plasticity": "Plasticity: learning curves over checkpoints",
    "stream": "Streams: reward under changing rules",
}
