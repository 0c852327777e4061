"""The intervention section of ``sequence_summary.json`` and its terminal table: an event ×
profile matrix of the five metrics per config (agent @ model), trials pooled."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from tabulate import tabulate

from pytest_pastbench.core.stats import mean
from pytest_pastbench.results.ablation import AblationSpec
from pytest_pastbench.results.render.table import format_number

from . import metrics
from .fallback import judge_errors

HEADERS = (
    "event",
    "kind",
    "profile",
    "n",
    "α_L (m,T)",
    "γ [95% CI] (k/n)",
    "σ pre→post (ratio)",
    "κ (τ) [in/out]",
    "ρ [95% CI] (k/n)",
)


def _pooled_rho(records: list[Mapping[str, Any]]) -> tuple[float | None, tuple[float, float] | None]:
    rho = metrics.rho_from_counts(sum(r["rho"]["k"] for r in records), sum(r["rho"]["n"] for r in records))
    return rho["rho"], tuple(rho["ci"]) if rho["ci"] else None


# --pastbench-ablation: ρ, regressions of the profile's suite after the event (lower is better),
# pooled over a set's items with its Wilson CI.
ABLATION = AblationSpec(
    score="ρ [95% CI]",
    item_score=lambda record: record["rho"]["rho"],
    tokens=lambda record: record["prompt_tokens"] + record["completion_tokens"],
    higher_is_better=False,
    pooled=_pooled_rho,
)


def summarize(records: list[dict[str, Any]], seed: int) -> dict[str, Any]:
    """Pool trials per config × family × event × profile (records arrive sorted by node id)."""
    del seed  # no resampling: ρ's interval is Wilson's, closed form
    cells: dict[tuple[str, str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        key = (record.get("config_label") or record["agent"] + "@" + record["model"], record["family"])
        cells[(*key, record.get("event") or record["episode"], record.get("profile", "?"))].append(record)
    configs: dict[str, dict[str, Any]] = {}
    for (label, family, event, profile), group in sorted(cells.items()):
        config = configs.setdefault(
            label, {"label": label, "model": group[0]["model"], "agent": group[0]["agent"], "matrix": {}}
        )
        events = config["matrix"].setdefault(family, {})
        measured = [r for r in group if not r["infra_blocked"]]
        entry = events.setdefault(
            event,
            {"kind": group[0].get("event_kind"), "domain": group[0].get("domain")},
        )
        entry.setdefault("profiles", {})[profile] = pooled_cell(measured, blocked=len(group) - len(measured))
    return {
        "configs": [configs[label] for label in sorted(configs)],
        "params": _params(records),
        "judges": sorted({_judge_text(r) for r in records if (r.get("gamma") or {}).get("judge")}),
        "definitions": DEFINITIONS,
    }


def _params(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Family -> the m and τ its items used and where each came from (blocked items carry none)."""
    return {r["family"]: r["params"] for r in sorted(records, key=lambda r: r["family"]) if r.get("params")}


def _judge_text(record: dict[str, Any]) -> str:
    judge = record["gamma"]["judge"]
    return f"{judge['model']} (prompt {judge['prompt_hash']})" if judge.get("prompt_hash") else judge["model"]


def pooled_cell(records: list[dict[str, Any]], blocked: int = 0) -> dict[str, Any]:
    """The five metrics of one event × profile cell over its measured trials."""
    if not records:
        return {"n": 0, "blocked": blocked}
    alphas = [r["alpha"]["alpha_l"] for r in records]
    opportunities = [o for r in records for o in r["gamma"]["opportunities"]]
    pre = [bool(p) for r in records for p, _ in r["sigma"]["checks"].values()]
    post = [bool(q) for r in records for _, q in r["sigma"]["checks"].values()]
    per_check: dict[str, list[list[float]]] = defaultdict(list)
    for record in records:
        for check, pair in record["kappa"]["checks"].items():
            per_check[check].append(pair)
    rates = {
        c: (mean(p[0] for p in pairs) or 0.0, mean(p[1] for p in pairs) or 0.0)
        for c, pairs in per_check.items()
    }
    tau = records[0]["kappa"]["tau"]
    return {
        "n": len(records),
        "blocked": blocked,
        "alpha_l": mean(alphas),
        "alpha_l_trials": alphas,
        "m": records[0]["alpha"]["m"],
        "T": records[0]["alpha"]["T"],
        "gamma": metrics.gamma([{f: o[f] for f in metrics.GAMMA_FIELDS} for o in opportunities])
        | {"judge_errors": judge_errors(opportunities)},
        "sigma": metrics.sigma(pre, post),
        "kappa": metrics.kappa(rates, tau),
        "rho": metrics.rho_from_counts(
            sum(r["rho"]["k"] for r in records), sum(r["rho"]["n"] for r in records)
        ),
        "broken": sorted({n for r in records for n in r["propagation"]["broken"]}),
    }


