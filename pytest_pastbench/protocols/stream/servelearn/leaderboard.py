"""The authors' leaderboard file (their ``docs/leaderboard.csv``) read into per-setting scores, so
a run is shown beside a published row (``--pastbench-stream-reference=FILE``).

Columns: ``model, method``, one per setting ``<domain>_<H|F>_<L1|L2|L3>`` (Pitch has H only),
``avg_h, avg_f`` and ``api_cost_usd``; one row per model x method (Oracle, Blind, RAG, Mem0, ...).
A harness of ours is compared with the row of its method (``HARNESS_METHODS``) and of the run's
model, found in this order:

1. ``--pastbench-stream-reference-model=NAME``: that leaderboard model, whatever the run's;
2. a file that holds one model's rows serves every model of the run;
3. the run's model (and, for an alias of the run, the litellm string it stands for) matched by
   ``leaderboard_name``: the alias table ``LEADERBOARD_ALIASES`` first, then the model's own
   name compared in a normal form (provider prefix and Fireworks' ``accounts/fireworks/models/``
   dropped, ``5p3`` read as ``5.3``, case, spaces and ``_`` ignored), so
   ``fireworks_ai/accounts/fireworks/models/glm-5p3-flash`` is ``GLM-5.3 Flash``.

No row found is said in one line (``missing_row``), never left out silently.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from .scoring import FULLY_SPECIFIED, HIDDEN, SCENARIOS

_CASES = {"H": HIDDEN, "F": FULLY_SPECIFIED}
# Our harnesses that run one of their methods (``own`` is the agent's own store: no published row).
HARNESS_METHODS = {"blind": "Blind", "oracle": "Oracle", "rag": "RAG"}
# A model's own name (normal form, see ``normal_name``) -> the leaderboard's name, for the models
# whose names the normal form alone does not bring together (Anthropic's ids carry "claude-").
LEADERBOARD_ALIASES = {"claude-opus-5": "Opus 5"}
_FIREWORKS = "accounts/fireworks/models/"


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
    """Every row of the file, in file order; a missing column or a cell that is not a number is
    a ``ValueError`` naming the file and the line."""
    with Path(path).open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        columns = set(reader.fieldnames or ())
        needed = ["model", "method", "avg_h", "avg_f"]
        missing = [c for c in needed if c not in columns]
        if missing:
            raise ValueError(f"{path}:1: no column {missing[0]!r} (expected the authors' leaderboard.csv)")
        rows = []
        for line in reader:
            where = f"{path}:{reader.line_num}"
            if None in line or not line["model"] or not line["method"]:
                raise ValueError(f"{where}: expected {len(columns)} cells with a model and a method")
            settings = {
                s: {
                    cat: _number(line.get(setting_column(s, cat)), where) for cat in (HIDDEN, FULLY_SPECIFIED)
                }
                for s in SCENARIOS
            }
            rows.append(
                PublishedRow(
                    model=line["model"],
                    method=line["method"],
                    settings=settings,
                    avg_h=_number(line["avg_h"], where),
                    avg_f=_number(line["avg_f"], where),
                    api_cost_usd=_number(line.get("api_cost_usd"), where),
                )
            )
    if not rows:
        raise ValueError(f"{path}:2: no rows")
    return rows


def check_leaderboard(path: Path) -> None:
    """``--pastbench-stream-reference``: a ``UsageError`` naming the file (and line) when unreadable."""
    try:
        read_leaderboard(path)
    except (OSError, UnicodeDecodeError, csv.Error, ValueError) as exc:
        raise pytest.UsageError(
            f"--pastbench-stream-reference={path}: {exc}; pass a CSV in the columns of "
            "ServeLearnBench's docs/leaderboard.csv"
        ) from None


@cache
def _rows(path: str) -> tuple[PublishedRow, ...]:
    return tuple(read_leaderboard(path))


def normal_name(model: str) -> str:
    """``fireworks_ai/accounts/fireworks/models/glm-5p3-flash`` and ``GLM-5.3 Flash`` -> ``glm-5.3-flash``."""
    name = model.strip().casefold()
    if _FIREWORKS in name:
        name = name.split(_FIREWORKS, 1)[1]
    name = name.rsplit("/", 1)[-1]  # the provider (or any route) before the model's own name
    name = re.sub(r"(?<=\d)p(?=\d)", ".", name)  # Fireworks writes 5.3 as 5p3
    return re.sub(r"[\s_]+", "-", name)


def leaderboard_name(models: list[str], names: list[str]) -> str | None:
    """The leaderboard name (one of ``names``) that one of ``models`` stands for, or None."""
    by_normal = {normal_name(n): n for n in names}
    for model in models:
        key = normal_name(model)
        for candidate in (LEADERBOARD_ALIASES.get(key), by_normal.get(key)):
            if candidate is not None and normal_name(candidate) in by_normal:
                return by_normal[normal_name(candidate)]
    return None


def reference_row(
    path: str | Path, models: str | list[str], harness: str, explicit: str | None = None
) -> PublishedRow | None:
    """The published row of ``harness``'s method for the run's model (``models``: its name and
    what it resolves to) or for ``explicit``, None when the file has none (see the module
    docstring for the order)."""
    method = HARNESS_METHODS.get(harness)
    rows = [r for r in _rows(str(path)) if method is not None and r.method.casefold() == method.casefold()]
    if explicit is not None:
        return next((r for r in rows if normal_name(r.model) == normal_name(explicit)), None)
    if len({r.model for r in _rows(str(path))}) == 1:  # a one-model file serves every model
        return rows[0] if rows else None
    name = leaderboard_name([models] if isinstance(models, str) else models, [r.model for r in rows])
    return next((r for r in rows if r.model == name), None)


def missing_row(path: str | Path, model: str, harness: str, explicit: str | None = None) -> str:
    """The one line said when ``reference_row`` found nothing: what was looked for, what is there."""
    method = HARNESS_METHODS.get(harness, harness)
    models = sorted({r.model for r in _rows(str(path)) if r.method.casefold() == str(method).casefold()})
    wanted = f"model {explicit!r} (--pastbench-stream-reference-model)" if explicit else f"model {model!r}"
    return (
        f"published column: {Path(path).name} has no {method} row for {wanted}; its {method} rows: "
        f"{', '.join(models) or 'none'} (name one with --pastbench-stream-reference-model)"
    )


def published_row(path: str | Path, model: str, method: str) -> PublishedRow:
    """The row of ``model`` and ``method`` (case-insensitive), or a ``KeyError`` listing the choices."""
    rows = read_leaderboard(path)
    for row in rows:
        if row.model.casefold() == model.casefold() and row.method.casefold() == method.casefold():
            return row
    choices = ", ".join(sorted({f"{r.model}/{r.method}" for r in rows}))
    raise KeyError(f"no row {model}/{method} in {path}; rows: {choices}")


def _number(text: str | None, where: str) -> float | None:
    if text is None or not text.strip():
        return None
    try:
        return float(text.replace(",", ""))
    except ValueError:
        raise ValueError(f"{where}: {text!r} is not a number") from None
