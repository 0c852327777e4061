"""The intervention section's terminal table (``render``): an event × profile matrix of the five
metrics per config (agent @ model), trials pooled; the section itself is ``metrics.summarize``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabulate import tabulate

from pytest_pastbench.results.ablation import AblationSpec
from pytest_pastbench.results.render.table import format_number

from . import metrics

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
