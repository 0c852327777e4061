"""Regression gates: fail CI when a run got worse than a baseline by more than a threshold.

A gate is ``[SCOPE.]METRIC:THRESHOLD`` (pytest-benchmark's ``--benchmark-compare-fail``, with a
scope per family, capability, tier or cell and a two-sided form). One engine serves every
protocol through ``BenchProtocol.gate_metrics``: the threshold decides ``failed``; a paired,
stratified bootstrap over the metric's units (PAST's episodes, a stream's tickets) says whether
the change is beyond noise, so a reader can tell a real regression from a re-roll of the same agent.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TextIO

from ..core.stats import mean, paired_bootstrap_ci, stratified_mean
from ..errors import GateSyntaxError
from ..judge.base import describe_judge
from .baseline import Baseline, protocol_gate_metrics

if TYPE_CHECKING:
    from ..protocols.base import GateMetric

# Float noise from the 4-decimal rounding of summaries must not turn "exactly the limit" into a fail.
_EPS = 1e-9

GATE_SYNTAX = (
    "[SCOPE.]METRIC:THRESHOLD, e.g. delta:0.05, update.delta:0.05, update.SM03_fact_correction.mech:±0.1, "
    "stream.hidden:2.0, stream.L1.fully:5, intervention.rho:0.05, plasticity.id_end:10; "
    "SCOPE is overall (the default), a capability or a family id; for another protocol's metric it is "
    "the protocol (its overall), a stream tier, a family id or an intervention cell; "
    "METRIC is a registered protocol's gate metric (PAST's: delta, mech, s_on, s_off, wp, ra, uc, rh, pr); "
    "THRESHOLD is a number >= 0 (a worse change beyond it fails; ±X or +-X fails on a change either way); "
    "several gates: comma-separated or repeated"
)
_SCOPE = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_/-]+)?$")
_TWO_SIDED = ("±", "+/-", "+-")


@dataclass(frozen=True)
class Gate:
    scope: str
    metric: str
    threshold: float
    two_sided: bool = False
    # The protocol whose metric it is, and the scope that names that protocol's overall (``overall``
    # for bare scopes, else the protocol's name): set by ``parse_gates``.
    protocol: str = field(default="", compare=False)
    overall: str = field(default="overall", compare=False)

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
    # What the reader should know beside the verdict: configs or strata left out of the comparison.
    notes: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.failed and self.error is None

    @property
    def status(self) -> str:
        return "ERROR" if self.error is not None else "FAIL" if self.failed else "ok"


@dataclass(frozen=True)
class GateNames:
    """What a gate may name of one protocol: its metrics (in the order an error lists them) and
    whether its scopes carry the protocol's name (``stream.L1``) or are bare (PAST's ``update``)."""

    metrics: tuple[str, ...]
    prefixed: bool = True


# protocol name -> its gate names (``registry_metrics``); a plain collection of metric names is a
# protocol with prefixed scopes.
ProtocolMetrics = Mapping[str, "GateNames | Collection[str]"]


def _names(protocols: ProtocolMetrics) -> dict[str, GateNames]:
    return {
        name: names if isinstance(names, GateNames) else GateNames(tuple(sorted(names)))
        for name, names in protocols.items()
    }


def registry_metrics(registry: Any) -> dict[str, GateNames]:
    """protocol name -> its gate names, in registration order, for ``parse_gates``."""
    return {
        protocol.name: GateNames(
            tuple(getattr(protocol, "gate_metric_order", ()) or sorted(protocol.gate_metric_names)),
            getattr(protocol, "gate_scopes_prefixed", True),
        )
        for protocol in registry
    }


def valid_metrics_text(protocols: ProtocolMetrics) -> str:
    """``past: delta, mech, …; stream: aulc10, fully, …``: what a gate may name in this run."""
    return "; ".join(f"{p}: {', '.join(names.metrics)}" for p, names in _names(protocols).items())


def metric_owner(metric: str, protocols: ProtocolMetrics) -> str | None:
    """The protocol whose gate metric ``metric`` is (the first registered), None for an unknown one."""
    return next((p for p, names in _names(protocols).items() if metric in names.metrics), None)


def _protocol_scope(text: str, scope: str, metric: str, owner: str) -> str:
    """A prefixed protocol's scope: the protocol itself when none is given; it must name the owner."""
    if scope == "overall":
        return owner
    if scope == owner or scope.startswith(f"{owner}."):
        return scope
    raise GateSyntaxError(
        f"gate {text!r}: {metric!r} is a {owner} metric; scope it as {owner}.{metric} or "
        f"{owner}.<tier|family|cell>.{metric}; syntax: {GATE_SYNTAX}"
    )


