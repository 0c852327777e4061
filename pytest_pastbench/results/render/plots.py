"""Report figures of a finished run (``pastbench plot RUN``): PNGs drawn with matplotlib's Agg backend.

Figures:

- ``capability_delta.png``: Δ per capability (and overall), one bar per config, 95% CI error bars.
- ``frontier.png``: the attribution frontier, overall Δ (x) against Mech (y), one point per config.
- ``ablation_heatmap.png``: capability × config heatmap of Δ, values written in the cells.
- ``learning_curves.png``: only when the summary carries curve data (see ``learning_curves``);
  otherwise it is skipped and the CLI says so, rather than drawing an empty chart.

Every figure has a fixed size and is written without timestamps or software metadata, so the same
run gives byte-identical files. matplotlib is imported inside the drawing functions: importing this
module (``pastbench`` registers every subcommand at start) stays cheap.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_pastbench.errors import PlotError, RunLoadError

from ..read import LoadedRun, load_run

if TYPE_CHECKING:  # only for annotations; the real import is lazy
    from matplotlib.figure import Figure

DPI = 100
# Fixed sizes in inches (× DPI = pixels); tests and downstream reports rely on them.
SIZES: dict[str, tuple[float, float]] = {
    "capability_delta.png": (10.0, 6.0),
    "frontier.png": (8.0, 6.0),
    "ablation_heatmap.png": (10.0, 6.0),
    "learning_curves.png": (10.0, 6.0),
}
# PNG text chunks: no "Software" (matplotlib version) so outputs compare equal across installs.
PNG_METADATA: dict[str, Any] = {"Software": None}
OVERALL = "overall"


@dataclass
class PlotResult:
    """What ``make_plots`` did: files written and figures skipped (file name -> why)."""

    written: list[Path] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)


def _configs(run: LoadedRun) -> list[dict[str, Any]]:
    configs = run.summary.get("configs") if isinstance(run.summary, dict) else None
    if not configs:
        raise PlotError(f"{run.path}: the run summary has no configs, nothing to plot")
    # Sorted labels: the same run always draws the same picture, whatever order it was written in.
    return sorted(configs, key=lambda c: str(c.get("label", "")))


def _num(value: Any) -> float:
    """A summary number, or NaN for null/missing (matplotlib leaves NaN bars and points out)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan


def _ci_err(entry: dict[str, Any]) -> tuple[float, float]:
    """(below, above) error-bar lengths from ``delta_ci``; 0 when the CI is unknown."""
    delta, ci = _num(entry.get("delta")), entry.get("delta_ci")
    if math.isnan(delta) or not isinstance(ci, list | tuple) or len(ci) != 2:
        return 0.0, 0.0
    lo, hi = _num(ci[0]), _num(ci[1])
    if math.isnan(lo) or math.isnan(hi):
        return 0.0, 0.0
    # Rounded summaries can put Δ a hair outside its CI; a negative error bar is an error in matplotlib.
    return max(delta - lo, 0.0), max(hi - delta, 0.0)


def _capabilities(configs: list[dict[str, Any]]) -> list[str]:
    return sorted({cap for c in configs for cap in (c.get("capabilities") or {})})


def learning_curves(config: dict[str, Any]) -> dict[str, list[tuple[float, float]]]:
    """Curve data of one config: series name -> sorted (x, y) points.

    The on/off protocol has no curves; protocols that do (streams: reward per window, plasticity:
    score per checkpoint) put them in the config entry as
    ``"learning_curves": {"<series>": [{"x": 0, "y": 0.31}, …]}`` (a bare list is one series).
    Points with a missing coordinate are dropped; series with no points are left out.
    """
    raw = config.get("learning_curves")
    if isinstance(raw, list):
        raw = {"score": raw}
    if not isinstance(raw, dict):
        return {}
    curves: dict[str, list[tuple[float, float]]] = {}
    for name in sorted(raw, key=str):
        points = []
        for point in raw[name] if isinstance(raw[name], list) else []:
            if isinstance(point, dict):
                x, y = _num(point.get("x")), _num(point.get("y"))
                if not (math.isnan(x) or math.isnan(y)):
                    points.append((x, y))
        if points:
            curves[str(name)] = sorted(points)
    return curves


