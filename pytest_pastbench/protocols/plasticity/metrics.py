"""Plasticity metrics: curves, P, P_sat from a 4-parameter saturating fit, taxonomy and reuse.

Scores are points (0..100). Costs are learning costs at each checkpoint, in dollars or in tokens.

- P_t = (S_t − S_0) / C_t, reported per $1,000 (``p_usd``) and per 1,000 tokens (``p_ktok``).
- The saturating curve is the 4-parameter Hill form

      S(c) = s0 + rise · c^h / (c50^h + c^h)

  (s0: the score at no cost, rise: the asymptotic gain, c50: the cost of half the rise,
  h: steepness), fitted by least squares (scipy.optimize.curve_fit) to (C_t, S_t).
  c90 = c50 · 9^(1/h) is the cost of 90% of the fitted rise, and
  P_sat = (S(c*) − s0) / c* with c* = min(c90, 3 · C_last): beyond 3× the last observed cost
  the fit is not extrapolated (status "capped": saturation not reached in range); c90 past the
  last observed cost but within 3× is "extrapolated"; otherwise "observed". When the fitted 90%
  rise is under 10 points (or negative) P_sat is 0 (status "floor").

``summarize`` builds the plasticity section of ``sequence_summary.json``: per family, one entry
per lineage with these metrics.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ...errors import FitError

RISE_FLOOR = 10.0  # points: a fitted 90% rise below this is no reliable rise (P_sat = 0)
EXTRAPOLATION_CAP = 3.0  # × the last observed cost
MIN_POINTS = 4


def hill(c: Any, s0: float, rise: float, c50: float, h: float) -> Any:
    import numpy as np  # lazy: numpy and scipy, only when a curve is fitted

    c = np.asarray(c, dtype=float)
    ratio = np.power(np.clip(c, 0.0, None) / c50, h)
    return s0 + rise * ratio / (1.0 + ratio)


@dataclass(frozen=True)
class SaturationFit:
    s0: float
    rise: float
    c50: float
    h: float
    c90: float
    rmse: float

    def at(self, cost: float) -> float:
        return float(hill(cost, self.s0, self.rise, self.c50, self.h))


def fit_saturating(costs: Sequence[float], scores: Sequence[float]) -> SaturationFit:
    """Least-squares Hill fit; costs are rescaled by the last one so the fit is unit-free."""
    # lazy: numpy and scipy, only when a curve is fitted
    import numpy as np
    from scipy.optimize import OptimizeWarning, curve_fit

    if len(costs) != len(scores) or len(costs) < MIN_POINTS:
        raise FitError(f"needs at least {MIN_POINTS} checkpoints with a cost (has {len(costs)})")
    x = np.asarray(costs, dtype=float)
    y = np.asarray(scores, dtype=float)
    scale = float(x.max())
    if not scale > 0:
        raise FitError("every learning cost is 0: nothing to divide by")
    xs = x / scale
    # Scores are points in 0..100, so the start and the rise are bounded by the scale; several
    # starting points, keeping the best, because step-like curves have poor local minima.
    bounds = ([0.0, -100.0, 1e-3, 0.3], [100.0, 100.0, 10.0, 10.0])
    best: tuple[float, Any] | None = None
    for c50_start in (0.1, 0.3, 1.0):
        for h_start in (1.0, 3.0):
            p0 = [
                min(max(float(y[0]), 0.0), 100.0),
                float(np.clip(y.max() - y[0], -99.0, 99.0)) or 1.0,
                c50_start,
                h_start,
            ]
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", OptimizeWarning)
                    params, _ = curve_fit(hill, xs, y, p0=p0, bounds=bounds, maxfev=20000)
            except (RuntimeError, ValueError):
                continue
            sse = float(np.sum((hill(xs, *params) - y) ** 2))
            if best is None or sse < best[0] - 1e-9:
                best = (sse, params)
    if best is None:
        raise FitError("the fit did not converge from any starting point")
    params = best[1]
    s0, rise, c50, h = (float(v) for v in params)
    rmse = float(np.sqrt(np.mean((hill(xs, s0, rise, c50, h) - y) ** 2)))
    return SaturationFit(s0, rise, c50 * scale, h, c50 * scale * 9.0 ** (1.0 / h), rmse)


def p_sat(costs: Sequence[float], scores: Sequence[float], per: float) -> dict[str, Any]:
    """P_sat in points per ``per`` cost units (1000: per $1,000 or per 1,000 tokens), with the fit.

    Returns {"value", "status", "reason", "fit": {...}, "cost_at": c*}; value None only when
    no fit could be made (the reason says why).
    """
    try:
        fit = fit_saturating(costs, scores)
    except FitError as exc:
        return {"value": None, "status": "no_fit", "reason": str(exc), "fit": None, "cost_at": None}
    params = {k: round(v, 6) for k, v in asdict(fit).items()}
    last = max(costs)
    if 0.9 * fit.rise < RISE_FLOOR:
        reason = f"fitted 90% rise {0.9 * fit.rise:.1f} points is under {RISE_FLOOR:g}"
        return {"value": 0.0, "status": "floor", "reason": reason, "fit": params, "cost_at": None}
    cap = EXTRAPOLATION_CAP * last
    if fit.c90 <= last:
        status, at = "observed", fit.c90
    elif fit.c90 <= cap:
        status, at = "extrapolated", fit.c90
    else:
        status, at = "capped", cap
    value = float((fit.at(at) - fit.s0) / at * per)
    at = float(at)
    reason = {
        "observed": "90% of the fitted rise is reached within the observed costs",
        "extrapolated": f"90% of the fitted rise is reached at {fit.c90 / last:.2f}× the last cost",
        "capped": f"saturation not reached by {EXTRAPOLATION_CAP:g}× the last cost: P_sat taken there",
    }[status]
    return {
        "value": round(value, 6),
        "status": status,
        "reason": reason,
        "fit": params,
        "cost_at": round(at, 6),
    }


def gains_per_cost(
    scores: Sequence[float | None], costs: Sequence[float | None], per: float
) -> list[float | None]:
    """P_t = (S_t − S_0)/C_t × per for every checkpoint (None at t = 0 or without a cost)."""
    out: list[float | None] = []
    for score, cost in zip(scores, costs, strict=True):
        if score is None or scores[0] is None or not cost:
            out.append(None)
        else:
            out.append(round((score - scores[0]) / cost * per, 6))
    return out


def cost_series(rows: list[dict[str, Any]]) -> tuple[list[float | None], list[int], str | None]:
    """Learning cost per checkpoint in dollars (None entries when unknown), in tokens, and why
    the dollar figures are not usable (None when they are)."""
    usd = [row["learning_cost"]["usd"] for row in rows]
    tokens = [int(row["learning_cost"]["tokens"]) for row in rows]
    if any(u is None for u in usd):
        why = "cost unknown: the model has no price in litellm's map (tokens are still counted)"
    elif not any(usd):
        why = "cost is $0 (e.g. an offline pastbench/ reference model): see the per-1,000-token figures"
    else:
        why = None
    return usd, tokens, why


def lineage_metrics(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything the summary reports about one lineage, from its checkpoint rows."""
    usd, tokens, usd_na = cost_series(rows)
    curves = {
        split: [
            {"x": row["checkpoint"], "y": row["scores"][split]}
            for row in rows
            if row["scores"].get(split) is not None
        ]
        for split in ("train", "id", "ood")
    }
    result: dict[str, Any] = {"curves": curves, "learning_cost": {"usd": usd, "tokens": tokens}}
    for split in ("id", "ood"):
        scores = [row["scores"].get(split) for row in rows]
        result[f"p_{split}"] = {
            "usd_per_1000": [None] * len(rows) if usd_na else gains_per_cost(scores, usd, 1000.0),
            "per_1000_tokens": gains_per_cost(scores, tokens, 1000.0),
        }
    id_scores = [row["scores"]["id"] for row in rows]
    result["p_sat"] = {
        "usd_per_1000": (
            {"value": None, "status": "n/a", "reason": usd_na, "fit": None, "cost_at": None}
            if usd_na
            else p_sat([float(u) for u in usd], id_scores, 1000.0)  # type: ignore[arg-type]
        ),
        "per_1000_tokens": p_sat([float(t) for t in tokens], id_scores, 1000.0),
    }
    result["usd_na_reason"] = usd_na
    result["taxonomy"] = taxonomy(rows)
    return result


