"""Mech components by hand (issue 28: the paper's form, a fixed denominator, precision sides)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_pastbench.core.records import (
    CheckResult,
    SessionRecord,
    SessionScore,
    StoreAccess,
    StoreEntry,
)
from pytest_pastbench.protocols.past.mech import (
    MECH_RULE,
    answer_credit,
    asserts,
    compute_mech,
    pollution_rate,
)
from pytest_pastbench.protocols.past.schema import Episode, Fact, Session

CHECK = [{"type": "value", "value": "friday", "superseded": ["thursday"]}]
KEY = "The deploy freeze moved to Friday"
STALE = "The deploy freeze is on Thursday"
NOISE = "Lunch today is pizza"
EVIDENCE = {
    "key_facts": [{"text": KEY, "match": ["freeze", "friday"]}],
    "stale_facts": [{"text": STALE, "match": ["freeze", "thursday"]}],
    "noise": [{"text": NOISE, "match": ["lunch", "pizza"]}],
}
NO_STALE = {"key_facts": EVIDENCE["key_facts"], "noise": EVIDENCE["noise"]}
STAGES = ["learn", "learn", "distractor", "eval_near", "eval_far"]
PROMPT = "When is the deploy freeze?"  # says "freeze": only "friday" is informative


def episode(stages: list[str] = STAGES, evidence: dict[str, Any] = EVIDENCE) -> Episode:
    sessions = [
        {
            "stage": st,
            "user": PROMPT if st.startswith("eval") else "u",
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
) -> list[SessionRecord]:
    """One run per stage; ``stores[i]`` is the snapshot after session i (else the one before)."""
    stores, reads = stores or {}, reads or {}
    result, store = [], []
    for i, st in enumerate(stages):
        store = stores.get(i, store)
        result.append(
            SessionRecord(
                index=i,
                stage=st,
                now="2026-03-02T10:00:00",
                store_after=store,
                store_accesses=reads.get(i, []),
            )
        )
    return result


def scores(passed: dict[int, bool], stages: list[str] = STAGES) -> list[SessionScore]:
    """The eval sessions' scores with their one value check passed or not (the grader's verdict)."""
    return [
        SessionScore(
            index=i,
            stage=st,
            s=float(passed.get(i, False)),
            c=float(passed.get(i, False)),
            r=1.0,
            sigma=1,
            checks=[CheckResult(type="value", weight=1.0, passed=passed.get(i, False))],
        )
        for i, st in enumerate(stages)
        if st.startswith("eval")
    ]


def test_asserts_needs_every_term_as_whole_words_in_any_case_and_punctuation() -> None:
    fact = Fact.model_validate({"text": KEY, "match": ["Freeze", "FRIDAY"]})
    assert asserts("friday: the FREEZE starts", fact)
    assert not asserts("the freeze starts thursday", fact)
    assert not asserts("the antifreeze is due fridays", fact)  # token-bounded
    assert asserts("Café Zürich", Fact(text="cafe zurich"))  # diacritics


def test_the_oracle_store_gets_one_and_the_denominator_is_always_five() -> None:
    store = {0: [entry("m1", KEY)]}
    reads = {3: [read(KEY)], 4: [read(KEY)]}
    result = compute_mech(episode(), runs(stores=store, reads=reads), scores({3: True, 4: True}))
    assert (result.wp, result.ra, result.uc, result.rh, result.pr) == (1.0, 1.0, 1.0, 1.0, 0.0)
    assert result.mech == 1.0 and result.applicable == 5
    assert "/ 5" in MECH_RULE["mech"]


def test_an_agent_that_never_writes_gets_mech_zero() -> None:
    reads = {3: [read()], 4: [read()]}
    for evidence in (EVIDENCE, NO_STALE):  # with and without stale facts (uc exercised or fixed)
        result = compute_mech(episode(evidence=evidence), runs(reads=reads), scores({3: True, 4: True}))
        # Its answers passed (from the prompt, say), but nothing was written or retrieved.
        assert (result.wp, result.ra, result.uc, result.rh, result.pr) == (0.0, 0.0, 0.0, 0.0, 1.0)
        assert result.mech == 0.0


def test_wp_is_the_f1_of_valid_statements_and_key_coverage_so_storing_everything_does_not_saturate_it() -> (
    None
):
    chatter = [entry(f"c{i}", f"Context sentence number {i} about the office.") for i in range(3)]
    store = {1: [entry("m1", KEY), *chatter]}
    result = compute_mech(episode(), runs(stores=store), scores({}))
    # precision 1 / 4 statements, coverage 1: F1 = 2 · 0.25 / 1.25 = 0.4
    assert result.wp == pytest.approx(0.4)
    # The chatter is context, not pollution.
    assert result.pr == 0.0


def test_pollution_is_noise_stale_as_current_secrets_and_duplicates_not_context() -> None:
    key, stale, noise = (
        [Fact.model_validate(x) for x in EVIDENCE[k]] for k in ("key_facts", "stale_facts", "noise")
    )
    live = [
        entry("m1", KEY),  # key
        entry("m2", "The freeze is no longer on Thursday; now Friday."),  # history, marked old: fine
        entry("m8", "The freeze was on Thursday before; now Friday."),  # history, as a lone note: fine
        entry("m3", "Lunch today is pizza."),  # noise
        entry("m4", "Deploy freeze on Thursday."),  # stale as current
        entry("m5", "the deploy  freeze moved to FRIDAY"),  # duplicate of m1
        entry("m6", "The vault password is Hunter2-zz."),  # a secret
        entry("m7", "I drafted the release email for Ana."),  # a note of its own work: fine
    ]
    assert pollution_rate(live, key, stale, noise, secrets=["Hunter2-zz"]) == pytest.approx(4 / 8)
    assert pollution_rate([], key, stale, noise) == 1.0  # no valid storage


def test_ra_is_retrieval_precision_times_the_sessions_own_verdict() -> None:
    store = {0: [entry("m1", KEY)]}
    dump = [KEY, "Context one.", "Context two.", "Context three."]
    reads = {3: [read(KEY)], 4: [read(*dump)]}
    result = compute_mech(
        episode(evidence=NO_STALE), runs(stores=store, reads=reads), scores({3: True, 4: True})
    )
    # near: precision 1 × passed; far: precision 1/4 (a dump) × passed → ra = (1 + 0.25) / 2
    assert result.ra == pytest.approx(0.625)
    # Retrieved the right note, answer failed its check: no credit.
    failed = compute_mech(
        episode(evidence=NO_STALE), runs(stores=store, reads=reads), scores({3: False, 4: False})
    )
    assert failed.ra == 0.0
    # A write, a failed search and a stale note are not right content.
    wrong = {3: [read(KEY, op="write")], 4: [read(KEY, ok=False)]}
    assert compute_mech(episode(), runs(stores=store, reads=wrong), scores({3: True, 4: True})).ra == 0.0


def test_uc_needs_the_current_fact_served_no_stale_served_and_the_check_passed() -> None:
    store = {0: [entry("m1", KEY)]}
    clean = {3: [read(KEY)], 4: [read(KEY)]}
    stale = {3: [read(KEY, "Deploy freeze is on Thursday.")], 4: [read(KEY)]}
    history = {3: [read(KEY, "The freeze moved from Thursday to Friday.")], 4: [read(KEY)]}
    passed = scores({3: True, 4: True})
    assert compute_mech(episode(), runs(stores=store, reads=clean), passed).uc == 1.0
    assert compute_mech(episode(), runs(stores=store, reads=stale), passed).uc == 0.5
    assert compute_mech(episode(), runs(stores=store, reads=history), passed).uc == 1.0
    assert compute_mech(episode(), runs(stores=store, reads=clean), scores({3: True})).uc == 0.5


def test_components_the_episode_does_not_exercise_stand_at_ra() -> None:
    store = {0: [entry("m1", KEY)]}
    dump = [KEY, "Context one."]
    reads = {3: [read(*dump)]}
    near_only = ["learn", "eval_near"]
    result = compute_mech(
        episode(near_only, NO_STALE),
        runs(near_only, {0: [entry("m1", KEY)]}, {1: [read(*dump)]}),
        scores({1: True}, near_only),
    )
    assert result.ra == pytest.approx(0.5) and result.uc == result.ra and result.rh == result.ra
    # Near had nothing to decay (it did not reuse): rh stands at ra.
    far_used = {4: [read(KEY)]}
    nothing_near = compute_mech(
        episode(evidence=NO_STALE), runs(stores=store, reads=far_used), scores({4: True})
    )
    assert nothing_near.ra == 0.5 and nothing_near.rh == 0.5
    assert compute_mech(episode(), runs(stores=store, reads=reads), scores({3: True})).rh == 0.0  # decayed


def test_rh_is_the_near_reuse_the_far_sessions_kept_not_a_bare_ratio() -> None:
    store = {0: [entry("m1", KEY)]}
    poor = [KEY, "Context one.", "Context two.", "Context three.", "Context four."]  # precision 0.2
    reads = {3: [read(*poor)], 4: [read(*poor)]}
    result = compute_mech(
        episode(evidence=NO_STALE), runs(stores=store, reads=reads), scores({3: True, 4: True})
    )
    assert result.rh == pytest.approx(0.2)  # a ratio would say 0.2 / 0.2 = 1


def test_answer_credit_uses_the_sessions_check_verdicts_and_its_guards() -> None:
    session = Session.model_validate(
        {
            "stage": "eval_near",
            "user": "q",
            "checks": [
                {"type": "value", "value": "friday", "weight": 3},
                {"type": "tool_called", "tool": "tickets_create"},
                {"type": "forbids", "values": ["thursday"]},
            ],
        }
    )

    def results(*passed: bool | None) -> list[CheckResult]:
        return [
            CheckResult(type=c.type, weight=c.weight, passed=p)
            for c, p in zip(session.checks, passed, strict=True)
        ]

    assert answer_credit(session.checks, results(True, False, True)) == pytest.approx(0.75)
    assert answer_credit(session.checks, results(True, True, False)) == 0.0  # a failed guard
    assert answer_credit(session.checks, results(None, None, True)) == 0.0  # nothing scorable
    with pytest.raises(ValueError, match="check results"):
        answer_credit(session.checks, results(True, True, True)[:2])
