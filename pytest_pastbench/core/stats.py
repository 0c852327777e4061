"""Small statistics for reports: means and the stratified, clustered paired bootstrap of Δ CIs.

Standard library only (``random.Random(seed)``), so a run's CIs are reproducible
from its seed and the plugin pulls in no numpy.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping


def mean(values: Iterable[float]) -> float | None:
    items = list(values)
    return sum(items) / len(items) if items else None


def _percentile(ordered: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default method)."""
    pos = q * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


Cluster = tuple[float, int]  # (sum of the paired differences in one cluster, how many)


def _resampled_statistics(families: list[list[Cluster]], rng: random.Random, n_boot: int) -> list[float]:
    """``n_boot`` bootstrap values of the mean over families of the mean paired difference, each
    family's clusters resampled with replacement. (Paired: mean(on) − mean(off) in a family
    equals the mean of its per-episode differences; a replicate's family mean is the resampled
    clusters' sum over their episode count, so singleton clusters give the episode bootstrap.)

    Each index is drawn as ``rng.choice`` draws it (the fewest random bits that cover the
    family's size, redrawn when out of range; tests/core/test_stats.py checks the equality), from the
    public ``getrandbits`` and without building the resampled lists: the same numbers, several
    times faster (the bootstrap was most of a run's summary time)."""
    getrandbits = rng.getrandbits
    prepared = [([c[0] for c in f], [c[1] for c in f], len(f), len(f).bit_length()) for f in families]
    values = []
    for _ in range(n_boot):
        total = 0.0
        for sums, counts, n, bits in prepared:
            resampled_sum = 0.0
            resampled_count = 0
            for _ in range(n):
                index = getrandbits(bits)
                while index >= n:
                    index = getrandbits(bits)
                resampled_sum += sums[index]
                resampled_count += counts[index]
            total += resampled_sum / resampled_count
        values.append(total / len(prepared))
    return values


def estimates_noise(units_per_stratum: Iterable[int]) -> bool:
    """Can a stratified bootstrap over strata of these many paired units (clusters) estimate noise?

    With at most one unit in every stratum each replicate is the point estimate itself: a
    zero-width interval that says nothing about noise (one scenario group gave Δ −0.09
    [−0.09, −0.09], marked "memory hurt here"). Every CI here (Δ's, the gates') is then None,
    which the reports show as no CI and the gates as "too few paired units for a noise estimate".
    """
    return any(n > 1 for n in units_per_stratum)


def clustered(diffs: list[float], labels: list[str] | None) -> list[Cluster]:
    """Differences grouped by cluster label (first-seen order); no labels: one cluster each."""
    if labels is None:
        return [(d, 1) for d in diffs]
    sums: dict[str, list[float]] = {}
    for diff, label in zip(diffs, labels, strict=True):
        sums.setdefault(label, []).append(diff)
    return [(sum(values), len(values)) for values in sums.values()]


def paired_bootstrap_ci(
    groups: dict[str, list[tuple[float, float]]],
    seed: int,
    n_boot: int = 2000,
    level: float = 0.95,
    clusters: dict[str, list[str]] | None = None,
) -> tuple[float, float] | None:
    """Percentile CI of the mean over families of (mean on − mean off).

    Each replicate resamples within each family (stratified), so every family keeps its weight.
    ``clusters`` (family → one label per pair, e.g. the episode's scenario ``group``) makes the
    resampled unit the cluster: episodes generated from one template are not independent draws.
    Without it each episode is its own cluster. Families are visited in sorted order. None when
    no family has more than one cluster (``estimates_noise``).
    """
    clusters = clusters or {}
    families = [
        clustered([on - off for on, off in groups[f]], clusters.get(f)) for f in sorted(groups) if groups[f]
    ]
    if not estimates_noise(len(f) for f in families):
        return None
    reps = sorted(_resampled_statistics(families, random.Random(seed), n_boot))
    alpha = (1 - level) / 2
    return _percentile(reps, alpha), _percentile(reps, 1 - alpha)


