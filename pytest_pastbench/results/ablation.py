"""The mechanism ablation of a §8 protocol (stream, intervention, plasticity): one row per
mechanism set (and group, e.g. a stream's harness), its headline score, the paired difference
from the set without mechanisms, what the mechanisms did, and why one could not apply.

A protocol declares an ``AblationSpec`` (its score and how items group); the rest is generic.
Items pair with their twin of the base set by node id less the set's label (collection puts the
label last: ``own[t0-E1]`` ↔ ``own[t0-base]``). Whether a mechanism could act comes from the
items' ``mechanism_use`` (the runtime's ``cannot_apply`` events), never from the protocol's name.
PAST has its own table (protocols/past/metrics.py ``ablation_rows``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

from ..agents.mechanisms import MECHANISMS, mechanism_set_label
from ..core.stats import mean, paired_bootstrap_ci
from .render.table import format_number

Interval = tuple[float, float] | None


def _no_group(record: Mapping[str, Any]) -> str:
    return ""


@dataclass(frozen=True)
class AblationSpec:
    """What a protocol's ablation rows measure.

    ``item_score``: an item's headline number (None: not scored). ``pooled``: the protocol's own
    figure over a row's items, with its CI when it has one (default: the mean of the item
    scores, no CI). ``group``: rows are per group × set (e.g. a stream's harness, a lineage's arm).
    ``tokens``: the model tokens an item spent (what the mechanisms cost).
    """

    score: str
    item_score: Callable[[Mapping[str, Any]], float | None]
    tokens: Callable[[Mapping[str, Any]], float | None]
    higher_is_better: bool = True
    group: Callable[[Mapping[str, Any]], str] = _no_group
    group_name: str = ""
    pooled: Callable[[list[Mapping[str, Any]]], tuple[float | None, Interval]] | None = None


def ablation_rows(spec: AblationSpec, records: list[Mapping[str, Any]], seed: int) -> list[dict[str, Any]]:
    """One row per group × mechanism set; empty unless the records hold two sets or more."""
    measured = [r for r in records if "mechanisms" in r and not r.get("infra_blocked")]
    sets = {tuple(r["mechanisms"]) for r in measured}
    if len(sets) < 2:
        return []
    cells: dict[tuple[str, tuple[str, ...]], list[Mapping[str, Any]]] = defaultdict(list)
    for record in measured:
        cells[(spec.group(record), tuple(record["mechanisms"]))].append(record)
    rows = []
    for group, mechanisms in sorted(cells, key=lambda k: (k[0], len(k[1]), k[1])):
        items = cells[(group, mechanisms)]
        base = {_pair(r): r for r in cells.get((group, ()), [])}
        pairs = [
            (score, before)
            for r in items
            if (twin := base.get(_pair(r))) is not None
            and (score := spec.item_score(r)) is not None
            and (before := spec.item_score(twin)) is not None
        ]
        value, ci = spec.pooled(items) if spec.pooled else (_mean_score(spec, items), None)
        delta = mean(a - b for a, b in pairs) if mechanisms else None
        rows.append(
            {
                "group": group,
                "mechanisms": list(mechanisms),
                "n": len(items),
                "score": _rounded(value),
                "score_ci": _rounded_pair(ci),
                "delta": _rounded(delta),
                "delta_ci": _rounded_pair(paired_bootstrap_ci({"items": pairs}, seed))
                if mechanisms and len(pairs) >= 2
                else None,
                "n_pairs": len(pairs),
                "tokens_per_item": _rounded(mean(t for r in items if (t := spec.tokens(r)) is not None)),
                **_use(items, mechanisms),
            }
        )
    return rows


def _mean_score(spec: AblationSpec, items: list[Mapping[str, Any]]) -> float | None:
    return mean(s for r in items if (s := spec.item_score(r)) is not None)


def _pair(record: Mapping[str, Any]) -> str:
    """The node id less the mechanism set's label: the same item under another set."""
    nodeid = str(record["nodeid"])
    label = mechanism_set_label(list(record["mechanisms"]))
    return nodeid.removesuffix(f"-{label}]") + "]" if nodeid.endswith(f"-{label}]") else nodeid


