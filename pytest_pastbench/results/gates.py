"""Regression gates: fail CI when a run got worse than a baseline by more than a threshold.

A gate is ``[SCOPE.]METRIC:THRESHOLD`` (pytest-benchmark's ``--benchmark-compare-fail``, with a
scope per family or capability and a two-sided form). The threshold decides ``failed``; the
paired, family-stratified bootstrap over episodes says whether the change is beyond noise, so a
reader can tell a real regression from a re-roll of the same agent.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..core.stats import mean, paired_bootstrap_ci, stratified_mean
from ..errors import BaselineError, GateSyntaxError
from ..judge.base import describe_judge
from .baseline import DEFAULT_STORAGE, Baseline, Episodes, load_baseline, protocol_gate_metrics

if TYPE_CHECKING:
    from ..protocols.base import GateMetric

METRICS = ("delta", "mech", "s_on", "s_off", "wp", "ra", "uc", "rh", "pr")
COMPONENT_METRICS = frozenset({"wp", "ra", "uc", "rh", "pr"})
# pr is the share of polluted live entries: for it a rise is the regression.
LOWER_IS_BETTER = frozenset({"pr"})
# Float noise from the 4-decimal rounding of summaries must not turn "exactly the limit" into a fail.
_EPS = 1e-9

GATE_SYNTAX = (
    "[SCOPE.]METRIC:THRESHOLD, e.g. delta:0.05, update.delta:0.05, update.SM03_fact_correction.mech:±0.1, "
    "stream.hidden:2.0, stream.L1.fully:5, intervention.rho:0.05, plasticity.id_end:10; "
    "SCOPE is overall (the default), a capability or a family id; for another protocol's metric it is "
    "the protocol (its overall), a stream tier, a family id or an intervention cell; "
    f"METRIC is one of {', '.join(METRICS)} or a protocol's gate metric; "
    "THRESHOLD is a number >= 0 (a worse change beyond it fails; ±X or +-X fails on a change either way); "
    "several gates: comma-separated or repeated"
)
_SCOPE = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_/-]+)?$")
_TWO_SIDED = ("±", "+/-", "+-")


def _on_off_value(
    pick: Callable[[float, float], float],
) -> Callable[[float | None, float | None], float | None]:
    def value(on: float | None, off: float | None) -> float | None:
        return None if on is None or off is None else pick(on, off)

    return value


# Metrics with a per-episode value, hence a bootstrap CI of their change.
EPISODE_METRICS: dict[str, Callable[[float | None, float | None], float | None]] = {
    "delta": _on_off_value(lambda on, off: on - off),
    "s_on": lambda on, off: on,
    "s_off": lambda on, off: off,
}


@dataclass(frozen=True)
class Gate:
    scope: str
    metric: str
    threshold: float
    two_sided: bool = False

    @property
    def name(self) -> str:
        return f"{self.scope}.{self.metric}"

    @property
    def limit(self) -> str:
        return f"{'±' if self.two_sided else ''}{self.threshold:g}"

    def __str__(self) -> str:
        return f"{self.name}:{self.limit}"


@dataclass
class GateResult:
    gate: Gate
    label: str
    baseline_label: str
    current: float | None = None
    baseline: float | None = None
    change: float | None = None
    failed: bool = False
    error: str | None = None
    ci: tuple[float, float] | None = None
    exceeds_noise: bool | None = None
    message: str = ""

    @property
    def passed(self) -> bool:
        return not self.failed and self.error is None

    @property
    def status(self) -> str:
        return "ERROR" if self.error is not None else "FAIL" if self.failed else "ok"


# protocol name -> its gate metric names (``BenchProtocol.gate_metric_names``).
ProtocolMetrics = Mapping[str, frozenset[str]]


def valid_metrics_text(protocols: ProtocolMetrics) -> str:
    """``past: delta, mech, …; stream: aulc10, fully, …``: what a gate may name in this run."""
    known = {"past": frozenset(METRICS), **{p: names for p, names in protocols.items() if p != "past"}}
    return "; ".join(
        f"{p}: {', '.join(METRICS if p == 'past' else sorted(names))}"
        for p, names in sorted(known.items(), key=lambda kv: (kv[0] != "past", kv[0]))
    )


def metric_owner(metric: str, protocols: ProtocolMetrics) -> str | None:
    """The protocol (not PAST) whose gate metric ``metric`` is; None for PAST's or an unknown one."""
    if metric in METRICS:
        return None
    owners = sorted(p for p, names in protocols.items() if p != "past" and metric in names)
    return owners[0] if owners else None


