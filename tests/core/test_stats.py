"""mean() and the stratified paired bootstrap CI."""

from __future__ import annotations

import random

import pytest

from pytest_pastbench.core.stats import (
    _percentile,
    _resampled_statistics,
    clustered,
    mean,
    paired_bootstrap_ci,
)


def test_mean() -> None:
    assert mean([]) is None
    assert mean([1.0, 2.0, 4.5]) == pytest.approx(2.5)  # 7.5 / 3
    assert mean(x for x in (0.2, 0.4)) == pytest.approx(0.3)


def test_percentile_interpolates_between_ranks() -> None:
    # position 0.5 × (4 − 1) = 1.5 → halfway between 1 and 2
    assert _percentile([0.0, 1.0, 2.0, 3.0], 0.5) == pytest.approx(1.5)
    # position 0.025 × 4 = 0.1 → 10 + 0.1 × (20 − 10) = 11
    assert _percentile([10.0, 20.0, 30.0, 40.0, 50.0], 0.025) == pytest.approx(11.0)


def test_no_pairs_gives_none() -> None:
    assert paired_bootstrap_ci({}, seed=1) is None
    assert paired_bootstrap_ci({"a.f": []}, seed=1) is None


def test_degenerate_ci_when_every_difference_is_equal() -> None:
    groups = {"a.f": [(0.9, 0.7), (0.5, 0.3)], "b.g": [(0.4, 0.2)]}
    lo, hi = paired_bootstrap_ci(groups, seed=3) or (None, None)
    assert lo == pytest.approx(0.2) and hi == pytest.approx(0.2)


def test_deterministic_for_a_seed() -> None:
    groups = {"a.f": [(1.0, 0.0), (0.2, 0.4), (0.6, 0.1), (0.3, 0.3)]}
    first = paired_bootstrap_ci(groups, seed=7, n_boot=500)
    assert first == paired_bootstrap_ci(groups, seed=7, n_boot=500)
    # Dict order does not matter (families are visited sorted).
    two = {"b": [(1.0, 0.0), (0.0, 0.0)], "a": [(0.5, 0.0), (0.0, 0.5)]}
    flipped = dict(reversed(list(two.items())))
    assert paired_bootstrap_ci(two, 11) == paired_bootstrap_ci(flipped, 11)
    # With many distinct differences, another seed gives another interval.
    varied = {"a.f": [(i / 37, (i * 7 % 11) / 11) for i in range(37)]}
    assert paired_bootstrap_ci(varied, seed=7) != paired_bootstrap_ci(varied, seed=8)


def test_ci_brackets_the_estimate_within_the_range_of_differences() -> None:
    groups = {"a.f": [(1.0, 0.0), (0.2, 0.4), (0.6, 0.1), (0.3, 0.3)]}
    # diffs 1.0, −0.2, 0.5, 0.0 → estimate 1.3 / 4 = 0.325
    lo, hi = paired_bootstrap_ci(groups, seed=7) or (None, None)
    assert -0.2 <= lo < 0.325 < hi <= 1.0
    narrow = paired_bootstrap_ci(groups, seed=7, level=0.5)
    assert narrow is not None and lo <= narrow[0] and narrow[1] <= hi


def test_resampling_is_stratified_by_family() -> None:
    # Family a: one episode, Δ = 1; family b: nine episodes, Δ = 0. Stratified, every
    # replicate is (1 + 0) / 2 = 0.5. Pooling episodes across families would vary.
    groups = {"a": [(1.0, 0.0)], "b": [(0.5, 0.5)] * 9}
    lo, hi = paired_bootstrap_ci(groups, seed=0) or (None, None)
    assert lo == pytest.approx(0.5) and hi == pytest.approx(0.5)


def test_families_weigh_equally_not_by_episode_count() -> None:
    groups = {"a": [(1.0, 0.0), (0.0, 0.0)], "b": [(0.0, 0.0)] * 20}
    # family means: a ∈ {0, 0.5, 1}, b = 0 → statistic ∈ {0, 0.25, 0.5}
    lo, hi = paired_bootstrap_ci(groups, seed=2) or (None, None)
    assert lo == pytest.approx(0.0) and hi == pytest.approx(0.5)