def _use(items: list[Mapping[str, Any]], mechanisms: tuple[str, ...]) -> dict[str, Any]:
    """Sessions, per mechanism of the set the sessions it acted in, and why it could not apply."""
    uses = [r.get("mechanism_use") or {} for r in items]
    sessions = sum(u.get("sessions", 0) for u in uses)
    acted = {m: sum((u.get("acted") or {}).get(m, 0) for u in uses) for m in mechanisms}
    cannot: dict[str, dict[str, Any]] = {}
    for name in mechanisms:
        blocked = [(u.get("cannot_apply") or {}).get(name) for u in uses]
        count = sum(b["sessions"] for b in blocked if b)
        if count:
            why = next(b["why"] for b in blocked if b)
            cannot[name] = {"sessions": count, "why": why}
    return {"sessions": sessions, "acted": acted, "cannot_apply": cannot}


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _rounded_pair(ci: Interval) -> list[float] | None:
    return None if ci is None else [round(ci[0], 4), round(ci[1], 4)]


def notes(row: Mapping[str, Any]) -> str:
    """``E1 cannot apply: no tool … irreversible; E5 cannot apply in 4/12 sessions: …`` ("—": none);
    mechanisms held back for the same reason share one phrase."""
    reasons: dict[tuple[str, str], list[str]] = {}
    for name, info in sorted((row.get("cannot_apply") or {}).items()):
        everywhere = info["sessions"] >= row["sessions"]
        where = "" if everywhere else f" in {info['sessions']}/{row['sessions']} sessions"
        reasons.setdefault((where, info["why"]), []).append(name)
    parts = [f"{', '.join(names)} cannot apply{where}: {why}" for (where, why), names in reasons.items()]
    return "; ".join(parts) or "—"


def _acted(row: Mapping[str, Any]) -> str:
    acted = row.get("acted") or {}
    if not acted:
        return "—"
    return ", ".join(f"{name} {acted[name]}" for name in sorted(acted)) + f" / {row['sessions']}"


def render_ablation(spec_score: str, rows: list[Mapping[str, Any]], group_name: str = "") -> str:
    """The ablation table: one line per row, the reasons a mechanism could not apply in words."""
    grouped = bool(group_name) and len({r["group"] for r in rows}) > 1
    headers = [
        *([group_name] if grouped else []),
        "mechanisms",
        "n",
        spec_score,
        "Δ vs none [95% CI]",
        "tokens/item",
        "acted in (sessions)",
        "note",
    ]
    cells = []
    for row in rows:
        score = format_number(row.get("score"))
        if row.get("score_ci"):
            lo, hi = row["score_ci"]
            score += f" [{format_number(lo)}, {format_number(hi)}]"
        cells.append(
            [
                *([row["group"]] if grouped else []),
                _set_name(row["mechanisms"]),
                str(row["n"]),
                score,
                _delta(row),
                format_number(row.get("tokens_per_item"), digits=0),
                _acted(row),
                notes(row),
            ]
        )
    table = tabulate(cells, headers=headers, tablefmt="simple", disable_numparse=True)
    return "\n".join([table, _footer(rows)])


def _set_name(mechanisms: list[str]) -> str:
    if not mechanisms:
        return "none"
    return "all" if sorted(mechanisms) == sorted(MECHANISMS) else ",".join(mechanisms)


def _delta(row: Mapping[str, Any]) -> str:
    if not row["mechanisms"]:
        return "(reference)"
    text = format_number(row.get("delta"), signed=True)
    if row.get("delta_ci"):
        lo, hi = row["delta_ci"]
        text += f" [{format_number(lo, True)}, {format_number(hi, True)}]"
    return text


def _footer(rows: list[Mapping[str, Any]]) -> str:
    pairs = max((r["n_pairs"] for r in rows if r["mechanisms"]), default=0)
    ci = "95% CI: paired bootstrap over items (shown with 2 pairs or more)"
    return f"Δ vs none: mean over items of (score − the same item without mechanisms), {pairs} pairs; {ci}."