def _protocol_scope(text: str, scope: str, metric: str, owner: str) -> str:
    """A protocol metric's scope: the protocol itself when none is given; it must name the owner."""
    if scope == "overall":
        return owner
    if scope == owner or scope.startswith(f"{owner}."):
        return scope
    raise GateSyntaxError(
        f"gate {text!r}: {metric!r} is a {owner} metric; scope it as {owner}.{metric} or "
        f"{owner}.<tier|family|cell>.{metric}; syntax: {GATE_SYNTAX}"
    )


def _parse_one(text: str, protocol_metrics: ProtocolMetrics | None = None) -> Gate:
    target, colon, limit = text.partition(":")
    if not colon:
        raise GateSyntaxError(f"gate {text!r}: missing ':THRESHOLD'; syntax: {GATE_SYNTAX}")
    scope, dot, metric = target.strip().rpartition(".")
    metric = metric.strip().lower()
    if not dot:
        scope = "overall"
    protocols = protocol_metrics or {}
    owner = metric_owner(metric, protocols)
    if metric not in METRICS and owner is None:
        raise GateSyntaxError(
            f"gate {text!r}: unknown metric {metric!r}; valid metrics: {valid_metrics_text(protocols)}; "
            f"syntax: {GATE_SYNTAX}"
        )
    if not _SCOPE.match(scope):
        raise GateSyntaxError(f"gate {text!r}: bad scope {scope!r}; syntax: {GATE_SYNTAX}")
    if owner is not None:
        scope = _protocol_scope(text, scope, metric, owner)
    limit = limit.strip()
    two_sided = limit.startswith(_TWO_SIDED)
    if two_sided:
        limit = limit[next(len(p) for p in _TWO_SIDED if limit.startswith(p)) :].strip()
    try:
        threshold = float(limit)
    except ValueError:
        raise GateSyntaxError(
            f"gate {text!r}: threshold {limit!r} is not a number; syntax: {GATE_SYNTAX}"
        ) from None
    if not math.isfinite(threshold) or threshold < 0 or limit.startswith("-"):
        raise GateSyntaxError(
            f"gate {text!r}: threshold must be a finite number >= 0 (the direction comes from the metric; "
            f"±X checks both); syntax: {GATE_SYNTAX}"
        )
    return Gate(scope=scope, metric=metric, threshold=threshold, two_sided=two_sided)


def parse_gates(exprs: list[str], protocol_metrics: ProtocolMetrics | None = None) -> list[Gate]:
    """Gates from ``--fail`` values, each one expression or several separated by commas.
    ``protocol_metrics``: the registered protocols' gate metric names (protocol -> names),
    accepted besides PAST's; an unknown metric's error lists them all.

    Identical gates given twice are kept once (a repeated CI flag should not print twice).
    """
    gates: list[Gate] = []
    for raw in exprs:
        parts = [p.strip() for p in raw.split(",")]
        if not any(parts) or "" in parts:
            raise GateSyntaxError(f"empty gate expression in {raw!r}; syntax: {GATE_SYNTAX}")
        for part in parts:
            gate = _parse_one(part, protocol_metrics)
            if gate not in gates:
                gates.append(gate)
    if not gates:
        raise GateSyntaxError(f"no gate given; syntax: {GATE_SYNTAX}")
    return gates


