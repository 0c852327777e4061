"""The authors' leaderboard file (their ``leaderboard.csv``) read into per-setting scores, so a run
can be shown beside a published row (groundwork for ``--pastbench-stream-reference``).

Columns: ``model, method``, one per setting ``<domain>_<H|F>_<L1|L2|L3>`` (Pitch has H only),
``avg_h, avg_f`` and ``api_cost_usd``.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from .scoring import FULLY_SPECIFIED, HIDDEN, SCENARIOS

_CASES = {"H": HIDDEN, "F": FULLY_SPECIFIED}


@dataclass(frozen=True)
class PublishedRow:
    model: str
    method: str
    settings: dict[str, dict[str, float | None]]  # scenario -> {hidden, fully_specified}
    avg_h: float | None
    avg_f: float | None
    api_cost_usd: float | None


def setting_column(scenario: str, category: str) -> str:
    """``retail_l2`` + hidden -> ``retail_H_L2``."""
    domain, tier = scenario.rsplit("_", 1)
    case = next(k for k, v in _CASES.items() if v == category)
    return f"{domain}_{case}_{tier.upper()}"


def read_leaderboard(path: str | Path) -> list[PublishedRow]:
    """Every row of the file, in file order; a missing column is a ``ValueError`` naming it."""
    with Path(path).open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        columns = set(reader.fieldnames or ())
        needed = ["model", "method", "avg_h", "avg_f"]
        missing = [c for c in needed if c not in columns]
        if missing:
            raise ValueError(f"{path}: no column {missing[0]!r} (expected the authors' leaderboard.csv)")
        rows = []
        for line in reader:
            settings = {
                s: {cat: _number(line.get(setting_column(s, cat))) for cat in (HIDDEN, FULLY_SPECIFIED)}
                for s in SCENARIOS
            }
            rows.append(
                PublishedRow(
                    model=line["model"],
                    method=line["method"],
                    settings=settings,
                    avg_h=_number(line["avg_h"]),
                    avg_f=_number(line["avg_f"]),
                    api_cost_usd=_number(line.get("api_cost_usd")),
                )
            )
    return rows


def published_row(path: str | Path, model: str, method: str) -> PublishedRow:
    """The row of ``model`` and ``method`` (case-insensitive), or a ``KeyError`` listing the choices."""
    rows = read_leaderboard(path)
    for row in rows:
        if row.model.casefold() == model.casefold() and row.method.casefold() == method.casefold():
            return row
    choices = ", ".join(sorted({f"{r.model}/{r.method}" for r in rows}))
    raise KeyError(f"no row {model}/{method} in {path}; rows: {choices}")


def _number(text: str | None) -> float | None:
    if text is None or not text.strip():
        return None
    return float(text.replace(",", ""))
