"""The intervention matrix: one row per event × profile over every config, five metric groups of
one column per config, each value coloured by how good it is (1 best, 0 worst, NaN not measured)."""

from __future__ import annotations

import math
from typing import Any

from pytest_pastbench.protocols.intervention.figures import (
    FIGURES,
    draw_intervention_matrix,
    intervention_configs,
    intervention_matrix,
)


def cell(alpha_l: int, gamma: float, sigma: float, kappa: float, rho: float) -> dict[str, Any]:
    """One measured event × profile cell (T = 4 post-event sessions)."""
    return {"n": 2, "alpha_l": alpha_l, "T": 4, "gamma": {"gamma": gamma}, "sigma": {"ratio": sigma},
            "kappa": {"kappa": kappa}, "rho": {"rho": rho}}  # fmt: skip


GOOD = cell(1, 1.0, 1.4, 1.0, 0.0)
POOR = cell(5, 0.25, 0.5, 0.0, 1.0)


def config(label: str, profiles: dict[str, Any], event: str = "method") -> dict[str, Any]:
    return {"label": label, "matrix": {"intervention.analytics": {event: {"profiles": profiles}}}}


def summary(*configs: dict[str, Any]) -> dict[str, Any]:
    return {"protocols": {"intervention": {"configs": list(configs)}}}


def test_only_configs_with_a_matrix_are_drawn_sorted_by_label() -> None:
    configs = summary(config("b", {"light": GOOD}), {"label": "a"}, config("a", {"light": GOOD}))
    assert [c["label"] for c in intervention_configs(configs)] == ["a", "b"]
    assert intervention_configs({}) == []
    [spec] = FIGURES
    assert spec.why_not({}) == "no intervention config has a measured cell"
    assert spec.why_not(configs) is None


def test_the_matrix_rows_are_every_cell_and_columns_are_metric_major() -> None:
    configs = [config("a", {"light": GOOD}), config("b", {"power": POOR}, event="schema")]
    rows, values, good = intervention_matrix(configs)
    assert rows == ["analytics/method · light", "analytics/schema · power"]
    assert values.shape == good.shape == (2, 5 * 2)
    # config a measured only the first row, config b only the second: the rest is NaN, not 0
    assert list(values[0, ::2]) == [1, 1.0, 1.4, 1.0, 0.0] and all(math.isnan(v) for v in values[0, 1::2])
    assert list(values[1, 1::2]) == [5, 0.25, 0.5, 0.0, 1.0]


def test_goodness_is_one_for_no_loss_and_zero_for_the_worst() -> None:
    _, _, good = intervention_matrix([config("a", {"light": GOOD, "power": POOR})])
    assert list(good[0]) == [1.0, 1.0, 1.0, 1.0, 1.0]  # a σ ratio over 1 is as good as 1
    assert list(good[1]) == [0.0, 0.25, 0.5, 0.0, 0.0]  # α_L of T+1: never adapted


def test_an_unmeasured_cell_is_grey_not_zero() -> None:
    _, values, good = intervention_matrix([config("a", {"light": {"n": 0}})])
    assert all(math.isnan(v) for v in [*values[0], *good[0]])


def test_the_figure_has_one_heatmap_row_per_cell() -> None:
    fig = draw_intervention_matrix(summary(config("a", {"light": GOOD, "power": POOR})))
    assert fig.axes[0].images[0].get_array().shape == (2, 5)