def _parse_one(text: str, protocols: dict[str, GateNames]) -> Gate:
    target, colon, limit = text.partition(":")
    if not colon:
        raise GateSyntaxError(f"gate {text!r}: missing ':THRESHOLD'; syntax: {GATE_SYNTAX}")
    scope, dot, metric = target.strip().rpartition(".")
    metric = metric.strip().lower()
    if not dot:
        scope = "overall"
    owner = metric_owner(metric, protocols)
    if owner is None:
        raise GateSyntaxError(
            f"gate {text!r}: unknown metric {metric!r}; valid metrics: {valid_metrics_text(protocols)}; "
            f"syntax: {GATE_SYNTAX}"
        )
    if not _SCOPE.match(scope):
        raise GateSyntaxError(f"gate {text!r}: bad scope {scope!r}; syntax: {GATE_SYNTAX}")
    prefixed = protocols[owner].prefixed
    if prefixed:
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
    overall = owner if prefixed else "overall"
    return Gate(scope, metric, threshold, two_sided, protocol=owner, overall=overall)


def parse_gates(exprs: list[str], protocol_metrics: ProtocolMetrics) -> list[Gate]:
    """Gates from ``--fail`` values, each one expression or several separated by commas.
    ``protocol_metrics``: the registered protocols' gate names (``registry_metrics``); an unknown
    metric's error lists them all.

    Identical gates given twice are kept once (a repeated CI flag should not print twice).
    """
    protocols = _names(protocol_metrics)
    gates: list[Gate] = []
    for raw in exprs:
        parts = [p.strip() for p in raw.split(",")]
        if not any(parts) or "" in parts:
            raise GateSyntaxError(f"empty gate expression in {raw!r}; syntax: {GATE_SYNTAX}")
        for part in parts:
            gate = _parse_one(part, protocols)
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


def _tag(current_label: str, baseline_label: str) -> str:
    if current_label == baseline_label:
        return f"[{current_label}]"
    return f"[{current_label} vs baseline {baseline_label}]"


def noise_ci(pairs: Mapping[str, list[tuple[float, float]]], seed: int) -> tuple[float, float] | None:
    """The CI of a change from its paired units per stratum, None when it would say nothing
    (``stats.estimates_noise``: one unit per stratum resamples to the point change)."""
    return paired_bootstrap_ci(dict(pairs), seed)


def _noise_text(
    gate: Gate, ci: tuple[float, float] | None, exceeds: bool | None, lower_is_better: bool, missing: str
) -> str:
    if ci is None:
        return missing
    text = f"95% CI of change [{ci[0]:+.2f}, {ci[1]:+.2f}]"
    if exceeds:
        word = "change" if gate.two_sided else "rise" if lower_is_better else "drop"
        return f"{word} exceeds noise: {text}"
    if ci[0] <= 0 <= ci[1]:
        return f"within noise: {text}"
    return text


def _exceeds(ci: tuple[float, float] | None, two_sided: bool, lower_is_better: bool) -> bool | None:
    """Whether the CI of the change excludes 0 on the side that is worse (either, two-sided)."""
    if ci is None:
        return None
    beyond_low, beyond_high = ci[1] < 0, ci[0] > 0
    if two_sided:
        return beyond_low or beyond_high
    return beyond_high if lower_is_better else beyond_low


