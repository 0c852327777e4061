"""Regression gates: syntax, direction, two-sided limits, noise CIs, config matching, the CLI."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_pastbench import cli
from pytest_pastbench.core.records import MechScore
from pytest_pastbench.errors import GateSyntaxError
from pytest_pastbench.protocols.past.metrics import summarize
from pytest_pastbench.protocols.past.protocol import PROTOCOL as PAST
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.results.baseline import Baseline, save_baseline
from pytest_pastbench.results.gates import (
    Gate,
    compatibility_warnings,
    evaluate_gates,
    gate_exit_code,
    parse_gates,
    registry_metrics,
)
from pytest_pastbench.results.item_record import ItemRecord
from tests.family_samples import builtin_sample, scored_record

BUILTIN = standalone_registry()
METRICS = registry_metrics(BUILTIN)  # the built-in protocols' gate names

RUN = {"id": "r", "seed": 0, "dataset_hash": "d1", "judge": None, "models": ["m"]}
Spec = dict[str, dict[str, tuple[float | None, float | None]]]


def records_from(spec: Spec, label: str = "hermes@m", model: str = "m", **mech: float) -> list[ItemRecord]:
    """One on and one off record per episode (a None score leaves that arm out)."""
    records = []
    for family, episodes in spec.items():
        for episode, scores in episodes.items():
            for arm, score in zip(("on", "off"), scores, strict=True):
                if score is None:
                    continue
                records.append(
                    scored_record(
                        family,
                        episode,
                        arm,
                        score,
                        nodeid=f"{family}::{episode}[{arm}-{model}]",
                        model=model,
                        config_label=label,
                        mech=MechScore(mech=1 - mech.get("pr", 0), **mech) if arm == "on" else None,
                    )
                )
    return records


def side(spec: Spec, label: str = "hermes@m", **mech: float) -> tuple[dict[str, Any], Any]:
    records = records_from(spec, label=label, **mech)
    return summarize(records, RUN, seed=0), PAST.baseline_data(records)


def baseline_of(
    spec: Spec, label: str = "hermes@m", run: dict[str, Any] | None = None, **mech: float
) -> Baseline:
    records = records_from(spec, label=label, **mech)
    return Baseline("base", summarize(records, run or RUN, seed=0), PAST.baseline_data(records), {})


def check(exprs: list[str], current: Spec, base: Spec, **kwargs: Any) -> list[Any]:
    summary, data = side(current)
    return evaluate_gates(
        parse_gates(exprs, METRICS), summary, data, baseline_of(base), seed=0, registry=BUILTIN, **kwargs
    )


BASE: Spec = {"update.fact_correction": {"ep1": (0.9, 0.5), "ep2": (0.8, 0.4)}}  # Δ 0.4
WEAKER: Spec = {"update.fact_correction": {"ep1": (0.6, 0.5), "ep2": (0.5, 0.4)}}  # Δ 0.1


# --- syntax ---------------------------------------------------------------------------------


def test_parse_scopes_metrics_and_two_sided_forms() -> None:
    gates = parse_gates(
        ["delta:0.05", "update.delta:0.1,update.fact_correction.mech:±0.2", "overall.pr:+-0"], METRICS
    )
    assert gates == [
        Gate("overall", "delta", 0.05),
        Gate("update", "delta", 0.1),
        Gate("update.fact_correction", "mech", 0.2, two_sided=True),
        Gate("overall", "pr", 0.0, two_sided=True),
    ]
    assert str(gates[2]) == "update.fact_correction.mech:±0.2"


def test_repeated_gates_are_kept_once() -> None:
    assert parse_gates(["delta:0.05", "delta:0.05, mech:0.1"], METRICS) == [
        Gate("overall", "delta", 0.05),
        Gate("overall", "mech", 0.1),
    ]


@pytest.mark.parametrize(
    "expr",
    ["delta", "delta:", "delta:abc", "delta:-0.1", "delta:±-0.1", "foo:0.1", "update.foo:0.1",
     "update:0.1", "update..delta:0.1", "", "delta:0.1,", "delta:nan", "delta:inf", "a/b.delta:0.1"],
)  # fmt: skip
def test_bad_expressions_explain_the_syntax(expr: str) -> None:
    with pytest.raises(GateSyntaxError, match=r"\[SCOPE\.\]METRIC:THRESHOLD") as info:
        parse_gates([expr], METRICS)
    assert "delta, mech, s_on, s_off, wp, ra, uc, rh, pr" in str(info.value)


# --- direction, limits and messages ---------------------------------------------------------


def test_a_drop_beyond_the_limit_fails_with_a_readable_message() -> None:
    [result] = check(["update.delta:0.05"], WEAKER, BASE)
    assert result.failed and result.error is None
    assert result.change == pytest.approx(-0.3)
    assert result.message == (
        "update.delta dropped by 0.300 (0.400 → 0.100; limit 0.05; drop exceeds noise: "
        "95% CI of change [-0.30, -0.30]; families: update.fact_correction -0.300) [hermes@m]"
    )
    assert gate_exit_code([result]) == 1


def test_a_rise_passes_one_sided_and_fails_two_sided() -> None:
    one, two = check(["update.delta:0.05", "update.delta:±0.05"], BASE, WEAKER)
    assert one.change == pytest.approx(0.3)
    assert one.passed and "rose by 0.300" in one.message and not one.exceeds_noise
    assert two.failed and two.exceeds_noise
    assert "limit ±0.05" in two.message and "change exceeds noise" in two.message


def test_a_change_of_exactly_the_limit_passes_and_zero_limit_catches_any_drop() -> None:
    slightly: Spec = {"update.fact_correction": {"ep1": (0.85, 0.5), "ep2": (0.75, 0.4)}}  # Δ 0.35
    at_limit, strict = check(["update.delta:0.05", "update.delta:0"], slightly, BASE)
    assert at_limit.change == pytest.approx(-0.05)
    assert at_limit.passed
    assert strict.failed


def test_pr_is_lower_is_better() -> None:
    summary, data = side(BASE, pr=0.4, wp=0.5)
    base = baseline_of(BASE, pr=0.1, wp=0.9)
    rose, wp = evaluate_gates(
        parse_gates(["pr:0.1", "wp:0.1"], METRICS), summary, data, base, seed=0, registry=BUILTIN
    )
    assert rose.failed and rose.change == pytest.approx(0.3)
    assert "overall.pr rose by 0.300" in rose.message and "lower is better" in rose.message
    assert rose.ci is None and rose.exceeds_noise is None  # Mech components have no per-episode pairs
    assert wp.failed and "dropped by 0.400" in wp.message
    # The same pr change the other way is an improvement: it passes.
    summary, data = side(BASE, pr=0.1, wp=0.9)
    [fell] = evaluate_gates(
        parse_gates(["pr:0.1"], METRICS), summary, data, baseline_of(BASE, pr=0.4), seed=0, registry=BUILTIN
    )
    assert fell.passed and "dropped by 0.300" in fell.message


def test_s_off_and_mech_gates_use_their_own_values() -> None:
    s_off, mech = check(["s_off:0.01", "mech:0"], WEAKER, BASE)
    assert s_off.current == pytest.approx(0.45) and s_off.baseline == pytest.approx(0.45)
    assert s_off.passed and "unchanged" in s_off.message
    assert mech.passed and mech.current == mech.baseline == 1


# --- missing scopes and values --------------------------------------------------------------


def test_a_missing_scope_is_an_error_not_a_pass() -> None:
    [result] = check(["procedural.delta:0.1"], BASE, BASE)
    assert result.error and not result.failed and not result.passed
    assert "no capability 'procedural'" in result.message and "capabilities: update" in result.message
    assert "in both runs" in result.message
    assert gate_exit_code([result]) == 2


def test_a_scope_missing_only_in_the_baseline_says_which_side() -> None:
    current = {**BASE, "memory.prefs": {"ep1": (0.5, 0.5)}}
    [result] = check(["memory.prefs.delta:0.1"], current, BASE)
    assert result.error and "baseline base: no family 'memory.prefs'" in result.message
    assert "current run" not in result.message


def test_a_bare_family_name_suggests_the_qualified_id() -> None:
    [result] = check(["fact_correction.delta:0.1"], BASE, BASE)
    assert result.error and "did you mean update.fact_correction?" in result.message


def test_a_value_that_does_not_apply_is_an_error() -> None:
    summary, data = side(BASE)  # no uc recorded anywhere
    [result] = evaluate_gates(
        parse_gates(["update.uc:0.1"], METRICS), summary, data, baseline_of(BASE), seed=0, registry=BUILTIN
    )
    assert result.error and "update.uc has no value" in result.message


def test_a_regression_outranks_an_error_in_the_exit_code() -> None:
    results = check(["update.delta:0.05", "nope.delta:0.1"], WEAKER, BASE)
    assert [r.status for r in results] == ["FAIL", "ERROR"]
    assert gate_exit_code(results) == 1
    assert gate_exit_code(check(["delta:0.05"], BASE, BASE)) == 0


# --- the noise CI ---------------------------------------------------------------------------


def test_ci_is_the_family_stratified_bootstrap_of_paired_episode_changes() -> None:
    # Per-episode change of Δ (current − baseline): family a: −0.2, −0.2; family b: −0.1, −0.3.
    # Replicates are (−0.2 + m_b)/2 with m_b ∈ {−0.1 (¼), −0.2 (½), −0.3 (¼)}, so the 2.5% and
    # 97.5% percentiles are −0.25 and −0.15. Unpaired episodes (a/ep3 only now, b/ep3 with no
    # baseline off score) must not count; with them the interval would move.
    base: Spec = {
        "update.a": {"ep1": (0.7, 0.3), "ep2": (0.6, 0.2)},
        "update.b": {"ep1": (0.5, 0.4), "ep2": (0.8, 0.3), "ep3": (0.9, None)},
    }
    current: Spec = {
        "update.a": {"ep1": (0.5, 0.3), "ep2": (0.4, 0.2), "ep3": (0.0, 1.0)},
        "update.b": {"ep1": (0.4, 0.4), "ep2": (0.5, 0.3), "ep3": (0.0, 0.0)},
        "memory.c": {"ep1": (0.0, 1.0)},  # outside the gate's scope (a change of −1)
    }
    base["memory.c"] = {"ep1": (0.0, 0.0)}
    summary, data = side(current)
    [result] = evaluate_gates(
        parse_gates(["update.delta:0.5"], METRICS), summary, data, baseline_of(base), seed=3, registry=BUILTIN
    )
    assert result.ci == pytest.approx((-0.25, -0.15))
    assert result.exceeds_noise is True and not result.failed
    assert "drop exceeds noise: 95% CI of change [-0.25, -0.15]" in result.message


def test_a_threshold_breach_inside_the_noise_still_fails_but_says_so() -> None:
    base: Spec = {"update.a": {"ep1": (0.6, 0.2), "ep2": (0.5, 0.2)}}
    current: Spec = {"update.a": {"ep1": (0.4, 0.2), "ep2": (0.6, 0.2)}}  # changes −0.2, +0.1
    [result] = check(["update.delta:0.01"], current, base)
    assert result.failed and result.exceeds_noise is False
    assert result.ci == pytest.approx((-0.2, 0.1))
    assert "within noise: 95% CI of change [-0.20, +0.10]" in result.message


def test_no_paired_episodes_means_no_ci() -> None:
    current: Spec = {"update.fact_correction": {"ep7": (0.6, 0.5)}}
    [result] = check(["update.delta:1"], current, BASE)
    assert result.ci is None and "no paired episodes for a noise estimate" in result.message


def test_one_paired_episode_per_family_is_no_noise_estimate() -> None:
    """Resampling one unit gives the point change back: a zero-width CI is no CI, and the gate
    says so (one rule: ``stats.estimates_noise``; PAST's units are its episodes)."""
    current: Spec = {"update.fact_correction": {"ep1": (0.2, 0.5)}}
    before: Spec = {"update.fact_correction": {"ep1": (0.9, 0.5)}}
    [result] = check(["update.delta:0.05"], current, before)
    assert result.failed and result.ci is None and result.exceeds_noise is None
    assert "too few paired episodes for a noise estimate" in result.message


# --- matching configs -----------------------------------------------------------------------


def test_single_configs_pair_even_when_labels_differ_and_say_so() -> None:
    summary, data = side(WEAKER, label="hermes@weak")
    [result] = evaluate_gates(
        parse_gates(["update.delta:0.05"], METRICS),
        summary,
        data,
        baseline_of(BASE),
        seed=0,
        registry=BUILTIN,
    )
    assert result.failed and result.label == "hermes@weak" and result.baseline_label == "hermes@m"
    assert result.message.endswith("[hermes@weak vs baseline hermes@m]")
    assert result.ci == pytest.approx((-0.3, -0.3))  # episodes are looked up under each side's label


def test_configs_pair_by_label_and_no_common_label_is_an_error() -> None:
    records = records_from(WEAKER, label="a@x") + records_from(BASE, label="b@y", model="y")
    summary, data = summarize(records, RUN, seed=0), PAST.baseline_data(records)
    base = baseline_of(BASE, label="a@x")
    [result] = evaluate_gates(
        parse_gates(["update.delta:0.05"], METRICS), summary, data, base, seed=0, registry=BUILTIN
    )
    assert result.label == "a@x" and result.failed
    [orphan] = evaluate_gates(
        parse_gates(["delta:0.05"], METRICS),
        summary,
        data,
        baseline_of(BASE, "c@z"),
        seed=0,
        registry=BUILTIN,
    )
    assert orphan.error and "no configuration in common" in orphan.message and "c@z" in orphan.message


# --- compatibility --------------------------------------------------------------------------


def test_compatibility_warnings_name_what_differs() -> None:
    assert compatibility_warnings(RUN, dict(RUN)) == []
    other = {**RUN, "dataset_hash": "d2", "judge": "openai/gpt-4o", "models": ["n"]}
    other["families"] = {"update.a": "h2", "update.b": "same"}
    dataset, judge, models = compatibility_warnings(
        {**RUN, "families": {"update.a": "h1", "update.b": "same"}}, other
    )
    assert "dataset differs" in dataset and "d1" in dataset and "d2" in dataset
    assert "changed families: update.a" in dataset and "update.b" not in dataset
    assert judge.startswith("judge differs: current none, baseline openai/gpt-4o")
    assert models == "models differ: current m, baseline n"
    # The same files, another selection (-k): not a different dataset; the gates' note says more.
    subset = {**RUN, "dataset_hash": "d3", "families": {"update.b": "same"}}
    assert compatibility_warnings(subset, {**RUN, "families": {"update.a": "h1", "update.b": "same"}}) == []
    [missing] = compatibility_warnings({**RUN, "dataset_hash": ""}, RUN)
    assert "current run records no dataset_hash" in missing
    # Model order does not matter.
    assert compatibility_warnings({**RUN, "models": ["a", "b"]}, {**RUN, "models": ["b", "a"]}) == []


# --- CLI ------------------------------------------------------------------------------------


PLUS = "hermes-plus[E1,E2,E3,E4,E5]"


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_end_to_end_a_weakened_agent_fails_the_update_gate(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    # The weakened run is the blind model (it never uses the store), on episodes where the curator
    # scores on both sample families.
    common = (
        *builtin_sample("update", episodes=("ep01", "ep07")),
        "--pastbench-agent=hermes-plus",
        "-q",
        "-p",
        "no:cacheprovider",
    )
    for run_id, model in (("good", "pastbench/curator"), ("weak", "pastbench/blind")):
        result = pytester.runpytest_subprocess(
            *common, f"--pastbench-model={model}", f"--pastbench-run-id={run_id}"
        )
        assert result.ret == 0, result.stdout.str()[-2000:]
    good, weak = str(pytester.path / "reports" / "good"), str(pytester.path / "reports" / "weak")
    capsys.readouterr()  # pytester echoes the runs' output; the gate's own lines come next

    assert cli.main(["gate", weak, "--baseline", good, "--fail", "update.delta:0.05"]) == 1
    out, err = capsys.readouterr()
    [line] = out.splitlines()
    assert line.startswith("FAIL  update.delta dropped by ")
    assert (
        "drop exceeds noise" in line
        and f"[{PLUS}@pastbench/blind vs baseline {PLUS}@pastbench/curator]" in line
    )
    assert "models differ: current pastbench/blind, baseline pastbench/curator" in err

    assert cli.main(["gate", good, "--baseline", good, "--fail", "update.delta:0.05", "--fail", "pr:0"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0].startswith("ok    update.delta unchanged") and "warning" not in err

    # The same through a saved, named baseline (the pytest-benchmark save/compare-fail flow).
    from pytest_pastbench.results.read import load_run

    run = load_run(good)
    save_baseline(pytester.path / "store", "main", run.summary, PAST.baseline_data(run.records))
    storage = str(pytester.path / "store")
    assert (
        cli.main(["gate", weak, "--baseline", "main", "--storage", storage, "--fail", "update.delta:0.05"])
        == 1
    )
    assert "update.delta dropped by" in capsys.readouterr().out


# --- different family selections ------------------------------------------------------------


def test_gates_compare_only_the_families_both_runs_measured() -> None:
    import io

    from pytest_pastbench.results.gates import check_against

    # The baseline measured two update families; this run only one of them, unchanged.
    two = {**BASE, "update.rule_migration": {"ep1": (0.5, 0.5), "ep2": (0.4, 0.4)}}
    summary, data = side(BASE)
    [result] = evaluate_gates(
        parse_gates(["update.delta:0.05"], METRICS), summary, data, baseline_of(two), seed=0, registry=BUILTIN
    )
    # Not "rose by 0.200" (0.4 against the mean of 0.4 and 0.0): the paired family did not move.
    assert result.passed and result.change == pytest.approx(0.0)
    assert result.message.startswith("update.delta unchanged (0.400 → 0.400;")
    assert "95% CI of change [+0.00, +0.00]" in result.message
    out, err = io.StringIO(), io.StringIO()
    current = Baseline("current run", summary, data, RUN)
    assert (
        check_against(
            parse_gates(["delta:0.05"], METRICS), current, baseline_of(two), BUILTIN, 0, out=out, err=err
        )
        == 0
    )
    assert (
        "note: comparing the 1 family in both runs; left out only in the baseline: update.rule_migration "
        "[hermes@m]"
    ) in err.getvalue().splitlines()
    # A family the current run did not measure is still an error, not a pass.
    [orphan] = evaluate_gates(
        parse_gates(["update.rule_migration.delta:0.05"], METRICS),
        summary,
        data,
        baseline_of(two),
        seed=0,
        registry=BUILTIN,
    )
    assert orphan.error is not None and "current run: no family 'update.rule_migration'" in orphan.error


def test_a_fall_below_zero_is_a_drop_like_any_other() -> None:
    # Δ 0.4 → −0.2 (memory now hurts) and Δ 0.9 → 0.3: the same drop, the same verdict.
    below: Spec = {"update.fact_correction": {"ep1": (0.3, 0.5), "ep2": (0.2, 0.4)}}
    high_base: Spec = {"update.fact_correction": {"ep1": (0.9, 0.0), "ep2": (0.8, -0.0)}}
    high_now: Spec = {"update.fact_correction": {"ep1": (0.3, 0.0), "ep2": (0.2, 0.0)}}
    [hurt] = check(["update.delta:0.05"], below, BASE)
    [above] = check(["update.delta:0.05"], high_now, high_base)
    assert hurt.failed and above.failed
    assert hurt.change == pytest.approx(above.change) == pytest.approx(-0.6)
    assert hurt.message.startswith("update.delta dropped by 0.600 (0.400 → -0.200; limit 0.05")
    # And a negative baseline that rises to 0 is a rise, not a regression.
    [back] = check(["update.delta:0"], BASE, below)
    assert back.passed and back.change == pytest.approx(0.6)
