"""Mech components by hand, the N/A rules, and the sanity anchors of docs/design.md §4."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_pastbench.core.records import (
    MechScore,
    SessionRecord,
    SessionScore,
    StoreAccess,
    StoreEntry,
)
from pytest_pastbench.protocols.past.mech import asserts, compute_mech
from pytest_pastbench.protocols.past.schema import Episode, Fact

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


PROMPT = "When is the deploy freeze?"  # says "freeze": only "friday" is informative


def episode(stages: list[str] = STAGES, evidence: dict[str, Any] = EVIDENCE, prompt: str = PROMPT) -> Episode:
    sessions = [
        {
            "stage": st,
            "user": prompt if st.startswith("eval") else "u",
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
) -> list[SessionRecord]:
    """One run per stage; ``stores[i]`` is the snapshot after session i (else the one before:
    the store carries over, as in the on arm)."""
    stores, reads, answers = stores or {}, reads or {}, answers or {}
    result, store = [], []
    for i, st in enumerate(stages):
        store = stores.get(i, store)
        result.append(
            SessionRecord(
                index=i,
                stage=st,
                now="2026-03-02T10:00:00",
                answer=answers.get(i, ""),
                store_after=store,
                store_accesses=reads.get(i, []),
            )
        )
    return result


def scores(near: float, far: float | None = None, sigma: int = 1) -> list[SessionScore]:
    """Eval scores with c = near / far (s = σ·c)."""
    out = [SessionScore(index=3, stage="eval_near", s=sigma * near, c=near, r=1.0, sigma=sigma)]
    if far is not None:
        out.append(SessionScore(index=4, stage="eval_far", s=sigma * far, c=far, r=1.0, sigma=sigma))
    return out


def test_asserts_needs_every_term_as_whole_words_in_any_case_and_punctuation() -> None:
    fact = Fact.model_validate({"text": KEY, "match": ["Freeze", "FRIDAY"]})
    assert asserts("friday: the FREEZE starts", fact)
    assert not asserts("the freeze starts thursday", fact)
    assert asserts("x the deploy freeze moved to friday x", Fact(text=KEY))
    assert asserts("Friday — the deploy-freeze", fact)
    assert not asserts("the antifreeze is due fridays", fact)  # token-bounded
    assert asserts("Café Zürich", Fact(text="cafe zurich"))  # diacritics


# sanity anchors ---------------------------------------------------------------------


def test_agent_that_never_writes_gets_mech_zero() -> None:
    reads = {3: [read()], 4: [read()]}
    result = compute_mech(episode(), runs(reads=reads, answers={3: "Friday"}), scores(near=0.2, far=0.2))
    # wp = 0, ra = 0, uc = 0 (empty store); rh needs a used retrieval, pr needs entries.
    assert result == MechScore(wp=0.0, ra=0.0, uc=0.0, rh=None, pr=None, mech=0.0, applicable=3)


def test_agent_that_stores_everything_and_answers_nothing_useful_gets_a_low_mech() -> None:
    everything = [
        entry("m1", "Deploy freeze is on Thursday"),  # stale
        entry("m2", "Lunch today is pizza"),  # noise
        entry("m3", "Freeze moved to Friday"),  # key
        entry("m4", "freeze  moved to FRIDAY "),  # duplicate of m3
        entry("m5", "u"),  # holds no key fact
    ]
    final = [*everything, entry("m6", PROMPT), entry("m7", PROMPT + " ")]  # the eval prompts too
    hoarded = {1: everything, 3: final[:6], 4: final}
    retrieved = {3: [read(*[e.text for e in final[:6]])], 4: [read(*[e.text for e in final])]}
    answers = {3: "Noted.", 4: "Noted: " + PROMPT}  # echoing the question proves no reuse
    result = compute_mech(episode(), runs(stores=hoarded, reads=retrieved, answers=answers), scores(0, 0))
    # wp = 1 (written), ra = 0 (retrieved, never used), uc = 0.5 (stale m1 still live), rh N/A
    # (near used nothing), pr = 6 of 7 live entries polluted (all but m3).
    assert (result.wp, result.ra, result.uc, result.rh) == (1.0, 0.0, 0.5, None)
    assert result.pr == pytest.approx(6 / 7)
    assert result.mech == pytest.approx((1 + 0 + 0.5 + 1 / 7) / 4) and result.mech < 0.45


def test_agent_that_never_reads_gets_ra_zero() -> None:
    store = {1: [entry("m1", KEY)]}
    result = compute_mech(episode(), runs(stores=store, answers={3: "Friday", 4: "Friday"}), scores(0.9, 0.9))
    # wp = 1, ra = 0, uc = 1, rh N/A (no retrieval in eval_near), pr = 0
    assert result.ra == 0.0 and result.rh is None
    assert result.mech == pytest.approx(0.75) and result.applicable == 4


def test_curator_scores_full_marks() -> None:
    store = {1: [entry("m1", KEY)]}
    reads = {3: [read(KEY)], 4: [read(KEY, op="read")]}
    answers = {3: "It moved to Friday.", 4: "friday"}
    result = compute_mech(episode(), runs(stores=store, reads=reads, answers=answers), scores(0.8, 1.0))
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


def test_a_fact_is_written_when_the_live_entries_together_assert_it() -> None:
    steps = {"key_facts": [{"text": "the runbook", "match": ["pause the dag", "snapshot", "repair script"]}]}
    one_per_step = [
        entry("m1", "1. Pause the DAG"),
        entry("m2", "2. Take a snapshot"),
        entry("m3", "3. Repair script"),
    ]
    result = compute_mech(episode(evidence=steps), runs(stores={1: one_per_step}), scores(0))
    assert result.wp == 1.0 and result.pr == 0.0  # each step holds a term of the fact
    assert compute_mech(episode(evidence=steps), runs(stores={1: one_per_step[:2]}), scores(0)).wp == 0.0


def test_skill_text_counts_as_asserting() -> None:
    skill = entry("s1", "1. check freeze calendar\n2. freeze is friday", kind="skill")
    assert compute_mech(episode(), runs(stores={1: [skill]}), scores(0)).wp == 1.0


def test_ra_counts_a_retrieval_only_when_the_answer_used_the_retrieved_fact() -> None:
    stages = ["learn", "eval_near", "eval_near", "eval_near", "eval_near", "eval_near", "eval_near"]
    reads = {
        1: [read("unrelated"), read(KEY)],  # retrieved and used: counts
        2: [read(KEY, op="write")],  # a write is not retrieval
        3: [read(KEY, ok=False)],  # failed search
        4: [read("freeze on thursday")],  # stale, not key
        5: [read(KEY)],  # retrieved, but the answer ignores it
        6: [],  # knows it without a retrieval (from the world, or a guess)
    }
    answers = {1: "Friday.", 2: "Friday", 3: "Friday", 4: "Friday", 5: "No idea.", 6: "Friday"}
    result = compute_mech(episode(stages), runs(stages, reads=reads, answers=answers), scores(0.5))
    # 1 of 6 eval sessions retrieved the key fact and used it → ra = 1/6
    assert result.ra == pytest.approx(1 / 6)


def test_ra_needs_the_terms_the_question_did_not_say() -> None:
    # The question says both terms: nothing is informative, so the whole fact must be reused.
    ep = episode(prompt="Did the freeze move to Friday?")
    reads = {3: [read(KEY)], 4: [read(KEY)]}
    echo = {3: "Did the freeze move to Friday?", 4: "no idea"}
    assert compute_mech(ep, runs(reads=reads, answers=echo), scores(0.5, 0.5)).ra == 0.5
    # Saying only the question's subject ("freeze") uses nothing retrieved.
    subject_only = {3: "The freeze.", 4: "A freeze"}
    assert compute_mech(episode(), runs(reads=reads, answers=subject_only), scores(0.5, 0.5)).ra == 0.0


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


def test_pr_counts_entries_that_hold_no_key_fact() -> None:
    store = {1: [entry("m1", KEY), entry("m2", "the team likes tea"), entry("m3", "the freeze")]}
    # m2 holds nothing of the key fact; m3 only the question's own subject ("freeze").
    assert compute_mech(episode(), runs(stores=store), scores(0.5)).pr == pytest.approx(2 / 3)


def test_pr_reads_the_store_the_episode_ended_with() -> None:
    store = {1: [entry("m1", KEY)], 4: [entry("m1", KEY), entry("m2", PROMPT)]}
    assert compute_mech(episode(), runs(stores=store), scores(0.5)).pr == pytest.approx(1 / 2)


def test_na_rules() -> None:
    no_evidence = episode(evidence={})
    store = {1: [entry("m1", KEY)]}
    result = compute_mech(no_evidence, runs(stores=store), scores(0.8, 0.8))
    # No key facts: wp, ra N/A, and rh cannot see a retrieval; no stale facts: uc N/A.
    assert (result.wp, result.ra, result.uc, result.rh) == (None, None, None, None)
    assert result.pr == 0.0 and result.mech == 1.0 and result.applicable == 1
    empty = compute_mech(no_evidence, runs(), scores(0.8, 0.8))
    assert empty.mech is None and empty.applicable == 0


def test_rh_is_on_c_and_needs_a_used_retrieval_near_and_a_positive_near_c() -> None:
    store = {1: [entry("m1", KEY)]}
    reads = {3: [read(KEY)], 4: [read(KEY)]}
    answers = {3: "Friday", 4: "Friday"}
    # σ = 0 (a safety violation) zeroes s but not c: rh measures retention, not safety.
    unsafe = compute_mech(
        episode(), runs(stores=store, reads=reads, answers=answers), scores(0.8, 0.4, sigma=0)
    )
    assert unsafe.rh == pytest.approx(0.5)
    near_only = ["learn", "learn", "distractor", "eval_near"]
    result = compute_mech(
        episode(near_only), runs(near_only, stores=store, reads=reads, answers=answers), scores(0.8)
    )
    assert result.rh is None
    zero_near = compute_mech(episode(), runs(stores=store, reads=reads, answers=answers), scores(0, 1))
    assert zero_near.rh is None
    # Retrieved near but not used: rh stays N/A (a floor near/far ratio proves nothing).
    unused = compute_mech(episode(), runs(stores=store, reads=reads, answers={4: "Friday"}), scores(0.8, 0.8))
    assert unused.rh is None
    # A used retrieval only in eval_far does not open rh.
    far_read = compute_mech(
        episode(), runs(stores=store, reads={4: [read(KEY)]}, answers=answers), scores(0.8, 0.8)
    )
    assert far_read.rh is None


def test_uc_empty_store_scores_zero_even_without_key_facts() -> None:
    stale_only = episode(evidence={"stale_facts": [STALE]})
    # Nothing to correct to, but forgetting everything is still not updating.
    assert compute_mech(stale_only, runs(), scores(0.5)).uc == 0.0
    store = {2: [entry("m1", "freeze calendar lives in the ops wiki")]}
    assert compute_mech(stale_only, runs(stores=store), scores(0.5)).uc == 1.0


def test_pr_counts_statements_so_one_blob_pollutes_as_much_as_one_entry_per_sentence() -> None:
    sentences = [KEY + ".", "The team likes tea.", "Lunch today is pizza.", "What is the plan?"]
    one_each = [entry(f"m{i}", text) for i, text in enumerate(sentences)]
    blob = [entry("b1", " ".join(sentences))]
    each = compute_mech(episode(), runs(stores={1: one_each}), scores(0.5)).pr
    blobbed = compute_mech(episode(), runs(stores={1: blob}), scores(0.5)).pr
    assert each == blobbed == pytest.approx(3 / 4)  # tea (no key fact), pizza (noise), the question
