"""PAST's gate metrics from a run summary: one per config × scope × metric, Δ with its own CI,
the strata an overall or capability value is a mean of, the paired episode units, and why a
scope a gate names is missing."""

from __future__ import annotations

from typing import Any

from pytest_pastbench.protocols.past.components import GATE_METRICS
from pytest_pastbench.protocols.past.gates import config_scopes, episode_units, gate_metrics, scope_problem


def entry(delta: float, **extra: Any) -> dict[str, Any]:
    return {"delta": delta, "mech": 0.5, "s_on": 0.8, "s_off": 0.8 - delta, **extra}


CONFIG = {
    "label": "hermes@m",
    "overall": entry(0.2, delta_ci=[0.1, 0.3], mech_components={"wp": 0.9, "pr": 0.1}),
    "capabilities": {"update": entry(0.2), "recall": entry(0.1)},
    "families": {
        "update.SM03": entry(0.3),
        "update.SM01": entry(0.1, capability="update"),
        "recall.RC01": entry(0.1),
    },
}
SUMMARY = {"configs": [CONFIG]}


def test_scopes_are_overall_then_capabilities_then_families_with_their_members() -> None:
    scopes = [(scope, members) for scope, _, members in config_scopes(CONFIG)]
    assert scopes == [
        ("overall", ["recall.RC01", "update.SM01", "update.SM03"]),
        ("recall", ["recall.RC01"]),
        ("update", ["update.SM01", "update.SM03"]),
        ("recall.RC01", None),
        ("update.SM01", None),
        ("update.SM03", None),
    ]
    # A capability a family declares wins over its id's prefix.
    moved = {**CONFIG, "families": {"x.F1": entry(0.0, capability="recall")}}
    assert dict((s, m) for s, _, m in config_scopes(moved))["recall"] == ["x.F1"]


def test_one_metric_per_config_scope_and_name_and_only_delta_has_a_ci() -> None:
    metrics = gate_metrics(SUMMARY)
    assert len(metrics) == 6 * len(GATE_METRICS)
    by_key = {(m.scope, m.name): m for m in metrics}
    overall = by_key[("overall", "delta")]
    assert (overall.protocol, overall.config, overall.value, overall.ci) == (
        "past",
        "hermes@m",
        0.2,
        (0.1, 0.3),
    )
    assert overall.strata == {"recall.RC01": 0.1, "update.SM01": 0.1, "update.SM03": 0.3}
    assert by_key[("overall", "mech")].ci is None
    assert by_key[("update.SM03", "delta")].strata is None  # a family is no mean of strata
    # Components come from mech_components; pr is the one where a rise is the regression.
    assert by_key[("overall", "wp")].value == 0.9 and by_key[("overall", "wp")].higher_is_better
    assert by_key[("overall", "pr")].value == 0.1 and not by_key[("overall", "pr")].higher_is_better
    assert by_key[("recall", "wp")].value is None  # not computed there: no value, not a zero
    assert gate_metrics({}) == [] and gate_metrics({"configs": None}) == []


def test_episode_units_pair_each_episode_and_skip_unscored_ones() -> None:
    episodes = {
        "hermes@m": {
            "update.SM03": {"ep02": (0.9, 0.5), "ep01": (1.0, None)},
            "update.SM01": {"ep01": (0.6, 0.6)},
            "recall.RC01": {"ep01": (None, 0.4)},
        }
    }
    units = episode_units(SUMMARY, episodes)
    assert set(units) == {("hermes@m", scope, name) for scope, _, _ in config_scopes(CONFIG)
                          for name in ("delta", "s_on", "s_off")}  # fmt: skip
    delta = units[("hermes@m", "update", "delta")]
    assert delta["update.SM03"] == {"ep02": 0.9 - 0.5} and delta["update.SM01"] == {"ep01": 0.0}
    assert units[("hermes@m", "update.SM03", "s_on")] == {"update.SM03": {"ep01": 1.0, "ep02": 0.9}}
    assert units[("hermes@m", "overall", "s_off")]["recall.RC01"] == {"ep01": 0.4}
    # A config without scored episodes has empty units, not an error.
    assert episode_units(SUMMARY, {})[("hermes@m", "overall", "delta")] == {}


def test_a_missing_scope_is_explained_with_what_there_is() -> None:
    scopes = [scope for scope, _, _ in config_scopes(CONFIG)]
    assert scope_problem("update.SM99", scopes) == (
        "no family 'update.SM99' (families: recall.RC01, update.SM01, update.SM03)"
    )
    assert scope_problem("SM03", scopes) == (
        "no capability 'SM03' (capabilities: recall, update); did you mean update.SM03?"
    )
    assert scope_problem("tools", scopes) == "no capability 'tools' (capabilities: recall, update)"
    assert scope_problem("overall", []) == "no overall entry"
    assert scope_problem("a.b", []) == "no family 'a.b' (families: none)"
