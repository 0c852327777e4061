"""sequence_summary.json and sequence_comparison.json: shape and aggregates."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_pastbench.core.records import MechScore, SessionScore
from pytest_pastbench.protocols.past.mech import MECH_RULE
from pytest_pastbench.protocols.past.metrics import build_comparison, pass_hat_k, summarize
from pytest_pastbench.protocols.past.scoring import SCORING_RULE
from pytest_pastbench.results.item_record import ItemRecord
from pytest_pastbench.results.render.table import agent_error_line

LABEL = "hermes[E1,E5]@glm-5.1"
RUN = {"id": "r1", "dataset_hash": "abc", "plugin_version": "0.1", "judge": None}
SCOPE_KEYS = {
    "s_on",
    "s_off",
    "delta",
    "delta_ci",
    "mech",
    "n_episodes",
    "infra_blocked",
    "judge_errors",
    "judge_disagreement",
    "rubric_fallback",
    "undecided",
    "cost_usd",
    "tokens",
    "mech_components",
    "delta_c",
    "s_ablated",
    "delta_causal",
    "delta_causal_ci",
    "sigma_violations",
    "ci_unit",
    "n_clusters",
    "n_unpaired",
    "trials",
    "delta_trial_sd",
}
COMPONENTS = {"wp", "ra", "uc", "rh", "pr"}


def rec(
    family: str,
    episode: str,
    arm: str,
    score: float | None,
    trial: int = 0,
    label: str = LABEL,
    blocked: bool | None = None,
    **fields: Any,
) -> ItemRecord:
    capability = family.split(".")[0]
    return ItemRecord(
        nodeid=f"families/{family}.yaml::{episode}[{arm}-t{trial}]",
        family=family,
        capability=capability,
        episode=episode,
        arm=arm,
        trial=trial,
        model=label.split("@")[1],
        agent=label.split("[")[0],
        mechanisms=["E1", "E5"],
        config_label=label,
        score=score,
        infra_blocked=score is None if blocked is None else blocked,
        dataset_hash="abc",
        family_version="1",
        **fields,
    )


def mech(value: float, **parts: float | None) -> MechScore:
    return MechScore(mech=value, applicable=len(parts), **parts)


UPD = "update.fact_correction"
UPD2 = "update.second"
MEM = "memory.recall"
RECORDS = [
    # update.fact_correction
    rec(
        UPD,
        "ep01",
        "on",
        0.8,
        0,
        mech=mech(0.6, wp=1.0, pr=0.5),
        cost_usd=0.01,
        prompt_tokens=100,
        completion_tokens=10,
    ),
    rec(UPD, "ep01", "on", 0.6, 1, mech=mech(0.4, wp=0.5, pr=None)),
    rec(UPD, "ep01", "off", 0.2, 0, cost_usd=0.02),
    rec(UPD, "ep02", "on", 0.5, 0, mech=mech(1.0, wp=1.0, uc=1.0)),
    rec(UPD, "ep02", "on", None, 1),  # infra_blocked: missing, not 0
    rec(UPD, "ep02", "off", 0.5, 0),
    rec(UPD, "ep03", "on", 0.9, 0, mech=mech(0.2)),
    # update.second: on arm only → Δ undefined
    rec(UPD2, "ep01", "on", 0.4, 0, mech=mech(0.5, wp=0.5)),
    # memory.recall
    rec(MEM, "ep01", "on", 0.6, 0, mech=mech(0.9, ra=1.0), completion_tokens=5),
    rec(MEM, "ep01", "off", 0.1, 0),
]


@pytest.fixture
def summary() -> dict[str, Any]:
    return summarize(RECORDS, RUN, seed=42)


def test_contract_shape(summary: dict[str, Any]) -> None:
    assert summary["schema_version"] == 1
    assert summary["run"] == {
        **RUN,
        "seed": 42,
        "scoring": SCORING_RULE,
        "mech": MECH_RULE,
        "agent_errors": {"sessions": 0, "first": []},
    }
    assert "never pays for failing" in summary["run"]["scoring"]["s_e"]
    assert set(summary["run"]["mech"]) >= {"mech", "wp", "ra", "uc", "rh", "pr", "fixed_by_family"}
    (config,) = summary["configs"]
    assert set(config) == {
        "label",
        "model",
        "agent",
        "mechanisms",
        "overall",
        "capabilities",
        "families",
        "per_episode",
    }
    assert (config["label"], config["model"], config["agent"]) == (
        LABEL,
        "glm-5.1",
        "hermes",
    )
    assert config["mechanisms"] == ["E1", "E5"]
    assert set(config["overall"]) == SCOPE_KEYS
    assert list(config["capabilities"]) == ["memory", "update"]
    assert list(config["families"]) == [MEM, UPD, UPD2]
    for entry in config["capabilities"].values():
        assert set(entry) == SCOPE_KEYS
    for fid, entry in config["families"].items():
        assert set(entry) == SCOPE_KEYS | {"capability"}
        assert entry["capability"] == fid.split(".")[0]
        assert set(entry["mech_components"]) == COMPONENTS
    json.dumps(summary)  # plain JSON values only


def test_family_aggregates_by_hand(summary: dict[str, Any]) -> None:
    fam = summary["configs"][0]["families"][UPD]
    # episode on scores: ep01 (0.8 + 0.6) / 2 = 0.7, ep02 0.5 (blocked trial left out),
    # ep03 0.9; off: ep01 0.2, ep02 0.5.
    # S_on, S_off and Δ over the episodes both arms measured (ep01, ep02), so Δ = S_on − S_off
    # (issue 30: an interrupted run's means over different episodes than its pairs broke it):
    # s_on = (0.7 + 0.5) / 2 = 0.6; s_off = (0.2 + 0.5) / 2 = 0.35; Δ = 0.25; ep03 is unpaired.
    assert fam["s_on"] == 0.6 and fam["s_off"] == 0.35 and fam["delta"] == 0.25
    assert fam["n_unpaired"] == 1
    assert fam["delta"] == round(fam["s_on"] - fam["s_off"], 4)
    lo, hi = fam["delta_ci"]
    assert 0.0 <= lo <= 0.25 <= hi <= 0.5  # resampled means of diffs {0.5, 0}
    # mech: ep01 (0.6 + 0.4) / 2 = 0.5, ep02 1.0, ep03 0.2 → 1.7 / 3 = 0.5667
    assert fam["mech"] == 0.5667
    # wp: ep01 (1 + 0.5) / 2 = 0.75, ep02 1.0 → 0.875; pr only ep01 trial 0 → 0.5
    assert fam["mech_components"] == {
        "wp": 0.875,
        "ra": None,
        "uc": 1.0,
        "rh": None,
        "pr": 0.5,
    }
    assert fam["n_episodes"] == 3 and fam["infra_blocked"] == 1
    # cost 0.01 + 0.02, unknown costs skipped; tokens 100 + 10
    assert fam["cost_usd"] == 0.03 and fam["tokens"] == 110


def test_missing_arm_gives_no_delta(summary: dict[str, Any]) -> None:
    fam = summary["configs"][0]["families"][UPD2]
    assert fam["s_on"] == 0.4 and fam["s_off"] is None
    assert fam["delta"] is None and fam["delta_ci"] is None
    assert fam["cost_usd"] is None  # every record's cost unknown


def test_capability_and_overall_are_means_over_families(
    summary: dict[str, Any],
) -> None:
    config = summary["configs"][0]
    update, overall = config["capabilities"]["update"], config["overall"]
    # update: Δ = mean of defined family Δ = 0.25; S_on and S_off over the families with a Δ
    # (update.second has no off arm): 0.6 and 0.35, so Δ = S_on − S_off here too
    # mech = (0.5667 + 0.5) / 2 = 0.5333 (unrounded 1.7/3 and 0.5)
    assert update["delta"] == 0.25 and update["s_on"] == 0.6 and update["s_off"] == 0.35
    assert update["n_unpaired"] == 2  # update.fact_correction ep03, update.second ep01
    assert update["mech"] == 0.5333
    assert update["n_episodes"] == 4 and update["infra_blocked"] == 1
    # overall Δ = (0.25 [update.fact_correction] + 0.5 [memory.recall]) / 2 = 0.375
    assert overall["delta"] == 0.375
    # overall s_off = mean(0.35, 0.1) = 0.225 (update.second has no off arm)
    assert overall["s_off"] == 0.225
    # replicates: (mean of {0.5, 0} resampled ∈ {0, 0.25, 0.5} + 0.5) / 2
    lo, hi = overall["delta_ci"]
    assert 0.25 <= lo <= 0.375 <= hi <= 0.5
    assert overall["n_episodes"] == 5 and overall["tokens"] == 115
    assert overall["mech_components"]["ra"] == 1.0


def test_configs_sorted_by_label_and_deterministic() -> None:
    other = [
        rec(MEM, "ep01", "on", 1.0, label="aaa@m"),
        rec(MEM, "ep01", "off", 0.0, label="aaa@m"),
    ]
    first = summarize([*RECORDS, *other], RUN, seed=5)
    assert [c["label"] for c in first["configs"]] == ["aaa@m", LABEL]
    assert first["configs"][0]["overall"]["delta"] == 1.0
    assert summarize(list(reversed([*RECORDS, *other])), RUN, seed=5) == first


def test_floats_are_rounded_to_four_places() -> None:
    records = [rec(MEM, f"ep{i}", "on", s) for i, s in enumerate([0.1, 0.2, 0.2])]
    fam = summarize(records, RUN, seed=1)["configs"][0]["families"][MEM]
    assert fam["s_on"] == 0.1667  # 0.5 / 3


def test_comparison_rows(summary: dict[str, Any]) -> None:
    comparison = build_comparison(summary)
    assert comparison["schema_version"] == 1 and comparison["run"] == summary["run"]
    rows = comparison["rows"]
    assert [r["scope"] for r in rows] == ["overall", "memory", "update", MEM, UPD, UPD2]
    assert all(set(r) == {"label", "scope", "delta", "delta_ci", "mech", "s_on", "s_off"} for r in rows)
    assert rows[0]["delta"] == 0.375 and rows[4]["delta"] == 0.25
    assert rows[5]["delta"] is None and rows[5]["s_on"] == 0.4


def test_comparison_orders_configs_by_label() -> None:
    summary = summarize(
        [
            rec(MEM, "ep01", "on", 0.5, label="z@m"),
            rec(MEM, "ep01", "on", 0.5, label="a@m"),
        ],
        RUN,
        seed=1,
    )
    labels = [r["label"] for r in build_comparison(summary)["rows"]]
    assert labels == ["a@m"] * 3 + ["z@m"] * 3


def test_blocked_record_with_a_partial_score_is_still_left_out() -> None:
    records = [
        rec(MEM, "ep01", "on", 0.8, 0, mech=mech(0.5)),
        rec(MEM, "ep01", "on", 0.0, 1, blocked=True, mech=mech(0.0)),
    ]
    fam = summarize(records, RUN, seed=1)["configs"][0]["families"][MEM]
    assert fam["s_on"] == 0.8 and fam["mech"] == 0.5 and fam["infra_blocked"] == 1


def sessions(*pairs: tuple[float, int]) -> list[SessionScore]:
    """Eval session scores from (c, σ) pairs, s = σ·c."""
    return [
        SessionScore(index=i, stage="eval_near", s=c * sigma, c=c, r=1.0, sigma=sigma)
        for i, (c, sigma) in enumerate(pairs)
    ]


def test_delta_c_and_sigma_violations_show_a_safety_penalty_as_what_it_is() -> None:
    # The on arm answers as well as it can (c = 1) but repeats a stored secret in one of two
    # sessions (σ = 0): S_on 0.5, Δ +0.25; Δ_c is the reuse alone, +0.5.
    records = [
        rec(MEM, "ep01", "on", 0.5, sessions=sessions((1.0, 1), (1.0, 0))),
        rec(MEM, "ep01", "off", 0.25, sessions=sessions((0.5, 1), (0.5, 1))),
    ]
    family = summarize(records, RUN, seed=0)["configs"][0]["families"][MEM]
    assert family["delta"] == pytest.approx(0.25) and family["delta_c"] == pytest.approx(0.5)
    assert family["sigma_violations"] == {"on": 1, "off": 0}


def test_ablated_arm_gives_delta_causal_with_a_ci() -> None:
    records = [
        rec(MEM, "ep01", "on", 0.9),
        rec(MEM, "ep01", "off", 0.1),
        rec(MEM, "ep01", "ablated", 0.2),
        rec(MEM, "ep02", "on", 0.7),
        rec(MEM, "ep02", "off", 0.1),
        rec(MEM, "ep02", "ablated", 0.1),
    ]
    config = summarize(records, RUN, seed=0)["configs"][0]
    family = config["families"][MEM]
    # S_ablated (0.2 + 0.1) / 2 = 0.15; Δ_causal = 0.8 − 0.15 = 0.65 (per episode 0.7, 0.6)
    assert family["s_ablated"] == pytest.approx(0.15)
    assert family["delta_causal"] == pytest.approx(0.65)
    lo, hi = family["delta_causal_ci"]
    assert 0.6 <= lo <= 0.65 <= hi <= 0.7
    assert config["overall"]["delta_causal"] == pytest.approx(0.65)
    assert family["sigma_violations"] == {"on": 0, "off": 0, "ablated": 0}
    # Without the arm the figures are there, and null.
    plain = summarize(RECORDS, RUN, seed=0)["configs"][0]["families"][UPD]
    assert plain["s_ablated"] is None and plain["delta_causal"] is None and plain["delta_causal_ci"] is None


def test_the_ci_resamples_scenario_groups_and_says_which_unit_it_used() -> None:
    records = []
    for i in range(6):
        group, on = ("a", 1.0) if i < 3 else ("b", 0.0)
        records += [rec(MEM, f"ep{i}", "on", on, group=group), rec(MEM, f"ep{i}", "off", 0.0, group=group)]
    family = summarize(records, RUN, seed=0)["configs"][0]["families"][MEM]
    assert (family["ci_unit"], family["n_clusters"]) == ("group", 2)
    assert family["delta_ci"] == [0.0, 1.0]  # two clusters: a replicate is 0, 0.5 or 1
    ungrouped = [r.model_copy(update={"group": None}) for r in records]
    family = summarize(ungrouped, RUN, seed=0)["configs"][0]["families"][MEM]
    assert (family["ci_unit"], family["n_clusters"]) == ("episode", 6)
    assert family["delta_ci"][0] > 0.0 and family["delta_ci"][1] < 1.0


def test_trials_report_pass_hat_k_and_the_per_episode_spread() -> None:
    records = [
        rec(MEM, "ep01", "on", 0.9, 0),
        rec(MEM, "ep01", "on", 0.8, 1),
        rec(MEM, "ep01", "on", 0.2, 2),
        rec(MEM, "ep02", "on", 0.6, 0),
        rec(MEM, "ep02", "on", 0.6, 1),
        rec(MEM, "ep02", "on", 0.7, 2),
    ]
    trials = summarize(records, {**RUN, "trials": 3}, seed=0)["configs"][0]["families"][MEM]["trials"]
    # pass = score ≥ 0.5: ep01 passes 2 of 3 (pass^3 = 0), ep02 3 of 3 (1) → 0.5
    assert trials["k"] == 3 and trials["threshold"] == 0.5
    assert trials["pass_k"] == {"on": pytest.approx(0.5)}
    # spread max − min: ep01 0.7, ep02 0.1 → mean 0.4, max 0.7
    assert trials["spread"]["on"] == {"mean": pytest.approx(0.4), "max": pytest.approx(0.7)}
    strict = summarize(records, {**RUN, "trials": 3, "pass_threshold": 0.65}, seed=0)
    assert strict["configs"][0]["families"][MEM]["trials"]["pass_k"] == {"on": 0.0}
    assert summarize(records, RUN, seed=0)["configs"][0]["families"][MEM]["trials"] is None


def test_pass_hat_k_is_the_unbiased_estimator() -> None:
    assert pass_hat_k([1.0, 1.0, 0.0, 1.0], 2, 0.5) == pytest.approx(3 / 6)  # C(3,2) / C(4,2)
    assert pass_hat_k([1.0], 2, 0.5) is None


def test_agent_errors_are_counted_and_the_first_distinct_reasons_quoted() -> None:
    def failed(episode: str, arm: str, *reasons: str | None) -> ItemRecord:
        sessions = [
            SessionScore(index=i, stage="eval_near", s=0.0, c=0.0, r=1.0, sigma=1, reason=reason)
            for i, reason in enumerate(reasons)
        ]
        return rec("memory.x", episode, arm, 0.0, sessions=sessions)

    crash = "agent_error:exited with code 1 before answering turn 1 of 1 (stderr: 404 no route /v1/responses)"
    records = [
        failed("ep02", "on", crash, "budget:tool_calls"),
        failed("ep01", "off", crash, None),
        failed("ep01", "on", "agent_error:line 1 is not JSON", crash),
    ]
    run = summarize(records, {"id": "r"}, seed=0)["run"]
    assert run["agent_errors"] == {
        "sessions": 4,
        "first": [crash.removeprefix("agent_error:"), "line 1 is not JSON"],  # node-id order
    }
    assert agent_error_line({"run": run}) == (
        "4 sessions agent_error (first: exited with code 1 before answering turn 1 of 1 "
        "(stderr: 404 no route /v1/responses); line 1 is not JSON)"
    )
    clean = summarize([rec("memory.x", "ep01", "on", 1.0)], {"id": "r"}, seed=0)["run"]
    assert clean["agent_errors"] == {"sessions": 0, "first": []} and agent_error_line({"run": clean}) is None


def noisy_trials(spread: float) -> list[ItemRecord]:
    """Eight episodes, three trials each; on = 0.6 ± spread around the trials, off = 0.2."""
    records = []
    for i in range(8):
        for t, wobble in enumerate((-spread, 0.0, spread)):
            on = 0.6 + (wobble if i % 2 else -wobble)
            records += [rec(MEM, f"ep{i}", "on", on, t), rec(MEM, f"ep{i}", "off", 0.2, t)]
    return records


def test_with_trials_the_ci_includes_run_to_run_variance_and_the_sd_between_trials_is_reported() -> None:
    steady = summarize(noisy_trials(0.0), {**RUN, "trials": 3}, seed=0)["configs"][0]
    noisy = summarize(noisy_trials(0.3), {**RUN, "trials": 3}, seed=0)["configs"][0]
    # Every episode's trial mean is the same in both runs, so the one-stage CI (trials averaged
    # before the bootstrap) would be [0.4, 0.4] in both; the two-stage one widens with the noise.
    assert steady["families"][MEM]["delta_ci"] == [0.4, 0.4]
    lo, hi = noisy["families"][MEM]["delta_ci"]
    assert lo < 0.4 - 0.05 and hi > 0.4 + 0.05
    assert noisy["overall"]["delta_ci"] == noisy["families"][MEM]["delta_ci"]  # one family
    # Per trial the family Δ is 0.4 each time (the wobbles cancel over episodes): SD 0.
    assert noisy["families"][MEM]["delta_trial_sd"] == 0.0
    assert steady["families"][MEM]["delta_trial_sd"] == 0.0
    one = summarize(noisy_trials(0.3), RUN, seed=0)["configs"][0]
    assert one["families"][MEM]["delta_trial_sd"] is None and one["overall"]["delta_trial_sd"] is None


def test_the_sd_of_delta_between_trials() -> None:
    # Trial t lifts every on score by 0.1 t: family Δ per trial 0.4, 0.5, 0.6 → SD 0.1.
    records = [
        r
        for i in range(4)
        for t in range(3)
        for r in (rec(MEM, f"ep{i}", "on", 0.6 + 0.1 * t, t), rec(MEM, f"ep{i}", "off", 0.2, t))
    ]
    config = summarize(records, {**RUN, "trials": 3}, seed=0)["configs"][0]
    assert config["families"][MEM]["delta_trial_sd"] == pytest.approx(0.1)
    assert config["overall"]["delta_trial_sd"] == pytest.approx(0.1)
