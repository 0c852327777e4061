"""Reward per window: hidden-rule and fully specified panels, one line per config, points in view."""

from __future__ import annotations

from typing import Any

from pytest_pastbench.protocols.stream.figures import FIGURES, draw_reward_per_window, stream_configs


def config(label: str, *rewards: tuple[float | None, float | None]) -> dict[str, Any]:
    return {
        "label": label,
        "windows": [{"window": i, "hidden": h, "fully": f} for i, (h, f) in enumerate(rewards)],
    }


def summary(*configs: dict[str, Any]) -> dict[str, Any]:
    return {"protocols": {"stream": {"configs": list(configs)}}}


def test_only_configs_with_windows_are_drawn_sorted_by_label() -> None:
    runs = summary(config("own", (50, 90)), {"label": "blind", "windows": []}, config("blind", (30, 80)))
    assert [c["label"] for c in stream_configs(runs)] == ["blind", "own"]
    [spec] = FIGURES
    assert spec.why_not(summary({"label": "x"})) == "no stream config has per-window rewards"
    assert spec.why_not(runs) is None


def test_each_panel_has_a_line_per_config_and_a_missing_reward_is_a_gap_not_zero() -> None:
    fig = draw_reward_per_window(
        summary(config("own", (20, 90), (None, 95), (60, 100)), config("rag", (40, 85)))
    )
    hidden, fully = fig.axes[:2]
    assert (hidden.get_title(), fully.get_title()) == ("hidden rules decide (H)", "fully specified (F)")
    assert [len(ax.lines) for ax in (hidden, fully)] == [2, 2]
    own_hidden = list(hidden.lines[0].get_ydata())
    assert own_hidden[0] == 20.0 and own_hidden[1] != own_hidden[1] and own_hidden[2] == 60.0  # NaN: a gap
    low, high = hidden.get_ylim()
    assert low <= 0.0 and high >= 100.0  # percent: the whole scale in view