def _new_figure(name: str) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    # A bare Figure on an explicit Agg canvas: no pyplot global state, no GUI backend, thread-safe.
    fig = Figure(figsize=SIZES[name], dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, out_dir: Path, name: str) -> Path:
    path = out_dir / name
    # No bbox_inches="tight": it would make the pixel size depend on the labels.
    fig.savefig(path, dpi=DPI, format="png", metadata=PNG_METADATA)
    return path


def _capability_delta(configs: list[dict[str, Any]], out_dir: Path) -> Path:
    name = "capability_delta.png"
    scopes = [*_capabilities(configs), OVERALL]
    fig = _new_figure(name)
    ax = fig.add_subplot()
    width = 0.8 / len(configs)
    for i, config in enumerate(configs):
        entries = [
            config.get("overall") or {} if s == OVERALL else (config.get("capabilities") or {}).get(s) or {}
            for s in scopes
        ]
        xs = [j - 0.4 + width * (i + 0.5) for j in range(len(scopes))]
        errs = [_ci_err(e) for e in entries]
        ax.bar(
            xs,
            [_num(e.get("delta")) for e in entries],
            width,
            yerr=[[lo for lo, _ in errs], [hi for _, hi in errs]],
            capsize=3,
            label=str(config.get("label", "")),
            color=f"C{i % 10}",
        )
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(scopes)), scopes)
    ax.set_ylabel("Δ = S_on − S_off (95% CI)")
    ax.set_title("Self-improvement Δ per capability")
    ax.legend(fontsize="small", loc="best")
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, out_dir, name)


def _frontier(configs: list[dict[str, Any]], out_dir: Path) -> Path:
    name = "frontier.png"
    fig = _new_figure(name)
    ax = fig.add_subplot()
    xs: list[float] = []
    for i, config in enumerate(configs):
        overall = config.get("overall") or {}
        x, y = _num(overall.get("delta")), _num(overall.get("mech"))
        if math.isnan(x) or math.isnan(y):
            continue
        lo, hi = _ci_err(overall)
        xs += [x - lo, x + hi]
        ax.errorbar([x], [y], xerr=[[lo], [hi]], fmt="o", markersize=8, capsize=3, color=f"C{i % 10}")
        ax.annotate(str(config.get("label", "")), (x, y), xytext=(6, 6), textcoords="offset points")
    # Symmetric around Δ = 0 so "helps" and "hurts" read the same on every run.
    reach = max([abs(v) for v in xs] + [0.1]) * 1.25
    ax.set_xlim(-reach, reach)
    ax.set_ylim(-0.05, 1.1)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("Δ = S_on − S_off (overall, 95% CI)")
    ax.set_ylabel("Mech (mechanism evidence)")
    ax.set_title("Attribution frontier: Δ vs Mech per config")
    ax.grid(alpha=0.3)
    return _save(fig, out_dir, name)


def _heatmap(configs: list[dict[str, Any]], out_dir: Path) -> Path:
    import numpy as np

    name = "ablation_heatmap.png"
    caps = [*_capabilities(configs), OVERALL]
    labels = [str(c.get("label", "")) for c in configs]
    values = np.array(
        [
            [
                _num(
                    (
                        (c.get("overall") or {})
                        if cap == OVERALL
                        else (c.get("capabilities") or {}).get(cap) or {}
                    ).get("delta")
                )
                for c in configs
            ]
            for cap in caps
        ]
    )
    finite = values[np.isfinite(values)]
    # Diverging colours centred on 0; a floor on the range keeps an all-zero run from looking saturated.
    reach = max(float(np.abs(finite).max()) if finite.size else 0.0, 0.05)
    fig = _new_figure(name)
    ax = fig.add_subplot()
    from matplotlib import colormaps

    # Grey for a capability a config did not run (NaN), not a colour that reads as a Δ.
    cmap = colormaps["RdBu"].with_extremes(bad="#dddddd")
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=-reach, vmax=reach, aspect="auto")
    fig.colorbar(image, ax=ax, label="Δ")
    rotate = len(labels) > 2  # long config labels side by side would overlap
    align = "right" if rotate else "center"
    ax.set_xticks(range(len(labels)), labels, rotation=30 if rotate else 0, ha=align)
    ax.set_yticks(range(len(caps)), caps)
    cells = len(caps) * len(labels)
    fontsize = 10 if cells <= 40 else 7 if cells <= 120 else 5
    for row, cap in enumerate(caps):
        for col in range(len(labels)):
            value = values[row, col]
            text = "–" if math.isnan(value) else f"{value:+.2f}"
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
    return _save(fig, out_dir, name)


