"""The plasticity protocol's report figure: ``learning_curves.png``, held-out ID and OOD score per
checkpoint, one line per lineage, a panel per family (``draw_*`` returns the Figure unsaved, so
tests can read its axes back)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...results.render.figure_kit import (
    FigureSpec,
    integer_ticks,
    label_keys,
    legend_below,
    needs,
    new_figure,
    num,
    padded_limits,
    protocol_section,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

POINTS = (0.0, 100.0)  # plasticity scores are points


def plasticity_families(summary: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Families with at least one finished lineage, by id."""
    families = protocol_section(summary, "plasticity").get("families") or {}
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
        integer_ticks(ax)
        ax.grid(alpha=0.3)
    for ax in axes[len(families) :]:
        ax.set_visible(False)
    from matplotlib.lines import Line2D  # lazy: matplotlib, only when a figure is drawn

    handles = [Line2D([], [], color=colour[label], linewidth=3) for label in lineages]
    handles += [
        Line2D([], [], color="black", linestyle="-", marker="o"),
        Line2D([], [], color="black", linestyle="--", marker="s"),
    ]
    names = [keys.shown[label] for label in lineages] + ["held-out ID", "held-out OOD"]
    legend_below(area, handles, names, width)
    area.suptitle("Plasticity: held-out ID and OOD score per checkpoint, per lineage")
    return fig


FIGURES = (
    FigureSpec(
        "learning_curves.png",
        "plasticity",
        "Held-out ID (solid) and OOD (dashed) score per checkpoint, one colour per lineage; "
        "lineages with the same scores show as a thinner line inside a wider one.",
        needs(plasticity_families, "no plasticity lineage finished"),
        draw_learning_curves,
    ),
)