def match_configs(
    current: dict[str, Any], baseline: dict[str, Any]
) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], list[str]]:
    """Pairs of (current config, baseline config) to compare, and notes on what was not paired.

    Configs pair by label; when each side has exactly one config they pair whatever their labels,
    because "this run against that baseline" is then unambiguous (e.g. a model swap).
    """
    cur = {c["label"]: c for c in current.get("configs", [])}
    base = {c["label"]: c for c in baseline.get("configs", [])}
    common = sorted(set(cur) & set(base))
    notes: list[str] = []
    if common:
        notes += [f"{label}: only in the current run, not compared" for label in sorted(set(cur) - set(base))]
        notes += [f"{label}: only in the baseline, not compared" for label in sorted(set(base) - set(cur))]
        return [(cur[label], base[label]) for label in common], notes
    if len(cur) == 1 and len(base) == 1:
        [(c_label, c_config)] = cur.items()
        [(b_label, b_config)] = base.items()
        notes.append(
            f"comparing {c_label} with baseline {b_label} (labels differ; the only config on each side)"
        )
        return [(c_config, b_config)], notes
    notes.append(
        f"no configuration in common: current has {', '.join(sorted(cur)) or 'none'}; "
        f"baseline has {', '.join(sorted(base)) or 'none'}"
    )
    return [], notes


# Capability and overall values are means over families (summary.py); these are the ones gated.
_MEANS = ("s_on", "s_off", "delta", "mech")


def _means_over(families: list[dict[str, Any]]) -> dict[str, Any]:
    def known_mean(values: list[Any]) -> float | None:
        return mean(v for v in values if v is not None)

    components = sorted({name for f in families for name in f.get("mech_components") or {}})
    return {
        **{key: known_mean([f.get(key) for f in families]) for key in _MEANS},
        "mech_components": {
            name: known_mean([(f.get("mech_components") or {}).get(name) for f in families])
            for name in components
        },
    }


def _restricted(config: dict[str, Any], families: set[str]) -> dict[str, Any]:
    """``config`` as if it had measured only ``families``: capability and overall rebuilt."""
    kept = {fid: entry for fid, entry in config.get("families", {}).items() if fid in families}
    capabilities = {}
    for fid, entry in kept.items():
        capabilities.setdefault(entry.get("capability") or fid.partition(".")[0], []).append(entry)
    return {
        **config,
        "families": kept,
        "capabilities": {cap: _means_over(entries) for cap, entries in sorted(capabilities.items())},
        "overall": _means_over(list(kept.values())),
    }


