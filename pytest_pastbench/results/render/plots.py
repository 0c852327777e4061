"""Report figures of a finished run (``pastbench plot RUN``): PNGs drawn with matplotlib's Agg backend.

Figures, each from its protocol's part of ``sequence_summary.json``:

- PAST: ``capability_delta.png`` (Δ per capability and overall, one bar per config, 95% CI),
  ``frontier.png`` (overall Δ against Mech, one point per config) and ``ablation_heatmap.png``
  (capability × config heatmap of Δ);
- each other protocol's own (``BenchProtocol.figures``): plasticity ``learning_curves.png``,
  stream ``reward_per_window.png`` and intervention ``intervention_matrix.png``, each drawn by its
  protocol's ``figures.py``; a plugin protocol's the same way.

A protocol the run does not hold gets one line saying so and no PNG. Long labels become keys
(C1, C2, …) spelled out under the plot; figures have a fixed width and no timestamps or software
metadata, so the same run gives byte-identical files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_pastbench.errors import PlotError

from ..read import LoadedRun
from .figure_kit import (
    DPI,
    PNG_METADATA,
    FigureSpec,
    label_keys,
    legend_below,
    new_figure,
    num,
    padded_limits,
    save,
)

if TYPE_CHECKING:  # only for annotations; the real import is lazy
    from matplotlib.figure import Figure

    from pytest_pastbench.protocols.registry import ProtocolRegistry

__all__ = [
    "DPI",
    "PAST_FIGURES",
    "PNG_METADATA",
    "PlotResult",
    "figure_specs",
    "make_plots",
    "plot_run",
    "protocols_in",
]

OVERALL = "overall"
PAST = "past"


@dataclass
class PlotResult:
    """What ``make_plots`` did: files written, figures skipped (file name -> why) and protocols the
    run does not hold (protocol -> the one line that says so)."""

    written: list[Path] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    absent: dict[str, str] = field(default_factory=dict)


def past_configs(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    # Sorted labels: the same run always draws the same picture, whatever order it was written in.
    return sorted(summary.get("configs") or [], key=lambda c: str(c.get("label", "")))


def protocols_in(summary: Mapping[str, Any], registry: ProtocolRegistry) -> set[str]:
    """The registered protocols with results in a summary (PAST: configs; the others: their
    section)."""
    known = {protocol.name for protocol in registry}
    present = {PAST} if summary.get("configs") and PAST in known else set()
    return present | {name for name in (summary.get("protocols") or {}) if name in known}


def ci_err(entry: Mapping[str, Any], key: str = "delta") -> tuple[float, float]:
    """(below, above) error-bar lengths from ``<key>_ci``; 0 when the CI is unknown."""
    delta, ci = num(entry.get(key)), entry.get(f"{key}_ci")
    if math.isnan(delta) or not isinstance(ci, list | tuple) or len(ci) != 2:
        return 0.0, 0.0
    lo, hi = num(ci[0]), num(ci[1])
    if math.isnan(lo) or math.isnan(hi):
        return 0.0, 0.0
    # Rounded summaries can put Δ a hair outside its CI; a negative error bar is an error in matplotlib.
    return max(delta - lo, 0.0), max(hi - delta, 0.0)


def _capabilities(configs: list[dict[str, Any]]) -> list[str]:
    return sorted({cap for c in configs for cap in (c.get("capabilities") or {})})


def _scope(config: Mapping[str, Any], scope: str) -> Mapping[str, Any]:
    if scope == OVERALL:
        return config.get("overall") or {}
    return (config.get("capabilities") or {}).get(scope) or {}


def _labels(configs: list[dict[str, Any]]) -> list[str]:
    return [str(c.get("label", "")) for c in configs]


def draw_capability_delta(summary: Mapping[str, Any]) -> Figure:
    configs = past_configs(summary)
    scopes = [*_capabilities(configs), OVERALL]
    keys = label_keys(_labels(configs))
    fig, area = new_figure((10.0, 6.0), keys.lines)
    ax = area.subplots()
    width = min(0.8 / len(configs), 0.3)  # one config: a bar, not a wall
    reach: list[float] = []
    for i, config in enumerate(configs):
        entries = [_scope(config, s) for s in scopes]
        xs = [j + width * (i - (len(configs) - 1) / 2) for j in range(len(scopes))]
        ys = [num(e.get("delta")) for e in entries]
        errs = [ci_err(e) for e in entries]
        reach += [y - lo for y, (lo, _) in zip(ys, errs, strict=True)]
        reach += [y + hi for y, (_, hi) in zip(ys, errs, strict=True)]
        colour = f"C{i % 10}"
        ax.bar(xs, ys, width, label=keys.shown[str(config.get("label", ""))], color=colour)
        # The CI as whiskers around a dot: a zero-width CI still shows where Δ is.
        ax.errorbar(
            xs,
            ys,
            yerr=[[lo for lo, _ in errs], [hi for _, hi in errs]],
            fmt="o",
            markersize=4,
            color="black",
            capsize=3,
            linewidth=1,
        )
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(scopes)), scopes)
    ax.set_ylim(*padded_limits(reach))
    ax.set_ylabel("Δ = S_on − S_off (dot and 95% CI)")
    ax.set_title("Self-improvement Δ per capability")
    handles, names = ax.get_legend_handles_labels()
    legend_below(area, handles, names, 10.0)  # below: inside, it would cover bars
    ax.grid(axis="y", alpha=0.3)
    return fig


def draw_frontier(summary: Mapping[str, Any]) -> Figure:
    configs = past_configs(summary)
    # Short labels go in a legend under the axes (a label next to a point is cut off at the axes'
    # edge); long ones are keyed on the points (C1, …) and spelled out under the plot.
    keys = label_keys(_labels(configs))
    fig, area = new_figure((8.0, 6.0), keys.lines)
    ax = area.subplots()
    xs: list[float] = []
    ys: list[float] = []
    for i, config in enumerate(configs):
        overall = config.get("overall") or {}
        x, y = num(overall.get("delta")), num(overall.get("mech"))
        if math.isnan(x) or math.isnan(y):
            continue
        lo, hi = ci_err(overall)
        xs += [x - lo, x + hi]
        ys.append(y)
        shown = keys.shown[str(config.get("label", ""))]
        ax.errorbar(
            [x], [y], xerr=[[lo], [hi]], fmt="o", markersize=8, capsize=4, color=f"C{i % 10}", label=shown
        )
        if keys.lines:
            ax.annotate(shown, (x, y), xytext=(7, 7), textcoords="offset points")
    # Δ = 0 stays in view (the line between "helps" and "hurts"); Mech lives in [0, 1].
    ax.set_xlim(*padded_limits(xs, pad=0.15))
    ax.set_ylim(*padded_limits(ys, include=(0.0, 1.0), pad=0.08))
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("Δ = S_on − S_off (overall, 95% CI)")
    ax.set_ylabel("Mech (mechanism evidence)")
    ax.set_title("Attribution frontier: Δ vs Mech per config")
    ax.grid(alpha=0.3)
    handles, names = ax.get_legend_handles_labels()
    if handles and not keys.lines:
        legend_below(area, handles, names, 8.0)
    return fig


def draw_ablation_heatmap(summary: Mapping[str, Any]) -> Figure:
    # lazy: numpy and matplotlib, only when a figure is drawn
    import numpy as np
    from matplotlib import colormaps

    configs = past_configs(summary)
    caps = [*_capabilities(configs), OVERALL]
    labels = _labels(configs)
    keys = label_keys(labels, always=len(labels) > 4)
    values = np.array([[num(_scope(c, cap).get("delta")) for c in configs] for cap in caps])
    finite = values[np.isfinite(values)]
    # Diverging colours centred on 0; a floor on the range keeps an all-zero run from looking saturated.
    reach = max(float(np.abs(finite).max()) if finite.size else 0.0, 0.05)
    fig, area = new_figure((10.0, 6.0), keys.lines)
    ax = area.subplots()
    # A capability a config did not run (NaN) is hatched and says "not run": a flat grey read as
    # the scale's pale middle, a measured Δ of 0.00. The cell is left empty (transparent) by the
    # image and a hatched patch drawn in its place.
    from matplotlib.patches import Rectangle  # lazy: numpy and matplotlib, only when a figure is drawn

    cmap = colormaps["RdBu"].with_extremes(bad=(0.0, 0.0, 0.0, 0.0))
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=-reach, vmax=reach, aspect="auto")
    for row, col in zip(*np.nonzero(np.isnan(values)), strict=True):
        ax.add_patch(
            Rectangle(
                (col - 0.5, row - 0.5), 1, 1, facecolor="white", edgecolor="#888888", hatch="///", linewidth=0
            )
        )
    area.colorbar(image, ax=ax, label="Δ")
    shown = [keys.shown[label] for label in labels]
    rotate = len(labels) > 2 and not keys.lines  # full labels side by side would overlap
    ax.set_xticks(range(len(labels)), shown, rotation=30 if rotate else 0, ha="right" if rotate else "center")
    ax.set_yticks(range(len(caps)), caps)
    cells = len(caps) * len(labels)
    fontsize = 10 if cells <= 40 else 7 if cells <= 120 else 5
    for row, cap in enumerate(caps):
        for col in range(len(labels)):
            value = values[row, col]
            text = "not run" if math.isnan(value) else f"{value:+.2f}"
            # White text on the dark ends of the scale, black elsewhere.
            dark = not math.isnan(value) and abs(value) > 0.6 * reach
            ax.text(
                col,
                row,
                text,
                ha="center",
                va="center",
                fontsize=fontsize,
                color="white" if dark else "black",
            )
        if cap == OVERALL and row > 0:
            ax.axhline(row - 0.5, color="black", linewidth=1.0)
    ax.set_title("Δ per capability × config")
    return fig


def _has_delta(summary: Mapping[str, Any]) -> str | None:
    if any(not math.isnan(num((c.get("overall") or {}).get("delta"))) for c in past_configs(summary)):
        return None
    return "no config has a Δ (a Δ needs both arms: --pastbench-persistence=both)"


def _has_point(summary: Mapping[str, Any]) -> str | None:
    for config in past_configs(summary):
        overall = config.get("overall") or {}
        if not (math.isnan(num(overall.get("delta"))) or math.isnan(num(overall.get("mech")))):
            return None
    return "no config has both an overall Δ and a Mech"


PAST_FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "capability_delta.png",
        PAST,
        "Δ per capability and overall, one bar per config; the dot and whiskers are Δ and its 95% CI.",
        _has_delta,
        draw_capability_delta,
    ),
    FigureSpec(
        "ablation_heatmap.png",
        PAST,
        "Δ per capability × config (blue helps, red hurts, hatched: not run).",
        _has_delta,
        draw_ablation_heatmap,
    ),
    FigureSpec(
        "frontier.png",
        PAST,
        "Overall Δ (with its 95% CI) against Mech, one point per config.",
        _has_point,
        draw_frontier,
    ),
)


def figure_specs(registry: ProtocolRegistry) -> list[FigureSpec]:
    """Every registered protocol's figures, in the protocols' name order (PAST first)."""
    protocols = sorted(registry, key=lambda p: (p.name != PAST, p.name))
    return [spec for protocol in protocols for spec in protocol.figures()]


def absent_line(protocol: str, specs: list[FigureSpec]) -> str:
    names = ", ".join(spec.name for spec in specs if spec.protocol == protocol)
    what = "PAST configs" if protocol == PAST else f"{protocol} items"
    return f"this run has no {what}: {names} not drawn"


def make_plots(
    run: LoadedRun, out_dir: Path, registry: ProtocolRegistry, only: str | None = None
) -> PlotResult:
    """Draw every figure the run has data for into ``out_dir``; say which ones were skipped and why.

    ``only`` limits it to one protocol. Raises ``PlotError`` (before writing anything) when the
    run holds none of the protocols asked for. ``registry``: the run's protocols."""
    import matplotlib.style  # lazy: numpy and matplotlib, only when a figure is drawn

    summary = run.summary if isinstance(run.summary, dict) else {}
    specs = figure_specs(registry)
    drawing = sorted({spec.protocol for spec in specs}, key=lambda p: (p != PAST, p))
    wanted = [only] if only else drawing
    present = protocols_in(summary, registry)
    result = PlotResult(absent={p: absent_line(p, specs) for p in wanted if p not in present})
    if not set(wanted) & present:
        raise PlotError(f"{run.path}: " + "; ".join(result.absent.values()))
    # The "default" style ignores the user's matplotlibrc, so every machine draws the same pixels.
    with matplotlib.style.context("default"):
        for spec in specs:
            if spec.protocol not in wanted or spec.protocol not in present:
                continue
            why = spec.why_not(summary)
            if why:
                result.skipped[spec.name] = why
                continue
            result.written.append(save(spec.draw(summary), out_dir / spec.name))
    return result


def plot_run(run: LoadedRun, out_dir: Path, registry: ProtocolRegistry) -> list[Path]:
    """Write the run's PNGs into ``out_dir`` and return their paths (see ``make_plots`` for skips)."""
    return make_plots(run, out_dir, registry).written