def _strata(metric: GateMetric) -> set[str]:
    return set(metric.strata if metric.strata is not None else metric.units or {})


def _mean_over(metric: GateMetric, strata: list[str]) -> float | None:
    """The metric's value had its run held only ``strata``."""
    if metric.strata is not None:
        return mean(v for s in strata if (v := metric.strata.get(s)) is not None)
    units = metric.units or {}
    return stratified_mean({s: units[s] for s in strata if s in units})


def strata_note(mine: set[str], theirs: set[str], noun: tuple[str, str]) -> str:
    """``comparing the 2 families in both runs; left out only in the baseline: …``."""
    left = [
        f"only in {side}: {', '.join(sorted(extra))}"
        for side, extra in (("the baseline", theirs - mine), ("the current run", mine - theirs))
        if extra
    ]
    shared = len(mine & theirs)
    counted = f"{shared} {noun[0] if shared == 1 else noun[1]}"
    return f"comparing the {counted} in both runs; left out {'; '.join(left)}"


def _common_strata(
    now: GateMetric, before: GateMetric, noun: tuple[str, str]
) -> tuple[float | None, float | None, dict[str, list[tuple[float, float]]], str | None]:
    """Both values over the strata (families, streams) both runs hold, the unit pairs per stratum
    and a note naming the strata left out (another selection, a baseline of another dataset version)."""
    mine, theirs = _strata(now), _strata(before)
    values: tuple[float | None, float | None] = (now.value, before.value)
    note = None
    if mine and theirs and mine != theirs:
        common = sorted(mine & theirs)
        note = strata_note(mine, theirs, noun)
        values = (_mean_over(now, common), _mean_over(before, common))
    units_now, units_before = now.units or {}, before.units or {}
    pairs = {
        stratum: paired
        for stratum in sorted(set(units_now) & set(units_before) & (mine & theirs))
        if (
            paired := [
                (units_now[stratum][u], units_before[stratum][u])
                for u in sorted(set(units_now[stratum]) & set(units_before[stratum]))
            ]
        )
    }
    return values[0], values[1], pairs, note


def _worst_strata(gate: Gate, now: GateMetric, before: GateMetric, lower: bool, plural: str) -> list[str]:
    """For a failed gate on a mean over strata: which strata moved the wrong way, worst first."""
    if not now.strata or not before.strata:
        return []
    moved = []
    for stratum in sorted(set(now.strata) & set(before.strata)):
        a, b = now.strata[stratum], before.strata[stratum]
        if a is None or b is None:
            continue
        size = abs(a - b) if gate.two_sided else (a - b if lower else b - a)
        if size > _EPS:
            moved.append((-size, stratum, a - b))
    return (
        [f"{plural}: " + ", ".join(f"{s} {change:+.3f}" for _, s, change in sorted(moved))] if moved else []
    )


@dataclass(frozen=True)
class _Wording:
    """How a protocol words its gates (ProtocolBase's gate_* attributes; defaults without one)."""

    protocol: Any = None

    def noun(self, name: str, default: Any) -> Any:
        return getattr(self.protocol, name, default)

    def scope_problem(self, gate: Gate, scopes: list[str]) -> str:
        problem = getattr(self.protocol, "gate_scope_problem", None)
        if problem is not None:
            return problem(gate.name, gate.scope, scopes)
        return f"no {gate.name} (scopes with {gate.metric}: {', '.join(scopes) or 'none'})"


def _sides(now: str | None, before: str | None, baseline_name: str) -> str:
    if now and now == before:
        return f"in both runs: {now}"
    baseline = f"baseline {baseline_name}" if baseline_name else "baseline"
    return "; ".join([f"current run: {now}"] * bool(now) + [f"{baseline}: {before}"] * bool(before))