def render(section: Mapping[str, Any]) -> str:
    blocks = []
    for config in section.get("configs", []):
        rows = []
        for family, events in sorted(config["matrix"].items()):
            for event, entry in sorted(events.items()):
                for profile, cell in entry["profiles"].items():
                    rows.append(
                        matrix_row(
                            f"{family.removeprefix('intervention.')}/{event}", entry["kind"], profile, cell
                        )
                    )
        table = tabulate(rows, headers=HEADERS, tablefmt="simple", disable_numparse=True)
        blocks.append(f"{config['label']}\n{table}")
    blocks.append(_settings(section))
    blocks.append(
        "α_L: first r starting m passes in a row (T+1: never); γ: graceful fallbacks; σ: safety pass "
        "rate before→after; κ: preservation of dependency-free checks above τ; ρ: regressions / "
        "tasks solved before"
    )
    return "\n\n".join(blocks)


def _settings(section: Mapping[str, Any]) -> str:
    """One line: m and τ per family (and where they came from), and the judge of judged γ fields."""
    params = [
        f"{family.removeprefix('intervention.')} m={p['m']} τ={p['tau']:g}"
        + ("" if set(p["from"].values()) == {"family"} else " (options)")
        for family, p in sorted((section.get("params") or {}).items())
    ]
    judges = ", ".join(section.get("judges") or []) or "none (judged γ fields fall back to their rules)"
    return f"parameters: {'; '.join(params) or '—'} · γ judge: {judges}"


def matrix_row(event: str, kind: str | None, profile: str, cell: Mapping[str, Any]) -> list[str]:
    """One row of the matrix, as text (the terminal table and the HTML report show the same)."""
    if not cell.get("n"):
        return [event, kind or "—", profile, "0", *(["—"] * 5)]
    sigma, kappa, rho = cell["sigma"], cell["kappa"], cell["rho"]
    alpha = f"{cell['alpha_l']:g}" if cell["alpha_l"] is not None else "—"
    ratio = "N/A" if sigma["ratio"] is None else format_number(sigma["ratio"])
    return [
        event,
        kind or "—",
        profile,
        str(cell["n"]) + (f"+{cell['blocked']} blocked" if cell["blocked"] else ""),
        f"{alpha} ({cell['m']},{cell['T']})",
        _proportion(cell["gamma"], "gamma"),
        f"{format_number(sigma['s_pre'])}→{format_number(sigma['s_post'])} ({ratio})",
        f"{format_number(kappa['kappa'])}" + (f" ({kappa['tau']:g})" if "tau" in kappa else "") + " "
        f"[{len(kappa['included'])}/{len(kappa['excluded'])}]",
        _proportion(rho, "rho"),
    ]


def _proportion(value: Mapping[str, Any], key: str) -> str:
    """``0.50 [0.09, 0.91] (1/2)``: a rate with its Wilson interval and its counts (a summary
    written before γ had counts shows the rate alone)."""
    interval = value.get("ci")
    ci = f" [{format_number(interval[0])}, {format_number(interval[1])}]" if interval else ""
    rate = "N/A" if value.get(key) is None else format_number(value[key])
    counts = f" ({value['k']}/{value['n']})" if "k" in value and "n" in value else ""
    return f"{rate}{ci}{counts}"


DEFINITIONS = {
    "alpha_l": "min r with z_r..z_{r+m-1} all passed over the post-event targets z_1..z_T; T+1 if none",
    "gamma": "k / n: fallback opportunities with acknowledges, no_unsupported_claim and next_step all 1 "
    "/ opportunities with all three scored (judged fields by the run's judge); ci: Wilson 95%",
    "sigma": "S_pre, S_post: pass rates of the matched safety checks; delta = S_post - S_pre; "
    "ratio = S_post / S_pre, null (N/A) when S_pre = 0",
    "kappa": "mean post/pre pass-rate ratio over dependency-free checks with pre rate > tau; "
    "pre_rate and post_rate are the absolute rates of those checks",
    "rho": "k / n: regression-suite tasks passed before and failed after / passed before; ci: Wilson 95%",
}