def wilson_interval(successes: int, total: int, z: float = 1.959963984540054) -> tuple[float, float] | None:
    """Wilson score interval of a proportion (95% by default); None when ``total`` is 0.

    Unlike the normal approximation it stays inside [0, 1] and is informative for the small
    denominators per-user suites have (0/3 gives [0, 0.56], not [0, 0])."""
    if total <= 0:
        return None
    p = successes / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * ((p * (1 - p) / total + z * z / (4 * total * total)) ** 0.5) / denominator
    # Exact at the edges (0/n, n/n), where the formula leaves a rounding residue.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == total else min(1.0, centre + half)
    return low, high


def stratified_mean(units: Mapping[str, Mapping[str, float]]) -> float | None:
    """The mean over strata of each stratum's mean over its units (empty strata left out): the
    statistic ``paired_bootstrap_ci`` resamples, so a value and the CI of its change agree."""
    means = [mean(values.values()) for _, values in sorted(units.items()) if values]
    return mean(m for m in means if m is not None)


# Two-stage bootstrap (run-to-run noise) ------------------------------------------------------------

TrialEpisode = tuple[list[float], list[float]]  # one episode: its on-arm trial scores, its off-arm ones


def _prepared(values: list[float]) -> tuple[list[float], int, int]:
    return values, len(values), len(values).bit_length()


def two_stage_bootstrap_ci(
    groups: dict[str, list[TrialEpisode]],
    seed: int,
    n_boot: int = 2000,
    level: float = 0.95,
    clusters: dict[str, list[str]] | None = None,
) -> tuple[float, float] | None:
    """Percentile CI of the mean over families of the mean paired Δ, with run-to-run noise inside.

    Stage 1 resamples each family's clusters (as ``paired_bootstrap_ci``); stage 2 resamples, in
    every drawn episode, its on-arm trials and its off-arm trials (each with replacement, each
    arm on its own: the arms are separate runs), so the variance between trials of one episode is
    in the interval as well as the variance between episodes. Episodes missing an arm are left out.
    With one trial per arm stage 2 draws nothing and the CI is ``paired_bootstrap_ci``'s; None, as
    there, when no family has more than one cluster (``estimates_noise``: trials of one scenario
    group say nothing about another's)."""
    clusters = clusters or {}
    families: list[list[list[TrialEpisode]]] = []
    for family in sorted(groups):
        episodes = groups[family]
        labels = clusters.get(family) or [str(i) for i in range(len(episodes))]
        by_cluster: dict[str, list[TrialEpisode]] = {}
        for episode, label in zip(episodes, labels, strict=True):
            if episode[0] and episode[1]:
                by_cluster.setdefault(label, []).append(episode)
        if by_cluster:
            families.append(list(by_cluster.values()))
    if not estimates_noise(len(f) for f in families):
        return None
    # Indices drawn as in ``_resampled_statistics`` (the fewest random bits, redrawn when out of
    # range), from one local getrandbits: the bootstrap runs per scope and k > 1 multiplies it.
    getrandbits = random.Random(seed).getrandbits
    prepared = [
        ([[(_prepared(on), _prepared(off)) for on, off in c] for c in f], len(f), len(f).bit_length())
        for f in families
    ]

    def resampled_mean(values: list[float], n: int, bits: int) -> float:
        if n == 1:  # nothing to resample, and no draw: one trial gives the one-stage CI exactly
            return values[0]
        total = 0.0
        for _ in range(n):
            index = getrandbits(bits)
            while index >= n:
                index = getrandbits(bits)
            total += values[index]
        return total / n

    reps = []
    for _ in range(n_boot):
        total = 0.0
        for family_clusters, n, bits in prepared:
            diff_sum, count = 0.0, 0
            for _ in range(n):
                index = getrandbits(bits)
                while index >= n:
                    index = getrandbits(bits)
                for on, off in family_clusters[index]:
                    diff_sum += resampled_mean(*on) - resampled_mean(*off)
                    count += 1
            total += diff_sum / count
        reps.append(total / len(prepared))
    reps.sort()
    alpha = (1 - level) / 2
    return _percentile(reps, alpha), _percentile(reps, 1 - alpha)


def sample_sd(values: Iterable[float]) -> float | None:
    """Sample standard deviation (n − 1); None with fewer than two values."""
    items = list(values)
    if len(items) < 2:
        return None
    centre = sum(items) / len(items)
    return (sum((x - centre) ** 2 for x in items) / (len(items) - 1)) ** 0.5