def _pair_result(
    gate: Gate,
    wording: _Wording,
    mine: list[GateMetric],
    theirs: list[GateMetric],
    labels: tuple[str, str],
    seed: int,
    baseline_name: str,
) -> GateResult:
    """One gate on one pair of configs: the threshold decides; a paired bootstrap over the
    metric's units says whether the change is beyond noise."""

    def scope_of(metric: GateMetric) -> str:
        return gate.overall if metric.scope == "overall" else metric.scope

    def found(metrics: list[GateMetric]) -> tuple[GateMetric | None, str | None]:
        metric = next((m for m in metrics if scope_of(m) == gate.scope), None)
        if metric is not None:
            return metric, None
        return None, wording.scope_problem(gate, sorted({scope_of(m) for m in metrics if "/" not in m.scope}))

    tag = _tag(*labels)
    (now, now_problem), (before, before_problem) = found(mine), found(theirs)
    current = now.value if now else None
    baseline = before.value if before else None
    pairs: dict[str, list[tuple[float, float]]] = {}
    note = None
    if now and before:
        current, baseline, pairs, note = _common_strata(
            now, before, wording.noun("gate_strata_noun", ("stratum", "strata"))
        )
    no_value = f"{gate.name} has no value (not applicable to this scope, or every item blocked)"
    now_problem = now_problem or (no_value if current is None else None)
    before_problem = before_problem or (no_value if baseline is None else None)
    notes = (f"{note} {tag}",) if note else ()
    if now is None or before is None or current is None or baseline is None:  # a problem named above
        error = _sides(now_problem, before_problem, baseline_name)
        message = f"{gate.name}: cannot evaluate: {error} {tag}"
        return GateResult(gate, *labels, current, baseline, error=error, message=message, notes=notes)
    change = current - baseline
    lower = not now.higher_is_better
    worse = change if lower else -change
    failed = (abs(change) if gate.two_sided else worse) > gate.threshold + _EPS
    ci = noise_ci(pairs, seed)
    exceeds = _exceeds(ci, gate.two_sided, lower)
    head = (
        f"{gate.name} unchanged"
        if abs(change) < _EPS
        else f"{gate.name} {'rose' if change > 0 else 'dropped'} by {abs(change):.3f}"
    )
    details = [f"{baseline:.3f} → {current:.3f}", f"limit {gate.limit}"]
    details += ["lower is better"] if lower else []
    if now.units is not None or before.units is not None:  # a mean of units: say what the noise is
        units = wording.noun("gate_units_noun", "units")
        missing = f"{'too few' if pairs else 'no'} paired {units} for a noise estimate"
        details.append(_noise_text(gate, ci, exceeds, lower, missing))
    if failed:
        details += _worst_strata(
            gate, now, before, lower, wording.noun("gate_strata_noun", ("", "strata"))[1]
        )
    return GateResult(
        gate, *labels, current, baseline, change, failed, ci=ci, exceeds_noise=exceeds,
        message=f"{head} ({'; '.join(details)}) {tag}", notes=notes,
    )  # fmt: skip


def evaluate_metric_gates(
    gates: list[Gate],
    current: Sequence[GateMetric],
    baseline: Sequence[GateMetric],
    seed: int = 0,
    registry: Any = None,
    baseline_name: str = "",
) -> list[GateResult]:
    """One result per gate and compared config (gate-major order), from the protocols' gate
    metrics (``BenchProtocol.gate_metrics``). Configs pair by label, or whatever their labels when
    each side has one. A gate that cannot be evaluated (scope or value missing, no config in
    common) is an error result, never a pass: a typo in a CI gate must not silently succeed.
    ``registry``: whose protocols word the messages (their gate_* attributes)."""
    results = []
    for gate in gates:
        protocol = gate.protocol or next(
            (m.protocol for m in [*current, *baseline] if m.name == gate.metric), ""
        )
        wording = _Wording(_find(registry, protocol))
        mine = [m for m in current if m.protocol == protocol and m.name == gate.metric]
        theirs = [m for m in baseline if m.protocol == protocol and m.name == gate.metric]
        pairs, notes = match_configs(_configs(mine), _configs(theirs))
        if not pairs:
            error = notes[-1]
            results.append(
                GateResult(
                    gate,
                    "",
                    "",
                    error=error,
                    message=f"{gate.name}: cannot evaluate: {error}",
                    notes=tuple(notes),
                )
            )
        for cur, base in pairs:
            labels = (cur["label"], base["label"])
            result = _pair_result(
                gate, wording, [m for m in mine if m.config == labels[0]],
                [m for m in theirs if m.config == labels[1]], labels, seed, baseline_name,
            )  # fmt: skip
            results.append(replace(result, notes=(*notes, *result.notes)))
    return results


