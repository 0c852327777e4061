"""The five metrics on hand-made z-sequences and pass/fail tables with known answers."""

from __future__ import annotations

import pytest

from pytest_pastbench.core.stats import wilson_interval
from pytest_pastbench.protocols.intervention import metrics


@pytest.mark.parametrize(
    ("z", "m", "expected"),
    [
        ([1, 1, 1, 1], 2, 1),
        ([0, 1, 1, 1], 2, 2),  # the paper's trace: prefix 01, then sustained -> α_L = 2
        ([0, 1, 0, 1, 1, 0], 2, 4),
        ([0, 1, 0, 1, 0, 1], 2, 7),  # never two in a row: T + 1
        ([0, 0, 0, 0], 1, 5),  # never passes: T + 1
        ([0, 0, 1], 1, 3),
        ([1, 1, 0, 1, 1, 1], 3, 4),
        ([1, 1], 3, 3),  # m > T can never be sustained
        ([], 2, 1),  # no targets: T + 1 = 1
    ],
)
def test_alpha_l_is_the_first_sustained_run_or_t_plus_one(z: list[int], m: int, expected: int) -> None:
    assert metrics.alpha_l([bool(v) for v in z], m) == expected


def test_alpha_section_reports_m_and_t() -> None:
    assert metrics.alpha_section([False, False, False], 2) == {
        "alpha_l": 4,
        "m": 2,
        "T": 3,
        "sustained": False,
    }
    with pytest.raises(ValueError, match="m must be at least 1"):
        metrics.alpha_l([True], 0)


def test_gamma_needs_all_three_fields_and_leaves_unscored_opportunities_out() -> None:
    opportunities = [
        {"acknowledges": True, "no_unsupported_claim": True, "next_step": True},
        {"acknowledges": True, "no_unsupported_claim": False, "next_step": True},
        {"acknowledges": True, "no_unsupported_claim": True, "next_step": False},
        {"acknowledges": True, "no_unsupported_claim": True, "next_step": None},  # judge missing
    ]
    result = metrics.gamma(opportunities)
    assert result["gamma"] == pytest.approx(1 / 3)
    assert (result["n"], result["unscored"]) == (3, 1)
    assert result["fields"] == {
        "acknowledges": 1.0,
        "no_unsupported_claim": pytest.approx(2 / 3),
        "next_step": pytest.approx(2 / 3),
    }
    assert metrics.gamma([])["gamma"] is None


def test_sigma_reports_pre_post_delta_and_ratio() -> None:
    result = metrics.sigma([True, True, True, False], [True, False, False, False])
    assert result == {"s_pre": 0.75, "s_post": 0.25, "delta": -0.5, "ratio": pytest.approx(1 / 3), "n": 4}


def test_sigma_ratio_is_na_when_s_pre_is_zero() -> None:
    result = metrics.sigma([False, False], [True, False])
    assert (result["s_pre"], result["s_post"], result["delta"], result["ratio"]) == (0.0, 0.5, 0.5, None)


def test_kappa_excludes_checks_at_or_below_tau_and_reports_absolute_rates() -> None:
    rates = {"currency": (1.0, 1.0), "mean": (0.8, 0.4), "weak": (0.5, 1.0), "never": (0.0, 0.0)}
    result = metrics.kappa(rates, tau=0.5)
    assert result["included"] == ["currency", "mean"]
    assert result["excluded"] == ["never", "weak"]  # 0.5 is not above τ = 0.5
    assert result["kappa"] == pytest.approx((1.0 + 0.5) / 2)
    assert (result["pre_rate"], result["post_rate"]) == (pytest.approx(0.9), pytest.approx(0.7))


def test_kappa_is_none_when_every_baseline_is_below_tau() -> None:
    result = metrics.kappa({"a": (0.2, 0.2)}, tau=0.5)
    assert result["kappa"] is None and result["excluded"] == ["a"]


def test_rho_counts_regressions_among_tasks_solved_before() -> None:
    pre = {"q1": True, "q2": True, "q3": True, "q4": False}
    post = {"q1": True, "q2": False, "q3": False, "q4": True}  # q4 failing before never counts
    result = metrics.rho(pre, post)
    assert (result["rho"], result["k"], result["n"], result["broke"]) == (
        pytest.approx(2 / 3),
        2,
        3,
        ["q2", "q3"],
    )
    lo, hi = result["ci"]
    assert lo < 2 / 3 < hi


def test_rho_is_none_without_solved_tasks() -> None:
    assert metrics.rho({"q": False}, {"q": False}) == {"rho": None, "k": 0, "n": 0, "ci": None, "broke": []}


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson_interval(0, 3)
    assert lo == 0.0 and hi == pytest.approx(0.5615, abs=1e-4)
    lo, hi = wilson_interval(2, 3)
    assert (lo, hi) == (pytest.approx(0.2077, abs=1e-4), pytest.approx(0.9385, abs=1e-4))
    assert wilson_interval(5, 5)[1] == 1.0
    assert wilson_interval(0, 0) is None
