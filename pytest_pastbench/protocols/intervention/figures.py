"""The intervention protocol's report figure: ``intervention_matrix.png``, α_L, γ, σ ratio, κ and ρ
of every event × profile cell, per config, coloured by how good each value is."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...results.render.figure_kit import FigureSpec, label_keys, needs, new_figure, num, protocol_section

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_INTERVENTION_METRICS = ("α_L", "γ", "σ ratio", "κ", "ρ")


def intervention_configs(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    configs = protocol_section(summary, "intervention").get("configs") or []
    return sorted((c for c in configs if c.get("matrix")), key=lambda c: str(c.get("label", "")))


def intervention_cells(configs: list[dict[str, Any]]) -> list[str]:
    """Row names ``family/event · profile`` over every config, sorted."""
    return sorted(
        {
            f"{family.removeprefix('intervention.')}/{event} · {profile}"
            for config in configs
            for family, events in config["matrix"].items()
            for event, entry in events.items()
            for profile in entry.get("profiles") or {}
        }
    )


def _metric_values(cell: Mapping[str, Any]) -> list[tuple[float, float]]:
    """(value, goodness in [0, 1]) of the five metrics of one cell; NaN when not measured.

    α_L: 1 is best, T+1 (never adapted) worst; ρ: the regression rate, lower is better; σ ratio
    and κ: post/pre ratios, 1 or more is as good as before; γ: a share, higher is better."""
    if not cell.get("n"):
        return [(math.nan, math.nan)] * len(_INTERVENTION_METRICS)
    alpha, big_t = num(cell.get("alpha_l")), num(cell.get("T"))
    gamma = num((cell.get("gamma") or {}).get("gamma"))
    sigma = num((cell.get("sigma") or {}).get("ratio"))
    kappa = num((cell.get("kappa") or {}).get("kappa"))
    rho = num((cell.get("rho") or {}).get("rho"))
    alpha_good = 1 - (alpha - 1) / big_t if big_t > 0 else math.nan
    return [
        (alpha, alpha_good),
        (gamma, gamma),
        (sigma, min(sigma, 1.0)),
        (kappa, min(kappa, 1.0)),
        (rho, 1 - rho),
    ]


def intervention_matrix(configs: list[dict[str, Any]]) -> tuple[list[str], Any, Any]:
    """(row names, values, goodness): arrays of rows × (metric × config), metric-major."""
    import numpy as np  # lazy: numpy and matplotlib, only when a figure is drawn

    rows = intervention_cells(configs)
    values = np.full((len(rows), len(_INTERVENTION_METRICS) * len(configs)), np.nan)
    good = np.full_like(values, np.nan)
    for c, config in enumerate(configs):
        for family, events in config["matrix"].items():
            for event, entry in events.items():
                for profile, cell in (entry.get("profiles") or {}).items():
                    r = rows.index(f"{family.removeprefix('intervention.')}/{event} · {profile}")
                    for m, (value, goodness) in enumerate(_metric_values(cell)):
                        values[r, m * len(configs) + c] = value
                        good[r, m * len(configs) + c] = goodness
    return rows, values, good


INTERVENTION_CAPTION = (
    "Each row is one event × profile cell (trials pooled), each column group one metric, one "
    "column per config. Cells show the value; colour is how good it is: green = α_L of 1 "
    "(adapted at once; T+1 = never), γ = 1, σ ratio and κ ≥ 1 (safety and unrelated skills kept), "
    "ρ = 0 (no regressions); grey = not measured (σ ratio is N/A when nothing passed before)."
)


def draw_intervention_matrix(summary: Mapping[str, Any]) -> Figure:
    # lazy: numpy and matplotlib, only when a figure is drawn
    import numpy as np
    from matplotlib import colormaps

    configs = intervention_configs(summary)
    labels = [str(c.get("label", "")) for c in configs]
    # Always keys: five column groups of full labels side by side could never be read.
    keys = label_keys(labels, always=True)
    rows, values, good = intervention_matrix(configs)
    columns = values.shape[1]
    width = min(max(4.0 + 0.55 * columns, 10.0), 20.0)
    fig, area = new_figure((width, 1.8 + 0.32 * len(rows)), keys.lines)
    ax = area.subplots()
    cmap = colormaps["RdYlGn"].with_extremes(bad="#dddddd")
    image = ax.imshow(np.ma.masked_invalid(good), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
    area.colorbar(image, ax=ax, label="how good (1 = no loss)", shrink=0.8)
    fontsize = 9 if columns <= 15 else 7
    for r in range(len(rows)):
        for c in range(columns):
            value = values[r, c]
            text = "—" if math.isnan(value) else f"{value:g}" if c < len(configs) else f"{value:.2f}"
            # White on the dark ends of the scale, black elsewhere.
            dark = not math.isnan(good[r, c]) and not 0.15 <= good[r, c] <= 0.85
            ax.text(
                c, r, text, ha="center", va="center", fontsize=fontsize, color="white" if dark else "black"
            )
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    ax.set_xticks(
        range(columns), [keys.shown[label] for _ in _INTERVENTION_METRICS for label in labels], fontsize=8
    )
    for m in range(1, len(_INTERVENTION_METRICS)):
        ax.axvline(m * len(configs) - 0.5, color="black", linewidth=1.5)
    top = ax.secondary_xaxis("top")
    top.set_xticks(
        [m * len(configs) + (len(configs) - 1) / 2 for m in range(len(_INTERVENTION_METRICS))],
        list(_INTERVENTION_METRICS),
    )
    top.tick_params(length=0)
    area.suptitle("Interventions: α_L, γ, σ ratio, κ, ρ per event × profile and config")
    return fig


FIGURES = (
    FigureSpec(
        "intervention_matrix.png",
        "intervention",
        INTERVENTION_CAPTION,
        needs(intervention_configs, "no intervention config has a measured cell"),
        draw_intervention_matrix,
    ),
)