def _configs(metrics: list[GateMetric]) -> dict[str, Any]:
    return {"configs": [{"label": label} for label in dict.fromkeys(m.config for m in metrics)]}


def _find(registry: Any, name: str) -> Any:
    return next((p for p in registry or () if p.name == name), None)


def evaluate_gates(
    gates: list[Gate],
    current_summary: dict[str, Any],
    current_data: dict[str, Any],
    baseline: Baseline,
    seed: int,
    registry: Any,
) -> list[GateResult]:
    """``evaluate_metric_gates`` of a run's summary and its protocols' ``baseline_data`` (PAST's
    per-episode scores) against a baseline."""
    current = Baseline("current run", current_summary, current_data)
    return evaluate_metric_gates(
        gates,
        run_gate_metrics(registry, current),
        run_gate_metrics(registry, baseline),
        seed,
        registry,
        baseline.name,
    )


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
        # Only another selection of the same files: the gates' notes say which were left out.
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
    registry: Any,
    seed: int | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Evaluate, print warnings and notes (err) and one line per result (out); the exit code."""
    return gate_exit_code(gate_and_report(gates, current, baseline, registry, seed, out, err))


def run_gate_metrics(registry: Any, run: Baseline) -> list[GateMetric]:
    """A run's or baseline's gate metrics, every protocol's: those it saved (a protocol it saved
    none of: drawn from its summary), with the units each protocol keeps in the baseline itself."""
    saved = list(run.gate_metrics or [])
    kept = {m.protocol for m in saved}
    metrics = saved + [m for m in protocol_gate_metrics(registry, run.summary) if m.protocol not in kept]
    units = {
        (protocol.name, *key): values
        for protocol in registry
        for key, values in getattr(protocol, "baseline_units", lambda _: {})(run).items()
    }
    return [
        replace(m, units=units[key])
        if m.units is None and (key := (m.protocol, m.config, m.scope, m.name)) in units
        else m
        for m in metrics
    ]


def gate_and_report(
    gates: list[Gate],
    current: Baseline,
    baseline: Baseline,
    registry: Any,
    seed: int | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> list[GateResult]:
    """Every gate evaluated and printed: compatibility warnings and the results' notes (once each)
    on ``err``, one line per result on ``out``."""
    out, err = out or sys.stdout, err or sys.stderr
    for warning in compatibility_warnings(current.run, baseline.run):
        print(f"warning: {warning}", file=err)
    if seed is None:
        seed = int(current.run.get("seed", 0) or 0)
    results = evaluate_metric_gates(
        gates, run_gate_metrics(registry, current), run_gate_metrics(registry, baseline), seed, registry,
        baseline.name,
    )  # fmt: skip
    for note in dict.fromkeys(note for result in results for note in result.notes):
        print(f"note: {note}", file=err)
    for result in results:
        print(f"{result.status:<5} {result.message}", file=out)
    return results


def verdict_parts(results: list[GateResult]) -> list[tuple[str, bool]]:
    """``("1 gate failed", True)``-style parts for a summary line; True marks a failure."""
    counts = [
        (sum(1 for r in results if r.failed), "failed", True),
        (sum(1 for r in results if r.error is not None), "not evaluated", True),
        (sum(1 for r in results if r.passed), "passed", False),
    ]
    return [(f"{n} gate{'' if n == 1 else 's'} {word}", bad) for n, word, bad in counts if n]
