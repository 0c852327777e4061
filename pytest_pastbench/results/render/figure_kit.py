"""What every report figure shares: a fixed-width Agg figure, axis limits that contain the data,
short keys for long labels (with the key printed under the plot) and byte-stable PNG output.

matplotlib is imported inside the functions: ``pastbench`` imports every subcommand's module at
start, and a run that draws nothing should not pay for matplotlib.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only for annotations; the real import is lazy
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure

DPI = 100
# PNG text chunks: no "Software" (matplotlib version) so outputs compare equal across installs.
PNG_METADATA: dict[str, Any] = {"Software": None}
# A label longer than this (a config named by its command line) is drawn as a key (C1, C2, …)
# and spelled out in full under the plot.
LONG_LABEL = 40
_KEY_FONT_PT = 9
_KEY_LINE_IN = 0.17  # one monospace line at _KEY_FONT_PT, with leading


def num(value: Any) -> float:
    """A summary number, or NaN for null/missing (matplotlib leaves NaN bars and points out)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan


def padded_limits(
    values: Iterable[float], *, include: Iterable[float] = (0.0,), pad: float = 0.08, min_span: float = 0.1
) -> tuple[float, float]:
    """Axis limits that contain every finite value and every ``include`` value, with ``pad`` of
    the span either side; a span under ``min_span`` (one point, zero-width CIs) is widened
    around its middle so the point sits inside the axes rather than on an edge."""
    finite = [v for v in (*values, *include) if math.isfinite(v)]
    if not finite:
        return -min_span, min_span
    lo, hi = min(finite), max(finite)
    if hi - lo < min_span:
        middle = (lo + hi) / 2
        lo, hi = middle - min_span / 2, middle + min_span / 2
    margin = pad * (hi - lo)
    return lo - margin, hi + margin


@dataclass(frozen=True)
class Keys:
    """The label each series is drawn with, and the key lines that spell long ones out."""

    shown: dict[str, str]
    lines: list[str]


def label_keys(labels: Sequence[str], prefix: str = "C", *, always: bool = False) -> Keys:
    """Labels as they are when all are short, else ``C1``, ``C2``, … in the given order, with
    one key line per label (``always`` uses keys whatever the length, for crowded axes)."""
    if not always and all(len(label) <= LONG_LABEL for label in labels):
        return Keys({label: label for label in labels}, [])
    shown = {label: f"{prefix}{i + 1}" for i, label in enumerate(labels)}
    return Keys(shown, [f"{shown[label]}  {label}" for label in labels])


def new_figure(size: tuple[float, float], key_lines: Sequence[str] = ()) -> tuple[Figure, Figure | SubFigure]:
    """A figure on an explicit Agg canvas (no pyplot state, no GUI backend, thread-safe) and the
    area to draw in. Key lines are wrapped to the figure's width and printed under that area;
    the figure grows in height for them, never in width."""
    # lazy: matplotlib, only when a figure is drawn
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    width, height = size
    # Monospace glyphs are about 0.6 em wide: this many characters fit across the figure.
    columns = int(width * 72 / (0.6 * _KEY_FONT_PT)) - 4
    wrapped = [
        part
        for line in key_lines
        for part in textwrap.wrap(line, columns, subsequent_indent="    ", break_on_hyphens=False)
    ]
    key_height = _KEY_LINE_IN * len(wrapped) + 0.12 if wrapped else 0.0
    fig = Figure(figsize=(width, height + key_height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    if not wrapped:
        return fig, fig
    area, key = fig.subfigures(2, 1, height_ratios=[height, key_height])
    key.text(0.01, 0.98, "\n".join(wrapped), ha="left", va="top", family="monospace", fontsize=_KEY_FONT_PT)
    return fig, area


def legend_below(area: Figure | SubFigure, handles: list[Any], names: list[str], width: float) -> None:
    """A legend under the axes, in as many columns as the longest name lets fit across ``width``
    inches (a legend wider than the figure would be cut off at both sides)."""
    font_pt = 8.3  # "small" at the default 10 pt
    # Each entry: the name, a line swatch of about 4 em and spacing; glyphs about 0.6 em wide.
    entry_in = (0.6 * max(len(n) for n in names) + 6) * font_pt / 72
    columns = max(1, min(len(names), int((width - 0.3) / entry_in)))
    area.legend(handles, names, loc="outside lower center", ncol=columns, fontsize=font_pt)


def save(fig: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    # No bbox_inches="tight": constrained layout already keeps every label inside the canvas,
    # and the pixel width stays the same for every run.
    fig.savefig(path, dpi=DPI, format="png", metadata=PNG_METADATA)
    return path


@dataclass(frozen=True)
class FigureSpec:
    """One report figure of a protocol (``BenchProtocol.figures``): drawn from the run's summary
    into ``plots/<name>`` by ``pastbench plot`` and embedded in the HTML report under its caption."""

    name: str
    protocol: str
    caption: str
    why_not: Callable[[Mapping[str, Any]], str | None]  # None: drawable (its protocol is in the run)
    draw: Callable[[Mapping[str, Any]], Figure]


def needs(found: Callable[[Mapping[str, Any]], Any], why: str) -> Callable[[Mapping[str, Any]], str | None]:
    """A ``FigureSpec.why_not``: ``why`` when ``found(summary)`` is empty."""
    return lambda summary: None if found(summary) else why


def protocol_section(summary: Mapping[str, Any], protocol: str) -> Mapping[str, Any]:
    """A protocol's section of a summary (``protocols.<name>``); empty when absent."""
    return (summary.get("protocols") or {}).get(protocol) or {}


def integer_ticks(ax: Axes) -> None:
    from matplotlib.ticker import MaxNLocator  # lazy: matplotlib, only when a figure is drawn

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
