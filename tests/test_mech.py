"""Mech components by hand, the N/A rules, and the sanity anchors of DESIGN §4."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_pastbench.mech import asserts, compute_mech
from pytest_pastbench.records import (
    MechScore,
    SessionRun,
    SessionScore,
    StoreAccess,
    StoreEntry,
)
from pytest_pastbench.schema import Episode, Fact

CHECK = [{"type": "contains", "values": ["friday"]}]
KEY = "The deploy freeze moved to Friday"
STALE = "The deploy freeze is on Thursday"
NOISE = "Lunch today is pizza"
EVIDENCE = {
    "key_facts": [{"text": KEY, "match": ["freeze", "friday"]}],
    "stale_facts": [{"text": STALE, "match": ["freeze", "thursday"]}],
    "noise": [{"text": NOISE, "match": ["lunch", "pizza"]}],
}
STAGES = ["learn", "learn", "distractor", "eval_near", "eval_far"]


def episode(stages: list[str] = STAGES, evidence: dict[str, Any] = EVIDENCE) -> Episode:
    sessions = [
        {
            "stage": st,
            "user": "u",
            **({"checks": CHECK} if st.startswith("eval") else {}),
        }
        for st in stages
    ]
    return Episode.model_validate({"id": "ep", "sessions": sessions, "evidence": evidence})


def entry(eid: str, text: str, **fields: Any) -> StoreEntry:
    return StoreEntry(id=eid, text=text, **fields)


def read(*texts: str, op: str = "search", ok: bool = True) -> StoreAccess:
    return StoreAccess(op=op, session=0, returned_texts=list(texts), ok=ok)


def runs(
    stages: list[str] = STAGES,
    stores: dict[int, list[StoreEntry]] | None = None,
    reads: dict[int, list[StoreAccess]] | None = None,
    answers: dict[int, str] | None = None,
) -> list[SessionRun]:
    """One run per stage; ``stores[i]`` is the snapshot after session i (else empty)."""
    stores, reads, answers = stores or {}, reads or {}, answers or {}
    return [
        SessionRun(
            index=i,
            stage=st,
            now="2026-03-02T10:00:00",
            answer=answers.get(i, ""),
            store_after=stores.get(i, []),
            store_accesses=reads.get(i, []),
        )
        for i, st in enumerate(stages)
    ]


def scores(near: float, far: float | None = None) -> list[SessionScore]:
    out = [SessionScore(index=3, stage="eval_near", s=near, c=near, r=1.0, sigma=1)]
    if far is not None:
        out.append(SessionScore(index=4, stage="eval_far", s=far, c=far, r=1.0, sigma=1))
    return out


def test_asserts_needs_every_term_case_insensitively() -> None:
    fact = Fact.model_validate({"text": KEY, "match": ["Freeze", "FRIDAY"]})
    assert asserts("friday: the FREEZE starts", fact)
    assert not asserts("the freeze starts thursday", fact)
    assert asserts("x the deploy freeze moved to friday x", Fact(text=KEY))


# sanity anchors ---------------------------------------------------------------------


def test_agent_that_never_writes_gets_mech_zero() -> None:
    result = compute_mech(episode(), runs(), scores(near=0.2, far=0.2))
    # wp = 0, ra = 0, uc = 0 (empty store); rh needs a retrieval, pr needs entries.
    assert result == MechScore(wp=0.0, ra=0.0, uc=0.0, rh=None, pr=None, mech=0.0, applicable=3)


def test_agent_that_stores_everything_gets_high_pollution() -> None:
    everything = [
        entry("m1", "Deploy freeze is on Thursday"),  # stale
        entry("m2", "Lunch today is pizza"),  # noise
        entry("m3", "Freeze moved to Friday"),  # key
        entry("m4", "freeze  moved to FRIDAY "),  # duplicate of m3
    ]
    near_read = {
        3: [read("Freeze moved to Friday")],
        4: [read("Freeze moved to Friday")],
    }
    result = compute_mech(
        episode(),
        runs(stores={1: everything, 2: everything}, reads=near_read),
        scores(near=0.8, far=0.4),
    )
    # pr = 3 polluted (m1, m2, m4) / 4 live = 0.75; wp = 1/1; ra = 2/2
    # uc = 0.5 (key fact stored but stale m1 still live); rh = min(1, 0.4 / 0.8) = 0.5
    # mech = (1 + 1 + 0.5 + 0.5 + (1 − 0.75)) / 5 = 3.25 / 5 = 0.65
    assert result.pr == pytest.approx(0.75)
    assert (result.wp, result.ra, result.uc) == (1.0, 1.0, 0.5)
    assert result.rh == pytest.approx(0.5)
    assert result.mech == pytest.approx(0.65) and result.applicable == 5


def test_agent_that_never_reads_gets_ra_zero() -> None:
    store = {1: [entry("m1", KEY)], 2: [entry("m1", KEY)]}
    result = compute_mech(episode(), runs(stores=store), scores(near=0.9, far=0.9))
    # wp = 1, ra = 0, uc = 1, rh N/A (no retrieval in eval_near), pr = 0
    # mech = (1 + 0 + 1 + (1 − 0)) / 4 = 0.75
    assert result.ra == 0.0 and result.rh is None
    assert result.mech == pytest.approx(0.75) and result.applicable == 4


def test_curator_scores_full_marks() -> None:
    store = {1: [entry("m1", KEY)], 2: [entry("m1", KEY)]}
    reads = {3: [read(KEY)], 4: [read(KEY, op="read")]}
    result = compute_mech(episode(), runs(stores=store, reads=reads), scores(0.8, 1.0))
    # rh = min(1, 1.0 / 0.8) = 1 (capped); everything else perfect
    assert result == MechScore(wp=1.0, ra=1.0, uc=1.0, rh=1.0, pr=0.0, mech=1.0, applicable=5)


# individual components --------------------------------------------------------------


def test_wp_reads_the_store_after_the_last_learn_session() -> None:
    # The key fact appears only after the distractor (index 2), not while learning.
    late = {2: [entry("m1", KEY)]}
    result = compute_mech(episode(), runs(stores=late), scores(0.5))
    assert result.wp == 0.0
    assert result.uc == 1.0  # uc reads the store after learning, distractors included
    # Written in the first learn session but deleted by the second: not live.
    gone = {0: [entry("m1", KEY)], 1: [entry("m1", KEY, deleted=True)]}
    assert compute_mech(episode(), runs(stores=gone), scores(0.5)).wp == 0.0


def test_wp_is_a_share_of_key_facts_and_ignores_expired_entries() -> None:
    evidence = {"key_facts": [KEY, "room 4", "owner is Ana"]}
    store = [
        entry("m1", "Note: the deploy freeze moved to friday, room 4"),
        entry("m2", "owner is Ana", expires="2026-03-02T09:00:00"),  # expired at 10:00
    ]
    result = compute_mech(episode(evidence=evidence), runs(stores={1: store}), scores(0))
    # 2 of 3 key facts live after learning → wp = 2/3
    assert result.wp == pytest.approx(2 / 3)


def test_skill_text_counts_as_asserting() -> None:
    skill = entry("s1", "1. check freeze calendar\n2. freeze is friday", kind="skill")
    assert compute_mech(episode(), runs(stores={1: [skill]}), scores(0)).wp == 1.0


def test_ra_counts_only_successful_reads_that_return_a_key_fact() -> None:
    stages = ["learn", "eval_near", "eval_near", "eval_near", "eval_near"]
    reads = {
        1: [read("unrelated"), read(KEY)],  # counts
        2: [read(KEY, op="write")],  # a write is not retrieval
        3: [read(KEY, ok=False)],  # failed search
        4: [read("freeze on thursday")],  # stale, not key
    }
    result = compute_mech(episode(stages), runs(stages, reads=reads), scores(0.5))
    # 1 of 4 eval sessions retrieved the key fact → ra = 0.25
    assert result.ra == pytest.approx(0.25)


def test_uc_half_when_a_stale_fact_is_used_in_an_answer() -> None:
    store = {2: [entry("m1", KEY)]}
    answers = {3: "Friday", 4: "the freeze is on Thursday"}
    result = compute_mech(episode(), runs(stores=store, answers=answers), scores(0.5))
    assert result.uc == 0.5


def test_uc_zero_when_only_the_stale_fact_is_stored() -> None:
    store = {2: [entry("m1", STALE)]}
    result = compute_mech(episode(), runs(stores=store), scores(0.5))
    assert result.uc == 0.0 and result.pr == 1.0


def test_uc_ignores_superseded_stale_entries() -> None:
    store = {2: [entry("m0", STALE, superseded_by="m1"), entry("m1", KEY)]}
    result = compute_mech(episode(), runs(stores=store), scores(0.5))
    assert result.uc == 1.0 and result.pr == 0.0


def test_na_rules() -> None:
    no_evidence = episode(evidence={})
    store = {1: [entry("m1", KEY)], 2: [entry("m1", KEY)]}
    result = compute_mech(no_evidence, runs(stores=store), scores(0.8, 0.8))
    # No key facts: wp, ra N/A, and rh cannot see a retrieval; no stale facts: uc N/A.
    assert (result.wp, result.ra, result.uc, result.rh) == (None, None, None, None)
    assert result.pr == 0.0 and result.mech == 1.0 and result.applicable == 1
    empty = compute_mech(no_evidence, runs(), scores(0.8, 0.8))
    assert empty.mech is None and empty.applicable == 0


def test_rh_needs_eval_far_and_a_positive_near_score() -> None:
    store = {1: [entry("m1", KEY)]}
    reads = {3: [read(KEY)]}
    near_only = ["learn", "learn", "distractor", "eval_near"]
    result = compute_mech(episode(near_only), runs(near_only, stores=store, reads=reads), scores(0.8))
    assert result.rh is None
    zero_near = compute_mech(episode(), runs(stores=store, reads=reads), scores(0, 1))
    assert zero_near.rh is None
    # A retrieval only in eval_far does not open rh.
    far_read = compute_mech(episode(), runs(stores=store, reads={4: [read(KEY)]}), scores(0.8, 0.8))
    assert far_read.rh is None


def test_uc_empty_store_scores_zero_even_without_key_facts() -> None:
    stale_only = episode(evidence={"stale_facts": [STALE]})
    # Nothing to correct to, but forgetting everything is still not updating.
    assert compute_mech(stale_only, runs(), scores(0.5)).uc == 0.0
    store = {2: [entry("m1", "freeze calendar lives in the ops wiki")]}
    assert compute_mech(stale_only, runs(stores=store), scores(0.5)).uc == 1.0
