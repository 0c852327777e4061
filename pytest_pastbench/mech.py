"""Mech: mechanism-level components of the "on" arm (DESIGN §4), from the trace and
store snapshots.

A fact is asserted by a text when every one of its terms occurs in it
(case-insensitive). The N/A rules matter as much as the formulas: an agent that never
writes must not collect a free 1 − pr, uc or rh, so that it scores Mech 0.
"""

from __future__ import annotations

from pytest_pastbench.records import MechScore, SessionRun, SessionScore, StoreEntry
from pytest_pastbench.schema import EVAL_STAGES, Episode, Fact
from pytest_pastbench.stats import mean
from pytest_pastbench.text import normalise

_READ_OPS = ("read", "search")


def asserts(text: str, fact: Fact) -> bool:
    lowered = text.lower()
    return all(term in lowered for term in fact.terms())


def _asserts_any(text: str, facts: list[Fact]) -> bool:
    return any(asserts(text, f) for f in facts)


def _live_after(runs: list[SessionRun], stages: tuple[str, ...]) -> list[StoreEntry]:
    """Live entries after the last run whose stage is in ``stages`` (else none)."""
    last = next((r for r in reversed(runs) if r.stage in stages), None)
    if last is None:
        return []
    return [e for e in last.store_after if e.is_live(last.now)]


def retrieved_key_fact(run: SessionRun, key_facts: list[Fact]) -> bool:
    """Did a successful read/search here return a text asserting a key fact?"""
    return any(
        a.ok and a.op in _READ_OPS and any(_asserts_any(t, key_facts) for t in a.returned_texts)
        for a in run.store_accesses
    )


def pollution_rate(live: list[StoreEntry], stale: list[Fact], noise: list[Fact]) -> float | None:
    """Share of live entries that are noise, stale, or repeat an earlier entry."""
    if not live:
        return None
    seen: set[str] = set()
    polluted = 0
    for entry in live:
        key = normalise(entry.text)
        if key in seen or _asserts_any(entry.text, noise) or _asserts_any(entry.text, stale):
            polluted += 1
        seen.add(key)
    return polluted / len(live)


def update_correctness(
    live: list[StoreEntry], key: list[Fact], stale: list[Fact], answers: list[str]
) -> float:
    if not live:  # forgetting everything is not updating
        return 0.0
    corrected = all(any(asserts(e.text, f) for e in live) for f in key)
    stale_live = any(_asserts_any(e.text, stale) for e in live)
    stale_used = any(_asserts_any(a, stale) for a in answers)
    if not corrected:
        return 0.0
    return 0.5 if stale_live or stale_used else 1.0


def compute_mech(episode: Episode, runs: list[SessionRun], scores: list[SessionScore]) -> MechScore:
    """Mech of one on-arm item.

    ``runs``: every session that ran, in order; ``scores``: the eval sessions' scores.
    """
    ev = episode.evidence
    key = ev.key_facts
    evals = [r for r in runs if r.stage in EVAL_STAGES]
    learned = _live_after(runs, ("learn", "distractor"))

    wp = ra = uc = rh = None
    if key:
        after_learn = _live_after(runs, ("learn",))
        wp = sum(1 for f in key if any(asserts(e.text, f) for e in after_learn)) / len(key)
        if evals:
            ra = sum(1 for r in evals if retrieved_key_fact(r, key)) / len(evals)
    if ev.stale_facts:
        uc = update_correctness(learned, key, ev.stale_facts, [r.answer for r in evals])

    has_far = any(s.stage == "eval_far" for s in episode.sessions)
    near_retrieved = bool(key) and any(retrieved_key_fact(r, key) for r in evals if r.stage == "eval_near")
    near = mean([x.s for x in scores if x.stage == "eval_near"])
    far = mean([x.s for x in scores if x.stage == "eval_far"])
    if has_far and near_retrieved and near is not None and near > 0 and far is not None:
        rh = min(1.0, far / near)

    pr = pollution_rate(learned, ev.stale_facts, ev.noise)
    parts = [v for v in (wp, ra, uc, rh, None if pr is None else 1 - pr) if v is not None]
    return MechScore(wp=wp, ra=ra, uc=uc, rh=rh, pr=pr, mech=mean(parts), applicable=len(parts))
