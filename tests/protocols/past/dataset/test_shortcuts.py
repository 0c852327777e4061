"""The shortcut audit: each rule fires on the shortcut it is for and stays quiet on a clean family."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from pytest_pastbench.protocols.past.dataset.shortcuts import (
    LEAVE_ONE_OUT_MAX,
    audit_shortcuts,
    episode_values,
    leave_one_out,
    pool_of,
)
from pytest_pastbench.protocols.past.schema import Family


def _episode(n: int, value: str, *, far: bool = True, noise: bool = False, group: str | None = None) -> dict:
    sessions: list[dict[str, Any]] = [
        {"stage": "learn", "user": [f"Invoice batch {n} goes to {value} this quarter."]},
        {
            "stage": "eval_near",
            "user": [f"Where does invoice batch {n} go?"],
            "checks": [{"type": "contains", "values": [value]}],
        },
    ]
    if far:
        sessions.append(
            {
                "stage": "eval_far",
                "user": [f"Batch {n} is ready; who receives it?"],
                "checks": [{"type": "contains", "values": [value]}],
            }
        )
    episode: dict[str, Any] = {
        "id": f"ep{n:02d}",
        "evidence": {"key_facts": [{"text": f"batch {n} goes to {value}", "match": [value]}]},
        "sessions": sessions,
    }
    if noise:
        episode["evidence"]["noise"] = [{"text": "Today I am in Porto.", "match": ["porto"]}]
    if group:
        episode["group"] = group
    return episode


def _family(episodes: list[dict]) -> Family:
    raw = {
        "format": "pastbench/v1",
        "id": "tiny",
        "capability": "memory",
        "version": "1",
        "episodes": episodes,
    }
    return Family.model_validate(raw)


def _rules(family: Family) -> dict[str, list[str]]:
    findings, _ = audit_shortcuts({Path("tiny.yaml"): family})
    rules: dict[str, list[str]] = {}
    for f in findings:
        rules.setdefault(f.rule, []).append(f.message)
    return rules


CLEAN = [_episode(1, "@mira.k"), _episode(2, "@tobias.r", far=False, noise=True), _episode(3, "@lena.v")]
RUBRIC = {
    "type": "rubric",
    "rubric": "Names the recipient.",
    "fallback": [{"type": "value", "value": "@mira.k"}],
}
CLEAN[0]["sessions"][1]["checks"].append(RUBRIC)


def test_a_clean_family_has_no_shortcut():
    family = _family(copy.deepcopy(CLEAN))
    assert _rules(family) == {}
    assert set(leave_one_out(family).values()) == {0.0}


def test_values_shared_across_episodes_are_caught_by_leave_one_out_and_distinct_sets():
    family = _family([_episode(1, "@mira.k"), _episode(2, "@mira.k"), _episode(3, "@lena.v")])
    rules = _rules(family)
    # ep01 and ep02 answer each other: the family mean is 2/3 > the limit.
    assert sum(leave_one_out(family).values()) / 3 > LEAVE_ONE_OUT_MAX
    assert "leave_one_out" in rules
    assert any("same values" in m for m in rules["distinct_values"])


def test_a_check_an_empty_answer_passes_is_free_credit():
    episodes = copy.deepcopy(CLEAN)
    # A credit check that nothing satisfies vacuously... except an answer that says nothing.
    episodes[0]["sessions"][1]["checks"] = [{"type": "regex", "pattern": r"(?s)\A(?!.*@old\.owner)"}]
    from pytest_pastbench.protocols.past.dataset.audit import empty_scores

    assert [s for _, s in empty_scores(_family(episodes).episodes[0])] == [1.0, 0.0]


def test_small_common_pools_are_flagged():
    assert pool_of("Gluten") == "allergen"
    assert pool_of("friday.") == "weekday"
    assert pool_of("Friday 14:30") is None
    episodes = copy.deepcopy(CLEAN)
    episodes[0] = _episode(1, "sesame")
    assert "small_pool" in _rules(_family(episodes))


def test_side_effects_locked_to_position_or_group():
    by_position = [_episode(n, f"@user{n}", far=n % 2 == 0) for n in range(1, 9)]
    assert any("position" in m for m in _rules(_family(by_position))["side_effects"])
    by_group = [_episode(n, f"@user{n}", noise=n <= 4, group="a" if n <= 4 else "b") for n in range(1, 9)]
    # far is on everywhere (constant, not locked); noise is exactly group a.
    assert any(
        "noise is locked to the scenario group" in m for m in _rules(_family(by_group))["side_effects"]
    )


def test_decoys_and_superseded_values_are_not_expected_values():
    family = _family(copy.deepcopy(CLEAN))
    assert episode_values(family.episodes[0]) == frozenset({"@mira.k"})


def test_families_that_announce_their_facts_or_have_no_rubric_are_flagged():
    episodes = copy.deepcopy(CLEAN)
    episodes[0]["sessions"][1]["checks"].remove(RUBRIC)
    assert "rubric" in _rules(_family(episodes))
    for episode in episodes:
        episode["sessions"][0]["user"] = ["For the future: " + episode["sessions"][0]["user"][0]]
    rules = _rules(_family(episodes))
    assert rules["announced"] == ["100% of the learn turns announce the fact (at most 20%)"]
