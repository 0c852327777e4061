"""P, P_sat and the saturating fit: known parameters are recovered, the 10-point floor and the
3× extrapolation cap behave as specified, and unknown or zero prices say why P is N/A."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_pastbench.errors import FitError
from pytest_pastbench.protocols.plasticity.engine import Decision, tally
from pytest_pastbench.protocols.plasticity.metrics import (
    EXTRAPOLATION_CAP,
    cost_series,
    fit_saturating,
    gains_per_cost,
    hill,
    lineage_metrics,
    p_sat,
    taxonomy,
)


@pytest.mark.parametrize(
    ("s0", "rise", "c50", "h"),
    [(20.0, 60.0, 10.0, 2.0), (5.0, 80.0, 3.0, 1.0), (40.0, 35.0, 25.0, 4.0), (0.0, 100.0, 0.5, 1.5)],
)
def test_the_fit_recovers_known_parameters(s0: float, rise: float, c50: float, h: float) -> None:
    costs = list(np.linspace(0.0, 6 * c50, 13))
    fit = fit_saturating(costs, list(hill(costs, s0, rise, c50, h)))
    assert fit.s0 == pytest.approx(s0, abs=0.05)
    assert fit.rise == pytest.approx(rise, rel=0.01)
    assert fit.c50 == pytest.approx(c50, rel=0.01)
    assert fit.h == pytest.approx(h, rel=0.01)
    assert fit.c90 == pytest.approx(c50 * 9 ** (1 / h), rel=0.02)


def test_the_fit_is_close_under_noise() -> None:
    rng = np.random.default_rng(0)
    costs = list(np.linspace(0.0, 60.0, 21))
    scores = hill(costs, 20.0, 60.0, 10.0, 2.0) + rng.normal(0.0, 2.0, 21)
    fit = fit_saturating(costs, list(scores))
    assert fit.rise == pytest.approx(60.0, rel=0.1) and fit.c50 == pytest.approx(10.0, rel=0.15)


def test_p_sat_is_the_gain_per_cost_at_ninety_percent_of_the_rise() -> None:
    costs = list(np.linspace(0.0, 50.0, 11))  # c90 = 30: observed
    result = p_sat(costs, list(hill(costs, 20.0, 60.0, 10.0, 2.0)), per=1000.0)
    assert result["status"] == "observed"
    assert result["cost_at"] == pytest.approx(30.0, rel=1e-3)
    assert result["value"] == pytest.approx(0.9 * 60.0 / 30.0 * 1000.0, rel=1e-3)
    assert set(result["fit"]) == {"s0", "rise", "c50", "h", "c90", "rmse"}


def test_a_rise_under_ten_points_gives_p_sat_zero() -> None:
    costs = list(np.linspace(0.0, 50.0, 11))
    small = p_sat(costs, list(hill(costs, 30.0, 10.5, 10.0, 2.0)), per=1000.0)  # 90% rise 9.45
    assert (small["value"], small["status"]) == (0.0, "floor") and "under 10" in small["reason"]
    enough = p_sat(costs, list(hill(costs, 30.0, 12.0, 10.0, 2.0)), per=1000.0)  # 90% rise 10.8
    assert enough["status"] == "observed" and enough["value"] > 0
    falling = p_sat(costs, list(hill(costs, 60.0, -40.0, 10.0, 2.0)), per=1000.0)
    assert falling["value"] == 0.0


def test_extrapolation_goes_at_most_three_times_the_last_cost() -> None:
    within = [0.0, 4.0, 8.0, 12.0, 16.0, 20.0]  # c90 = 30: 1.5× the last cost
    result = p_sat(within, list(hill(within, 20.0, 60.0, 10.0, 2.0)), per=1.0)
    assert result["status"] == "extrapolated" and result["cost_at"] == pytest.approx(30.0, rel=1e-3)
    beyond = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]  # c90 = 30: 6× the last cost
    result = p_sat(beyond, list(hill(beyond, 20.0, 60.0, 10.0, 2.0)), per=1.0)
    cap = EXTRAPOLATION_CAP * 5.0
    assert result["status"] == "capped" and result["cost_at"] == pytest.approx(cap)
    expected = float(hill(cap, 20.0, 60.0, 10.0, 2.0) - 20.0) / cap
    assert result["value"] == pytest.approx(expected, rel=1e-2)


def test_a_fit_needs_four_points_and_a_cost() -> None:
    with pytest.raises(FitError, match="at least 4"):
        fit_saturating([0.0, 1.0, 2.0], [0.0, 10.0, 20.0])
    with pytest.raises(FitError, match="every learning cost is 0"):
        fit_saturating([0.0] * 5, [0.0, 10.0, 20.0, 30.0, 40.0])
    assert p_sat([0.0, 1.0, 2.0], [0.0, 10.0, 20.0], 1.0)["value"] is None


def test_p_is_gain_over_cost_from_checkpoint_zero() -> None:
    assert gains_per_cost([10.0, 30.0, 50.0], [0.0, 2.0, 4.0], 1000.0) == [None, 10_000.0, 10_000.0]
    assert gains_per_cost([10.0, 30.0], [0.0, None], 1.0) == [None, None]


def _rows(usd: list[float | None], ids: list[float]) -> list[dict]:
    return [
        {
            "checkpoint": t,
            "learning_cost": {"usd": u, "tokens": 1000 * t},
            "scores": {"id": s, "ood": s / 2, "train": s},
            "decisions": {"id": tally([Decision(s < 100, ["tool:x"] if t else [], ["tool:x"] if t else [])])},
        }
        for t, (u, s) in enumerate(zip(usd, ids, strict=True))
    ]


def test_unknown_or_zero_prices_make_dollar_figures_na_with_the_reason_and_keep_tokens() -> None:
    ids = [0.0, 40.0, 70.0, 85.0, 90.0]
    unknown = lineage_metrics(_rows([0.0, None, None, None, None], ids))
    assert unknown["p_sat"]["usd_per_1000"]["value"] is None
    assert "cost unknown" in unknown["p_sat"]["usd_per_1000"]["reason"]
    assert unknown["p_sat"]["per_1000_tokens"]["value"] > 0
    assert unknown["p_id"]["per_1000_tokens"][1] == pytest.approx(40.0)  # 40 points per 1,000 tokens
    free = cost_series(_rows([0.0] * 5, ids))[2]
    assert free is not None and "$0" in free
    priced = lineage_metrics(_rows([0.0, 0.01, 0.02, 0.03, 0.04], ids))
    assert priced["usd_na_reason"] is None
    assert priced["p_id"]["usd_per_1000"][1] == pytest.approx(40.0 / 0.01 * 1000)
    assert priced["curves"]["id"] == [{"x": t, "y": s} for t, s in enumerate(ids)]


def test_the_taxonomy_sorts_each_failed_decision_into_one_cause() -> None:
    decisions = [
        Decision(failed=True, covering=[], used=[]),  # nothing covered it
        Decision(failed=True, covering=["tool:a"], used=["note:m0001"]),  # covered, not used
        Decision(failed=True, covering=["tool:a"], used=["tool:a"]),  # used, still failed
        Decision(failed=False, covering=["tool:a"], used=["tool:a"]),  # reused, fine
        Decision(failed=False, covering=[], used=[]),
    ]
    assert [d.category for d in decisions] == [
        "no_covering_artifact",
        "unused",
        "used_still_failed",
        None,
        None,
    ]
    counts = tally(decisions)
    assert counts == {
        "total": 5,
        "failed": 3,
        "relevant": 3,
        "reused": 2,
        "no_covering_artifact": 1,
        "unused": 1,
        "used_still_failed": 1,
    }
    merged = taxonomy([{"decisions": {"id": counts}}, {"decisions": {"id": counts}}])
    assert merged["id"]["failed"] == 6 and merged["id"]["reuse_rate"] == pytest.approx(2 / 3, abs=1e-4)