def test_resampling_draws_the_indices_random_choice_draws() -> None:
    # The figures published before the faster resampling came from rng.choice; they must not move.
    data = random.Random(7)
    values = [0.0, 0.5, 1.0, -0.25, 1 / 3]
    diffs = [[data.choice(values) for _ in range(data.randint(1, 13))] for _ in range(26)]

    def with_choice(seed: int) -> list[float]:
        rng = random.Random(seed)
        resampled = ([[rng.choice(d) for _ in d] for d in diffs] for _ in range(300))
        return [sum(sum(d) / len(d) for d in groups) / len(groups) for groups in resampled]

    singletons = [[(d, 1) for d in family] for family in diffs]
    for seed in (0, 1, 20260301):
        assert _resampled_statistics(singletons, random.Random(seed), 300) == with_choice(seed)


def test_clusters_are_resampled_whole() -> None:
    # Two scenarios of four episodes each: Δ = 1 in one, 0 in the other. Resampling the two
    # clusters, a replicate is 0, 0.5 or 1; resampling eight "independent" episodes it would
    # rarely leave [0.25, 0.75].
    groups = {"a": [(1.0, 0.0)] * 4 + [(0.0, 0.0)] * 4}
    labels = {"a": ["t1"] * 4 + ["t2"] * 4}
    lo, hi = paired_bootstrap_ci(groups, seed=0, clusters=labels) or (None, None)
    assert lo == pytest.approx(0.0) and hi == pytest.approx(1.0)
    by_episode = paired_bootstrap_ci(groups, seed=0) or (None, None)
    assert by_episode[0] > 0.0 and by_episode[1] < 1.0
    # Unequal clusters: a replicate's family mean is the resampled episodes' mean (ratio), so
    # the point estimate 3/4 lies inside and the extremes are the clusters' own means.
    uneven = {"a": [(1.0, 0.0)] * 3 + [(0.0, 0.0)]}
    lo, hi = paired_bootstrap_ci(uneven, seed=1, clusters={"a": ["x", "x", "x", "y"]}) or (None, None)
    assert lo == pytest.approx(0.0) and hi == pytest.approx(1.0)


def test_clustered_groups_by_label_in_first_seen_order() -> None:
    assert clustered([0.5, 1.0, 0.25], ["b", "a", "b"]) == [(0.75, 2), (1.0, 1)]
    assert clustered([0.5, 1.0], None) == [(0.5, 1), (1.0, 1)]


def test_two_stage_bootstrap_resamples_trials_within_episodes() -> None:
    from pytest_pastbench.core.stats import sample_sd, two_stage_bootstrap_ci

    # One trial per arm: the same CI as the one-stage bootstrap's.
    single = {"a.f": [([x], [0.0]) for x in (0.1, 0.5, 0.9, 0.3)]}
    one_stage = paired_bootstrap_ci({"a.f": [(x, 0.0) for x in (0.1, 0.5, 0.9, 0.3)]}, seed=5)
    assert one_stage is not None and two_stage_bootstrap_ci(single, seed=5) == one_stage
    # Every episode has trial mean 0.5: without stage 2 the CI would be [0.5, 0.5].
    noisy = {"a.f": [([0.0, 1.0], [0.0, 0.0]) for _ in range(6)]}
    lo, hi = two_stage_bootstrap_ci(noisy, seed=1) or (0.0, 0.0)
    assert lo < 0.4 and hi > 0.6
    steady = {"a.f": [([0.5, 0.5], [0.0, 0.0]) for _ in range(6)]}
    assert two_stage_bootstrap_ci(steady, seed=1) == pytest.approx((0.5, 0.5))
    assert two_stage_bootstrap_ci({"a.f": [([0.5], [])]}, seed=1) is None  # no off arm: left out
    assert sample_sd([0.4, 0.5, 0.6]) == pytest.approx(0.1) and sample_sd([0.3]) is None


def test_one_unit_per_stratum_gives_no_ci_in_either_bootstrap() -> None:
    """Every replicate of one unit is the point estimate: no CI (``estimates_noise``), whether the
    unit is an episode, a scenario group of several episodes, or an episode with several trials."""
    from pytest_pastbench.core.stats import estimates_noise, paired_bootstrap_ci, two_stage_bootstrap_ci

    assert not estimates_noise([1, 1, 0]) and estimates_noise([1, 2])
    assert paired_bootstrap_ci({"a": [(0.2, 0.5)], "b": [(0.1, 0.4)]}, seed=0) is None
    grouped = {"a": [(0.2, 0.5), (0.3, 0.5)]}
    assert paired_bootstrap_ci(grouped, seed=0, clusters={"a": ["g", "g"]}) is None
    assert paired_bootstrap_ci(grouped, seed=0) is not None  # two episodes, two units
    trials = {"a": [([0.2, 0.3, 0.1], [0.5, 0.4, 0.6])]}
    assert two_stage_bootstrap_ci(trials, seed=0) is None