def taxonomy(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per split, over all checkpoints: failed decisions by cause, and the reuse rate
    (relevant decisions at which a covering artifact was used / relevant decisions)."""
    out: dict[str, dict[str, Any]] = {}
    for split in ("train", "id", "ood"):
        counts: dict[str, int] = {}
        for row in rows:
            for key, value in (row["decisions"].get(split) or {}).items():
                counts[key] = counts.get(key, 0) + value
        if not counts:
            continue
        relevant = counts.get("relevant", 0)
        counts_out: dict[str, Any] = dict(sorted(counts.items()))
        counts_out["reuse_rate"] = round(counts["reused"] / relevant, 4) if relevant else None
        out[split] = counts_out
    return out


PLOTS_DIR = "plots"


def lineage_label(record: dict[str, Any]) -> str:
    return f"{record['agent']}@{record['model']}[{record['arm']}-t{record['trial']}]"


def summarize(records: list[dict[str, Any]], seed: int) -> dict[str, Any]:
    """Per family, one entry per lineage (model × agent × arm × trial), sorted by label."""
    del seed  # every figure is a deterministic function of the records
    families: dict[str, dict[str, Any]] = {}
    blocked = 0
    for record in records:
        family = families.setdefault(record["family"], {"lineages": {}, "blocked": 0})
        if record.get("infra_blocked"):
            family["blocked"] += 1
            blocked += 1
            continue
        rows = record["checkpoints"]
        entry = {
            "model": record["model"],
            "agent": record["agent"],
            "arm": record["arm"],
            "trial": record["trial"],
            "environment": record["environment"],
            "checkpoints": len(rows) - 1,
            "scores": [{"checkpoint": r["checkpoint"], **r["scores"]} for r in rows],
            "inventory": [{"checkpoint": r["checkpoint"], **r["inventory"], **r["edits"]} for r in rows],
            "rejected_edits": len(record.get("rejected_edits") or []),
            "eval_usage": record.get("eval_usage"),
            **lineage_metrics(rows),
        }
        family["lineages"][lineage_label(record)] = entry
    for family_id, family in families.items():
        family["lineages"] = dict(sorted(family["lineages"].items()))
        family["plot"] = f"{PLOTS_DIR}/{plot_name(family_id)}" if family["lineages"] else None
    return {"families": dict(sorted(families.items())), "blocked": blocked}


def plot_name(family_id: str) -> str:
    return f"{family_id.replace('.', '_')}.png"
