"""The stream protocol's report figure: ``reward_per_window.png``, test reward per window (store
frozen), hidden-rule and fully-specified tickets, one line per config."""

from __future__ import annotations

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

POINTS = (0.0, 100.0)  # stream rewards are percent


def stream_configs(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Stream configs that carry per-window rewards, by label."""
    configs = protocol_section(summary, "stream").get("configs") or []
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
        integer_ticks(ax)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("test reward, % (store frozen)")
    axes[0].set_ylim(*padded_limits(ys, include=POINTS, pad=0.05))
    handles, names = axes[0].get_legend_handles_labels()
    legend_below(area, handles, names, 12.0)
    area.suptitle("Streams: test reward per window, mean over streams")
    return fig


FIGURES = (
    FigureSpec(
        "reward_per_window.png",
        "stream",
        "Test reward per window with the store frozen, mean over streams: hidden-rule (H) and "
        "fully specified (F) tickets, one line per config.",
        needs(stream_configs, "no stream config has per-window rewards"),
        draw_reward_per_window,
    ),
)