def pair_families(
    current_config: dict[str, Any], baseline_config: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """Both configs restricted to the families both measured, and a note naming the rest.

    A capability or overall value is a mean over families, so a baseline of seven families and
    a run of one would otherwise compare different selections (and a CI over the one shared
    family would not describe the change printed beside it).
    """
    now, before = set(current_config.get("families", {})), set(baseline_config.get("families", {}))
    if now == before:
        return current_config, baseline_config, None
    common = now & before
    left_out = []
    if before - now:
        left_out.append(f"only in the baseline: {', '.join(sorted(before - now))}")
    if now - before:
        left_out.append(f"only in the current run: {', '.join(sorted(now - before))}")
    counted = f"{len(common)} {'family' if len(common) == 1 else 'families'}"
    note = (
        f"comparing the {counted} in both runs; left out {'; '.join(left_out)} "
        f"{_tag(current_config['label'], baseline_config['label'])}"
    )
    return _restricted(current_config, common), _restricted(baseline_config, common), note


def _scope_entry(config: dict[str, Any], scope: str) -> tuple[dict[str, Any] | None, str]:
    """The summary entry of ``scope`` and, when missing, why (listing what exists)."""
    if scope == "overall":
        entry = config.get("overall")
        return entry, "" if entry else "no overall entry"
    families = config.get("families", {})
    capabilities = config.get("capabilities", {})
    if "." in scope:
        if scope in families:
            return families[scope], ""
        return None, f"no family {scope!r} (families: {', '.join(sorted(families)) or 'none'})"
    if scope in capabilities:
        return capabilities[scope], ""
    hint = [fid for fid in sorted(families) if fid.partition(".")[2] == scope]
    suggestion = f"; did you mean {hint[0]}?" if hint else ""
    return (
        None,
        f"no capability {scope!r} (capabilities: {', '.join(sorted(capabilities)) or 'none'}){suggestion}",
    )


def _value(config: dict[str, Any], gate: Gate) -> tuple[float | None, str]:
    entry, problem = _scope_entry(config, gate.scope)
    if entry is None:
        return None, problem
    source = entry.get("mech_components") or {} if gate.metric in COMPONENT_METRICS else entry
    value = source.get(gate.metric)
    if value is None:
        return None, f"{gate.name} has no value (not applicable to this scope, or every item blocked)"
    return float(value), ""


def _capability(family: str, *configs: dict[str, Any]) -> str:
    for config in configs:
        capability = config.get("families", {}).get(family, {}).get("capability")
        if capability:
            return capability
    return family.partition(".")[0]


def change_ci(
    gate: Gate,
    current_config: dict[str, Any],
    baseline_config: dict[str, Any],
    current_episodes: Episodes,
    baseline_episodes: Episodes,
    seed: int,
) -> tuple[float, float] | None:
    """95% CI of (current − baseline) for an episode-level metric, None without a noise estimate
    (no family with more than one paired episode: ``stats.estimates_noise``).

    Episodes pair by (family, episode); within a family the statistic is the mean over its paired
    episodes of the per-episode change, and the families are averaged, exactly the shape of
    ``stats.paired_bootstrap_ci`` with (current, baseline) in place of (on, off).
    """
    value = EPISODE_METRICS.get(gate.metric)
    if value is None:
        return None
    cur = current_episodes.get(current_config["label"], {})
    base = baseline_episodes.get(baseline_config["label"], {})
    groups: dict[str, list[tuple[float, float]]] = {}
    for family in sorted(set(cur) & set(base)):
        if gate.scope != "overall":
            in_scope = family == gate.scope if "." in gate.scope else None
            if in_scope is None:
                in_scope = _capability(family, current_config, baseline_config) == gate.scope
            if not in_scope:
                continue
        pairs = []
        for episode in sorted(set(cur[family]) & set(base[family])):
            now, before = value(*cur[family][episode]), value(*base[family][episode])
            if now is not None and before is not None:
                pairs.append((now, before))
        if pairs:
            groups[family] = pairs
    return paired_bootstrap_ci(groups, seed)


def _tag(current_label: str, baseline_label: str) -> str:
    if current_label == baseline_label:
        return f"[{current_label}]"
    return f"[{current_label} vs baseline {baseline_label}]"


def _noise_text(
    gate: Gate,
    ci: tuple[float, float] | None,
    exceeds: bool | None,
    lower_is_better: bool | None = None,
    missing: str = "too few paired units for a noise estimate",  # ``stats.estimates_noise``
) -> str:
    if ci is None:
        return missing
    if lower_is_better is None:
        lower_is_better = gate.metric in LOWER_IS_BETTER
    text = f"95% CI of change [{ci[0]:+.2f}, {ci[1]:+.2f}]"
    if exceeds:
        word = "change" if gate.two_sided else "rise" if lower_is_better else "drop"
        return f"{word} exceeds noise: {text}"
    if ci[0] <= 0 <= ci[1]:
        return f"within noise: {text}"
    return text


def _worst_families(gate: Gate, current_config: dict[str, Any], baseline_config: dict[str, Any]) -> list[str]:
    """For a failed overall or capability gate: which families in it moved the wrong way."""
    if "." in gate.scope:
        return []
    moved = []
    for family, entry in current_config.get("families", {}).items():
        if gate.scope != "overall" and entry.get("capability") != gate.scope:
            continue
        per_family = Gate(family, gate.metric, gate.threshold, gate.two_sided)
        now, before = _value(current_config, per_family)[0], _value(baseline_config, per_family)[0]
        if now is None or before is None:
            continue
        worse = (now - before) if gate.metric in LOWER_IS_BETTER else (before - now)
        if (abs(now - before) if gate.two_sided else worse) > _EPS:
            moved.append((-abs(now - before) if gate.two_sided else -worse, family, now - before))
    if not moved:
        return []
    return ["families: " + ", ".join(f"{family} {change:+.3f}" for _, family, change in sorted(moved))]


def _evaluate(
    gate: Gate,
    current_config: dict[str, Any],
    baseline_config: dict[str, Any],
    current_episodes: Episodes,
    baseline: Baseline,
    seed: int,
) -> GateResult:
    c_label, b_label = current_config["label"], baseline_config["label"]
    tag = _tag(c_label, b_label)
    if "." not in gate.scope:
        current_config, baseline_config, _ = pair_families(current_config, baseline_config)
    now, now_problem = _value(current_config, gate)
    before, before_problem = _value(baseline_config, gate)
    if now is None or before is None:
        if now is None and before is None and now_problem == before_problem:
            error = f"in both runs: {now_problem}"
        else:
            problems = [f"current run: {now_problem}"] if now is None else []
            problems += [f"baseline {baseline.name}: {before_problem}"] if before is None else []
            error = "; ".join(problems)
        return GateResult(
            gate,
            c_label,
            b_label,
            current=now,
            baseline=before,
            error=error,
            message=f"{gate.name}: cannot evaluate: {error} {tag}",
        )
    change = now - before
    worse = change if gate.metric in LOWER_IS_BETTER else -change
    failed = (abs(change) if gate.two_sided else worse) > gate.threshold + _EPS
    ci = None
    exceeds: bool | None = None
    if gate.metric in EPISODE_METRICS:
        ci = change_ci(gate, current_config, baseline_config, current_episodes, baseline.episodes, seed)
        exceeds = _exceeds(ci, gate.two_sided, gate.metric in LOWER_IS_BETTER)
    if abs(change) < _EPS:
        head = f"{gate.name} unchanged"
    else:
        head = f"{gate.name} {'rose' if change > 0 else 'dropped'} by {abs(change):.3f}"
    details = [f"{before:.3f} → {now:.3f}", f"limit {gate.limit}"]
    if gate.metric in LOWER_IS_BETTER:
        details.append("lower is better")
    if gate.metric in EPISODE_METRICS:
        details.append(_noise_text(gate, ci, exceeds))
    if failed:
        details += _worst_families(gate, current_config, baseline_config)
    return GateResult(
        gate,
        c_label,
        b_label,
        current=now,
        baseline=before,
        change=change,
        failed=failed,
        ci=ci,
        exceeds_noise=exceeds,
        message=f"{head} ({'; '.join(details)}) {tag}",
    )


def evaluate_gates(
    gates: list[Gate],
    current_summary: dict[str, Any],
    current_episodes: Episodes,
    baseline: Baseline,
    seed: int,
) -> list[GateResult]:
    """One result per gate and compared config (gate-major order).

    A gate that cannot be evaluated (scope or value missing, no config in common) is an error
    result, never a pass: a typo in a CI gate must not silently succeed.
    """
    pairs, notes = match_configs(current_summary, baseline.summary)
    if not pairs:
        return [
            GateResult(gate, "", "", error=notes[-1], message=f"{gate.name}: cannot evaluate: {notes[-1]}")
            for gate in gates
        ]
    return [
        _evaluate(gate, cur, base, current_episodes, baseline, seed) for gate in gates for cur, base in pairs
    ]


def gate_exit_code(results: list[GateResult]) -> int:
    """1 when a gate failed, else 2 when one could not be evaluated (bad input), else 0."""
    if any(r.failed for r in results):
        return 1
    return 2 if any(r.error is not None for r in results) else 0


def compatibility_warnings(current_run: dict[str, Any], baseline_run: dict[str, Any]) -> list[str]:
    """Why the two runs may not be comparable: dataset, judge or models differ."""
    warnings: list[str] = []
    now, before = current_run.get("dataset_hash"), baseline_run.get("dataset_hash")
    if not now or not before:
        missing = "current run" if not now else "baseline"
        warnings.append(
            f"the {missing} records no dataset_hash: cannot check that both ran the same families"
        )
    elif now != before:
        cur_fams, base_fams = current_run.get("families") or {}, baseline_run.get("families") or {}
        changed = sorted(f for f in set(cur_fams) & set(base_fams) if cur_fams[f] != base_fams[f])
        detail = f"; changed families: {', '.join(changed)}" if changed else ""
        # Only another selection of the same files: pair_families' note says which were left out.
        if changed or not cur_fams or not base_fams:
            warnings.append(f"dataset differs: current dataset_hash {now}, baseline {before}{detail}")
    if current_run.get("judge") != baseline_run.get("judge"):
        warnings.append(
            f"judge differs: current {describe_judge(current_run.get('judge'))}, "
            f"baseline {describe_judge(baseline_run.get('judge'))} (rubric scores are not comparable)"
        )
    now_models, before_models = current_run.get("models") or [], baseline_run.get("models") or []
    if sorted(now_models) != sorted(before_models):
        warnings.append(
            f"models differ: current {', '.join(now_models) or 'none'}, "
            f"baseline {', '.join(before_models) or 'none'}"
        )
    return warnings


def check_against(
    gates: list[Gate],
    current: Baseline,
    baseline: Baseline,
    seed: int | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Evaluate, print warnings and notes (err) and one line per result (out); the exit code."""
    return gate_exit_code(report_gates(gates, current, baseline, seed, out, err))


def report_gates(
    gates: list[Gate],
    current: Baseline,
    baseline: Baseline,
    seed: int | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> list[GateResult]:
    """``check_against`` that returns the results (for a verdict that counts them)."""
    out, err = out or sys.stdout, err or sys.stderr
    for warning in compatibility_warnings(current.run, baseline.run):
        print(f"warning: {warning}", file=err)
    pairs, notes = match_configs(current.summary, baseline.summary)
    notes += [note for cur, base in pairs if (note := pair_families(cur, base)[2])]
    for note in notes:
        print(f"note: {note}", file=err)
    if seed is None:
        seed = int(current.run.get("seed", 0) or 0)
    results = evaluate_gates(gates, current.summary, current.episodes, baseline, seed)
    for result in results:
        print(f"{result.status:<5} {result.message}", file=out)
    return results


def _exceeds(ci: tuple[float, float] | None, two_sided: bool, lower_is_better: bool) -> bool | None:
    """Whether the CI of the change excludes 0 on the side that is worse (either, two-sided)."""
    if ci is None:
        return None
    beyond_low, beyond_high = ci[1] < 0, ci[0] > 0
    if two_sided:
        return beyond_low or beyond_high
    return beyond_high if lower_is_better else beyond_low


def _common_strata(
    now: GateMetric, before: GateMetric
) -> tuple[float | None, float | None, dict[str, list[tuple[float, float]]], str | None]:
    """Both values over the strata (families, streams) both runs hold, the unit pairs per stratum
    and a note naming the strata left out (a baseline of another dataset version)."""
    mine, theirs = dict(now.units or {}), dict(before.units or {})
    values: tuple[float | None, float | None] = (now.value, before.value)
    note = None
    if mine and theirs and set(mine) != set(theirs):
        common = sorted(set(mine) & set(theirs))
        left = [
            f"only in {side}: {', '.join(sorted(extra))}"
            for side, extra in (
                ("the baseline", set(theirs) - set(mine)),
                ("the current run", set(mine) - set(theirs)),
            )
            if extra
        ]
        note = f"compared on the {len(common)} shared of its strata; left out {'; '.join(left)}"
        mine, theirs = {k: mine[k] for k in common}, {k: theirs[k] for k in common}
        values = (stratified_mean(mine), stratified_mean(theirs)) if common else (None, None)
    pairs = {
        stratum: [
            (mine[stratum][u], theirs[stratum][u]) for u in sorted(set(mine[stratum]) & set(theirs[stratum]))
        ]
        for stratum in sorted(set(mine) & set(theirs))
    }
    return values[0], values[1], pairs, note


def _metric_result(gate: Gate, now: GateMetric, before: GateMetric, seed: int) -> GateResult:
    """One protocol-metric gate on one pair of configs, judged and worded as PAST's gates are:
    the threshold decides; a paired bootstrap over the metric's units says whether the change is
    beyond noise."""
    tag = _tag(now.config, before.config)
    current, baseline, pairs, note = _common_strata(now, before)
    if current is None or baseline is None:
        side = "current run" if current is None else "baseline"
        error = f"{side}: {gate.name} has no value (not applicable, or every item blocked)"
        return GateResult(
            gate, now.config, before.config, current, baseline, error=error,
            message=f"{gate.name}: cannot evaluate: {error} {tag}",
        )  # fmt: skip
    change = current - baseline
    lower = not now.higher_is_better
    worse = change if lower else -change
    failed = (abs(change) if gate.two_sided else worse) > gate.threshold + _EPS
    ci = paired_bootstrap_ci(pairs, seed)  # None with one unit per stratum (``stats.estimates_noise``)
    exceeds = _exceeds(ci, gate.two_sided, lower)
    head = (
        f"{gate.name} unchanged"
        if abs(change) < _EPS
        else f"{gate.name} {'rose' if change > 0 else 'dropped'} by {abs(change):.3f}"
    )
    details = [f"{baseline:.3f} → {current:.3f}", f"limit {gate.limit}"]
    details += ["lower is better"] if lower else []
    details.append(_noise_text(gate, ci, exceeds, lower))
    details += [note] if note else []
    return GateResult(
        gate, now.config, before.config, current, baseline, change, failed, ci=ci, exceeds_noise=exceeds,
        message=f"{head} ({'; '.join(details)}) {tag}",
    )  # fmt: skip


def evaluate_metric_gates(
    gates: list[Gate], current: Sequence[GateMetric], baseline: Sequence[GateMetric], seed: int = 0
) -> list[GateResult]:
    """Gates on protocol metrics (``BenchProtocol.gate_metrics``): per compared config, the
    change of the gate's scope × metric from the baseline's. Configs pair by label, or whatever
    their labels when each side has one (as PAST's do). Missing scope or config: an error result."""

    def scope(metric: GateMetric) -> str:
        # A protocol's "overall" is gated as the protocol's name (``stream.hidden``).
        return metric.protocol if metric.scope == "overall" else metric.scope

    results = []
    for gate in gates:
        wanted = {m.config: m for m in current if scope(m) == gate.scope and m.name == gate.metric}
        before = {m.config: m for m in baseline if scope(m) == gate.scope and m.name == gate.metric}
        if not wanted or not before:
            side, metrics = ("current run", current) if not wanted else ("baseline", baseline)
            scopes = sorted({scope(m) for m in metrics if m.name == gate.metric and "/" not in m.scope})
            error = f"{side}: no {gate.name} (scopes with {gate.metric}: {', '.join(scopes) or 'none'})"
            results.append(
                GateResult(gate, "", "", error=error, message=f"{gate.name}: cannot evaluate: {error}")
            )
            continue
        pairs, notes = match_configs(
            {"configs": [{"label": label} for label in wanted]},
            {"configs": [{"label": label} for label in before]},
        )
        if not pairs:
            results.append(
                GateResult(
                    gate, "", "", error=notes[-1], message=f"{gate.name}: cannot evaluate: {notes[-1]}"
                )
            )
        results += [
            _metric_result(gate, wanted[cur["label"]], before[base["label"]], seed) for cur, base in pairs
        ]
    return results


def run_gate_metrics(registry: Any, run: Baseline) -> list[GateMetric]:
    """A run's or baseline's protocol gate metrics: those it saved, else drawn from its summary."""
    if run.gate_metrics is not None:
        return run.gate_metrics
    return protocol_gate_metrics(registry, run.summary)


def gate_and_report(
    gates: list[Gate],
    current: Baseline,
    baseline: Baseline,
    registry: Any,
    seed: int | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> list[GateResult]:
    """Every gate, PAST's and the other protocols', evaluated and printed (``report_gates``'
    warnings and notes on ``err``, one line per result on ``out``)."""
    out, err = out or sys.stdout, err or sys.stderr
    past = [g for g in gates if g.metric in METRICS]
    others = [g for g in gates if g.metric not in METRICS]
    if seed is None:
        seed = int(current.run.get("seed", 0) or 0)
    if past:
        results = report_gates(past, current, baseline, seed, out, err)
    else:
        results = []
        for warning in compatibility_warnings(current.run, baseline.run):
            print(f"warning: {warning}", file=err)
    if others:
        metric_results = evaluate_metric_gates(
            others, run_gate_metrics(registry, current), run_gate_metrics(registry, baseline), seed
        )
        for result in metric_results:
            print(f"{result.status:<5} {result.message}", file=out)
        results += metric_results
    return results


def registry_metrics(registry: Any) -> dict[str, frozenset[str]]:
    """protocol name -> its gate metric names, for ``parse_gates``."""
    return {protocol.name: frozenset(protocol.gate_metric_names) for protocol in registry}


def verdict_parts(results: list[GateResult]) -> list[tuple[str, bool]]:
    """``("1 gate failed", True)``-style parts for a summary line; True marks a failure."""
    counts = [
        (sum(1 for r in results if r.failed), "failed", True),
        (sum(1 for r in results if r.error is not None), "not evaluated", True),
        (sum(1 for r in results if r.passed), "passed", False),
    ]
    return [(f"{n} gate{'' if n == 1 else 's'} {word}", bad) for n, word, bad in counts if n]


def _gate_command(args: argparse.Namespace) -> int:
    from ..protocols.registry import standalone_registry

    registry = standalone_registry()
    try:
        gates = parse_gates(args.fail, registry_metrics(registry))
        storage = Path(args.storage)
        current = load_baseline(args.run, storage)
        baseline = load_baseline(args.baseline, storage)
    except (GateSyntaxError, BaselineError) as exc:
        print(f"pastbench gate: {exc}", file=sys.stderr)
        return 2
    return gate_exit_code(gate_and_report(gates, current, baseline, registry, args.seed))


def register_cli(subparsers: argparse._SubParsersAction) -> None:
    gate = subparsers.add_parser(
        "gate",
        help="fail (exit 1) when a run regressed against a baseline",
        description=f"Check a run against a baseline. Gate syntax: {GATE_SYNTAX}. "
        "Exit 0 when every gate passes, 1 when one failed, "
        "2 on bad input or a gate that cannot be evaluated.",
    )
    gate.add_argument("run", help="the run to check: a run folder (or a saved baseline name or file)")
    gate.add_argument(
        "--baseline", required=True, help="a saved baseline name, a baseline file, or a run folder"
    )
    gate.add_argument(
        "--fail",
        action="append",
        required=True,
        metavar="EXPR",
        help="gate [SCOPE.]METRIC:THRESHOLD; repeatable",
    )
    gate.add_argument(
        "--storage", default=str(DEFAULT_STORAGE), help=f"baseline folder (default {DEFAULT_STORAGE})"
    )
    gate.add_argument("--seed", type=int, default=None, help="bootstrap seed (default: the run's seed)")
    gate.set_defaults(func=_gate_command)