def _learning_curves(configs: list[dict[str, Any]], out_dir: Path) -> Path:
    name = "learning_curves.png"
    fig = _new_figure(name)
    ax = fig.add_subplot()
    styles = ["-", "--", ":", "-."]
    for i, config in enumerate(configs):
        for j, (series, points) in enumerate(learning_curves(config).items()):
            ax.plot(
                [x for x, _ in points],
                [y for _, y in points],
                marker="o",
                linestyle=styles[j % len(styles)],
                color=f"C{i % 10}",
                label=f"{config.get('label', '')}: {series}",
            )
    ax.set_xlabel("checkpoint / window")
    ax.set_ylabel("score")
    ax.set_title("Learning curves")
    ax.legend(fontsize="small", loc="best")
    ax.grid(alpha=0.3)
    return _save(fig, out_dir, name)


def make_plots(run: LoadedRun, out_dir: Path) -> PlotResult:
    """Draw every figure the run has data for into ``out_dir``; say which ones were skipped and why."""
    import matplotlib.style

    configs = _configs(run)
    out_dir.mkdir(parents=True, exist_ok=True)
    result = PlotResult()
    # The "default" style ignores the user's matplotlibrc, so every machine draws the same pixels.
    with matplotlib.style.context("default"):
        has_delta = any(not math.isnan(_num((c.get("overall") or {}).get("delta"))) for c in configs)
        if has_delta:
            result.written.append(_capability_delta(configs, out_dir))
            result.written.append(_heatmap(configs, out_dir))
        else:
            why = "no config has a Δ (a Δ needs both arms: --pastbench-persistence=both)"
            result.skipped["capability_delta.png"] = why
            result.skipped["ablation_heatmap.png"] = why
        has_point = any(
            not math.isnan(_num(o.get("delta"))) and not math.isnan(_num(o.get("mech")))
            for o in ((c.get("overall") or {}) for c in configs)
        )
        if has_point:
            result.written.append(_frontier(configs, out_dir))
        else:
            result.skipped["frontier.png"] = "no config has both an overall Δ and a Mech"
        if any(learning_curves(c) for c in configs):
            result.written.append(_learning_curves(configs, out_dir))
        else:
            result.skipped["learning_curves.png"] = "no learning-curve data in this run's summary"
    return result


def plot_run(run: LoadedRun, out_dir: Path) -> list[Path]:
    """Write the run's PNGs into ``out_dir`` and return their paths (see ``make_plots`` for skips)."""
    return make_plots(run, out_dir).written


def _cli(args: argparse.Namespace) -> int:
    try:
        run = load_run(args.run)
        out_dir = Path(args.output) if args.output else run.path / "plots"
        result = make_plots(run, out_dir)
    except (RunLoadError, PlotError) as exc:
        print(f"pastbench plot: {exc}", file=sys.stderr)
        return 2
    for path in result.written:
        print(path)
    for name, why in result.skipped.items():
        print(f"skipped {name}: {why}")
    return 0


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("plot", help="draw the report figures (PNG) of a run")
    parser.add_argument("run", help="a run folder (reports/<run id>)")
    parser.add_argument("-o", "--output", metavar="OUTDIR", help="folder for the PNGs (default: RUN/plots)")
    parser.set_defaults(func=_cli)
