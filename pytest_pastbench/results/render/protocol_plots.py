"""The figures of the docs/design.md §8 protocols, drawn from their ``sequence_summary.json``
sections (``protocols.<name>``):

- ``learning_curves.png`` (plasticity): held-out ID and OOD score per checkpoint, one line per
  lineage, a panel per family;
- ``reward_per_window.png`` (stream): test reward per window (store frozen), hidden-rule and
  fully-specified tickets, one line per config;
- ``intervention_matrix.png`` (intervention): α_L, γ, σ ratio, κ and ρ of every event × profile
  cell, per config, coloured by how good each value is.

Each ``draw_*`` returns the Figure unsaved, so tests can read its axes back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .figure_kit import label_keys, legend_below, new_figure, num, padded_limits

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

POINTS = (0.0, 100.0)  # plasticity and stream scores are points / percent


def _section(summary: Mapping[str, Any], protocol: str) -> Mapping[str, Any]:
    return (summary.get("protocols") or {}).get(protocol) or {}


def _integer_ticks(ax: Axes) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


# -- plasticity ------------------------------------------------------------------------------------------
def plasticity_families(summary: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Families with at least one finished lineage, by id."""
    families = _section(summary, "plasticity").get("families") or {}
    return {fid: fam for fid, fam in sorted(families.items()) if fam.get("lineages")}


def draw_learning_curves(summary: Mapping[str, Any]) -> Figure:
    families = plasticity_families(summary)
    lineages = sorted({label for fam in families.values() for label in fam["lineages"]})
    keys = label_keys(lineages, prefix="L")
    columns = min(len(families), 2)
    rows = math.ceil(len(families) / columns)
    width = 12.0 if columns == 2 else 10.0
    fig, area = new_figure((width, 1.2 + 3.8 * rows), keys.lines)
    axes = area.subplots(rows, columns, squeeze=False).ravel()
    colour = {label: f"C{i % 10}" for i, label in enumerate(lineages)}
    # Widest first: lineages with the same scores (both arms of a model that does not learn) draw
    # as one line inside another instead of the last hiding the others.
    n = len(lineages)
    line_width = {
        label: 1.5 + (4.5 * (n - 1 - i) / (n - 1) if n > 1 else 0.0) for i, label in enumerate(lineages)
    }
    for ax, (family_id, family) in zip(axes, families.items(), strict=False):
        ys: list[float] = []
        for label, entry in family["lineages"].items():
            for split, style, marker in (("id", "-", "o"), ("ood", "--", "s")):
                points = (entry.get("curves") or {}).get(split) or []
                xs, values = [num(p.get("x")) for p in points], [num(p.get("y")) for p in points]
                ys += values
                ax.plot(
                    xs,
                    values,
                    linestyle=style,
                    marker=marker,
                    linewidth=line_width[label],
                    markersize=3.5 + 1.5 * line_width[label],
                    alpha=0.75,
                    color=colour[label],
                )
        ax.set(title=family_id, xlabel="checkpoint", ylabel="held-out score (points)")
        ax.set_ylim(*padded_limits(ys, include=POINTS, pad=0.05))
        _integer_ticks(ax)
        ax.grid(alpha=0.3)
    for ax in axes[len(families) :]:
        ax.set_visible(False)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=colour[label], linewidth=3) for label in lineages]
    handles += [
        Line2D([], [], color="black", linestyle="-", marker="o"),
        Line2D([], [], color="black", linestyle="--", marker="s"),
    ]
    names = [keys.shown[label] for label in lineages] + ["held-out ID", "held-out OOD"]
    legend_below(area, handles, names, width)
    area.suptitle("Plasticity: held-out ID and OOD score per checkpoint, per lineage")
    return fig


# -- streams ----------------------------------------------------------------------------------------------
def stream_configs(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Stream configs that carry per-window rewards, by label."""
    configs = _section(summary, "stream").get("configs") or []
    return sorted((c for c in configs if c.get("windows")), key=lambda c: str(c.get("label", "")))


def draw_reward_per_window(summary: Mapping[str, Any]) -> Figure:
    configs = stream_configs(summary)
    labels = [str(c.get("label", "")) for c in configs]
    keys = label_keys(labels)
    fig, area = new_figure((12.0, 5.0), keys.lines)
    axes = area.subplots(1, 2, sharey=True)
    cases = (("hidden", "hidden rules decide (H)"), ("fully", "fully specified (F)"))
    ys: list[float] = []
    for ax, (case, title) in zip(axes, cases, strict=True):
        for i, config in enumerate(configs):
            windows = config["windows"]
            values = [num(w.get(case)) for w in windows]
            ys += values
            ax.plot(
                [num(w.get("window")) for w in windows],
                values,
                marker="o",
                color=f"C{i % 10}",
                label=keys.shown[labels[i]],
            )
        ax.set(title=title, xlabel="window")
        _integer_ticks(ax)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("test reward, % (store frozen)")
    axes[0].set_ylim(*padded_limits(ys, include=POINTS, pad=0.05))
    handles, names = axes[0].get_legend_handles_labels()
    legend_below(area, handles, names, 12.0)
    area.suptitle("Streams: test reward per window, mean over streams")
    return fig


# -- interventions ----------------------------------------------------------------------------------------
_INTERVENTION_METRICS = ("α_L", "γ", "σ ratio", "κ", "ρ")


def intervention_configs(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    configs = _section(summary, "intervention").get("configs") or []
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
    import numpy as np

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
