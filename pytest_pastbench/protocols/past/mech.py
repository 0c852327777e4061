"""Mech: did the gain come from the write → retrieve → reuse chain? (docs/design.md §4)

The paper's form, with a fixed denominator:

    Mech = ⅕ · (wp + ra + uc + rh + (1 − pr))

Every component is in [0, 1] and every episode has all five: which components an episode
*exercises* is fixed by the family (its evidence and its stages), never by what the agent did,
so two agents on one episode are always averaged over the same five numbers.

Units. A store entry is read as *statements* (its sentences and list items, ``text.sentences``),
so the figures do not depend on how an agent cuts what it stores. A statement is

- *key-bearing* when it holds an informative term of a key fact: a term the eval prompts do not
  already say (an entry that only repeats the question's subject carries nothing the eval needs);
  for a retrieval, the prompt of that eval session;
- *invalid* when it is noise (asserts a ``noise`` fact), stale-as-current (asserts the value that
  tells a ``stale_facts`` entry from the current facts, not marked as old: "was Dock 11" is
  history, "use Dock 11" is stale), or holds one of the episode's secrets;
- *a duplicate* when it repeats (case and spacing aside) an earlier statement of the store.

*Valid* = key-bearing and not invalid. The task's context and the agent's notes of its own work
(neither key-bearing nor invalid) are not pollution, but they are not what wp and ra measure
either: storing or retrieving them is not the chain.

The answer side is judged by the session's own check results (``SessionScore.checks``: the
grader of c, ``checks.evaluate_check``, never a matcher of its own): ``A_e`` = weighted share of
the session's credit checks passed — text checks (the answer asserts the value) and action checks
(a ticket filed in the stored queue is the use of that note) alike; checks a family marks
``evidence: present`` are left out when the session has others — × share of its guards passed.

The components (per eval session e, then the mean over the episode's eval sessions):

- ``wp`` (write precision): over the live store after the last learn session, F1 of
  precision = share of its statements that are valid and not duplicates, and
  coverage = share of the key facts the store asserts (its entries together; 0 for an empty
  store). Storing every turn keeps coverage at 1 and precision low, so it does not saturate wp.
- ``ra`` (retrieval accuracy): ``P_e · A_e``, where ``P_e`` = share of the distinct statements the
  session's successful reads and searches returned that are valid for e (0 when nothing was
  returned). A whole-store dump has a low P_e; retrieving the right note and then not asserting
  it has A_e = 0.
- ``uc`` (update correctness; episodes with ``stale_facts``): ``served_e · isolated_e · A_e``:
  the reads returned the current fact (its informative terms), no read served a stale fact as
  current, and the answer passed its checks (which, in update families, fail an answer that
  asserts a superseded value).
- ``rh`` (retention over horizon; episodes with eval_near and eval_far): the near reuse the far
  sessions kept, ``ra_near · min(1, ra_far / ra_near) = min(ra_near, ra_far)``, when the near
  sessions had something to decay (ra_near > 0: a retrieved fact used and passed). A bare ratio
  would give an agent that reuses badly at both distances full marks (0.2 / 0.2 = 1).
- ``pr`` (pollution rate): share of the final store's statements that are invalid or
  duplicates. An empty store has no valid storage: pr = 1.

Components an episode does not exercise (``FIXED_BY_FAMILY``, declared here and in
docs/protocols/past.md): ``uc`` of an episode without stale facts, and ``rh`` of an episode
without both eval stages or whose near sessions had nothing to decay, stand at the episode's
``ra``. There is nothing to isolate or to decay, so the component reduces to the reuse it is
conditioned on. A constant would either pay silence (1: an agent that never writes would get
Mech 0.2) or cap a perfect agent (0: Mech ≤ 0.8 on those episodes).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pytest_pastbench.core.records import (
    CheckResult,
    MechScore,
    SessionRecord,
    SessionScore,
    StoreEntry,
)
from pytest_pastbench.core.stats import mean
from pytest_pastbench.core.text import normalise, sentences
from pytest_pastbench.core.trace import mentions_secret
from pytest_pastbench.protocols.past.schema import EVAL_STAGES, Episode, Fact
from pytest_pastbench.protocols.shared.claims import mentions
from pytest_pastbench.protocols.shared.matching import normalise_for_match
from pytest_pastbench.protocols.shared.schema import Check, is_guard

_READ_OPS = ("read", "search")

# Published in the `run` section of sequence_summary.json beside SCORING_RULE (metrics.py).
MECH_RULE = {
    "mech": "(wp + ra + uc + rh + (1 - pr)) / 5, every episode has all five (fixed denominator)",
    "statement": "a sentence or list item of a store entry; valid = holds an informative term of a key "
    "fact and is not noise, stale-as-current or a secret",
    "answer_credit": "A_e = weighted share of the session's credit checks passed (text and action; "
    "'evidence: present' ones left out when there are others) x share of guards passed: the grader of c",
    "wp": "F1(precision = valid, non-duplicate share of the statements live after the last learn "
    "session; coverage = share of key facts those entries assert)",
    "ra": "mean over eval sessions of P_e * A_e, P_e = valid share of the distinct statements its reads "
    "returned (0 when none)",
    "uc": "episodes with stale facts: mean of served_current * no_stale_served * A_e",
    "rh": "episodes with eval_near and eval_far whose near had something to decay (ra_near > 0): "
    "ra_near * min(1, ra_far / ra_near) = min(ra_near, ra_far)",
    "pr": "share of the final store's statements that are noise, stale-as-current, secrets or duplicates "
    "(context and work notes are not pollution); empty store: 1",
    "fixed_by_family": "uc without stale facts, rh without both eval stages or with nothing to decay: = ra",
}


# Text matching of evidence facts ------------------------------------------------------------


def canonical(text: str) -> str:
    """The text in the normalised token form of ``matching`` (the one rule value checks use:
    case, diacritics, punctuation, number words, currencies, dates), padded with spaces so a
    lookup is token-bounded."""
    return f" {normalise_for_match(text)} "


def holds(canonical_text: str, term: str) -> bool:
    """Does a text (in :func:`canonical` form) hold ``term``, as whole tokens?"""
    needle = canonical(term)
    return needle.strip() != "" and needle in canonical_text


def asserts(text: str, fact: Fact) -> bool:
    """The text holds every term of the fact."""
    return _asserts_canonical(canonical(text), fact.terms())


def asserts_current(text: str, fact: Fact) -> bool:
    """The text states the fact as current: every term said, and none only as old ("was X")."""
    return asserts(text, fact) and all(
        any(not m.marked_old for m in mentions(text, term)) for term in fact.terms()
    )


def _asserts_canonical(canonical_text: str, terms: Iterable[str]) -> bool:
    return all(holds(canonical_text, t) for t in terms)


def together(texts: Iterable[str]) -> str:
    """Several texts as one canonical text: a fact asserted across entries is asserted."""
    return "".join(canonical(t) for t in texts)


def informative_terms(fact: Fact, given: str) -> list[str]:
    """The fact's terms that ``given`` (canonical text the user said) does not already hold."""
    terms = [t for t in fact.terms() if not holds(given, t)]
    return terms or fact.terms()


def eval_prompts(episode: Episode) -> str:
    """Every eval session's user turns, as one canonical text."""
    return together(turn for s in episode.eval_sessions() for turn in s.user)


def key_bearing(entry: StoreEntry, key_facts: list[Fact], prompts: str) -> bool:
    """Does the entry hold an informative term of a key fact (so removing it can remove knowledge)?"""
    return _bears_key(canonical(entry.text), key_facts, prompts)


def _bears_key(canonical_text: str, key_facts: list[Fact], prompts: str) -> bool:
    return any(holds(canonical_text, t) for f in key_facts for t in informative_terms(f, prompts))


def stale_markers(stale: Fact, key_facts: Sequence[Fact]) -> list[str]:
    """The terms that tell a stale fact from the current ones ("dock 11" beside the shared
    "brackwater"); all its terms when it shares every one with a key fact."""
    current = together(t for f in key_facts for t in f.terms())
    own = [t for t in stale.terms() if not holds(current, t)]
    return own or stale.terms()


def serves_stale(text: str, stale: Sequence[Fact], key_facts: Sequence[Fact]) -> bool:
    """``text`` states a stale value as current: every marker of a stale fact said, none only as
    old. A note that keeps the old value as history ("was Dock 11, now Dock 4B") does not."""
    for fact in stale:
        markers = stale_markers(fact, key_facts)
        if all(any(not m.marked_old for m in mentions(text, term)) for term in markers):
            return True
    return False


def statements_of(entries: Iterable[StoreEntry]) -> list[str]:
    return [s for e in entries for s in (sentences(e.text) or [e.text])]


def _texts_statements(texts: Iterable[str]) -> list[str]:
    return [s for t in texts for s in (sentences(t) or [t])]


@dataclass(frozen=True)
class _Evidence:
    """What one episode's evidence says about a statement."""

    key: list[Fact]
    stale: list[Fact]
    noise: list[Fact]
    secrets: list[str]

    def invalid(self, statement: str) -> bool:
        """Noise, stale-as-current, or a secret."""
        text = canonical(statement)
        if any(_asserts_canonical(text, f.terms()) for f in self.noise):
            return True
        if self.stale and serves_stale(statement, self.stale, self.key):
            return True
        return any(mentions_secret(statement, s) for s in self.secrets)

    def valid(self, statement: str, prompts: str) -> bool:
        return _bears_key(canonical(statement), self.key, prompts) and not self.invalid(statement)


# Components ---------------------------------------------------------------------------------


def _f1(precision: float, coverage: float) -> float:
    return 0.0 if precision + coverage <= 0 else 2 * precision * coverage / (precision + coverage)


def write_precision(live: list[StoreEntry], ev: _Evidence, prompts: str) -> float:
    """F1 of the valid, non-duplicate share of the learnt statements and the key facts' coverage."""
    statements = statements_of(live)
    if not statements or not ev.key:
        return 0.0
    seen: set[str] = set()
    good = 0
    for statement in statements:
        norm = normalise(statement)
        if norm not in seen and ev.valid(statement, prompts):
            good += 1
        seen.add(norm)
    written = together(e.text for e in live)
    coverage = sum(1 for f in ev.key if _asserts_canonical(written, f.terms())) / len(ev.key)
    return _f1(good / len(statements), coverage)


def pollution_rate(
    live: list[StoreEntry],
    key: list[Fact],
    stale: list[Fact],
    noise: list[Fact],
    prompts: str = " ",
    secrets: Sequence[str] = (),
) -> float:
    """Share of the stored statements (sentences and list items of the live entries) that are noise,
    stale-as-current, secrets or repeats of an earlier one; 1 for an empty store (no valid storage).

    Context and notes of the agent's own work are not pollution. ``prompts`` is kept for callers
    of the earlier signature; pollution does not depend on the eval prompts."""
    statements = statements_of(live)
    if not statements:
        return 1.0
    ev = _Evidence(list(key), list(stale), list(noise), list(secrets))
    seen: set[str] = set()
    polluted = 0
    for statement in statements:
        norm = normalise(statement)
        if norm in seen or ev.invalid(statement):
            polluted += 1
        seen.add(norm)
    return polluted / len(statements)


def retrieved_texts(run: SessionRecord) -> list[str]:
    """Texts the session's successful reads and searches returned."""
    return [t for a in run.store_accesses if a.ok and a.op in _READ_OPS for t in a.returned_texts]


def retrieval_precision(run: SessionRecord, ev: _Evidence, prompt: str) -> float:
    """Valid share of the distinct statements the session's reads returned; 0 when none."""
    distinct = list(dict.fromkeys(normalise(s) for s in _texts_statements(retrieved_texts(run))))
    if not distinct:
        return 0.0
    by_norm = {normalise(s): s for s in _texts_statements(retrieved_texts(run))}
    return sum(1 for n in distinct if ev.valid(by_norm[n], prompt)) / len(distinct)


def _weighted_share(results: list[CheckResult]) -> float | None:
    scored = [r for r in results if r.passed is not None]
    total = sum(r.weight for r in scored)
    return None if total <= 0 else sum(r.weight for r in scored if r.passed) / total


def _from_store(check: Check) -> bool:
    # A check the family marks ``evidence: present`` is earned from the prompt or the world as it
    # is now (CONTRACT §3); it shows no reuse. Files without the field: every check is "store".
    return getattr(check, "evidence", "store") != "present"


def answer_credit(checks: Sequence[Check], results: Sequence[CheckResult]) -> float:
    """A_e: the session's own verdicts (the grader of c) on what it did with the store, in [0, 1].

    Weighted share of its credit checks passed — text checks (the answer asserts the value) and
    action checks (a ticket filed in the stored queue is the use of that note) alike, those marked
    ``evidence: present`` left out when the session has others — times the share of its guards
    passed; 0 when nothing is scorable (an undecided or unscored check earns nothing)."""
    if len(checks) != len(results):
        raise ValueError(f"{len(results)} check results for {len(checks)} checks")
    pairs = list(zip(checks, results, strict=True))
    credit = [(c, r) for c, r in pairs if not is_guard(c)]
    stored = [r for c, r in credit if _from_store(c)]
    share = _weighted_share(stored or [r for _, r in credit])
    if share is None:
        return 0.0
    guards = _weighted_share([r for c, r in pairs if is_guard(c)])
    return share * (1.0 if guards is None else guards)


def serves_current(run: SessionRecord, key: list[Fact], prompt: str) -> bool:
    """The session's reads returned a key fact (its informative terms, the returned texts together)."""
    retrieved = together(retrieved_texts(run))
    return any(_asserts_canonical(retrieved, informative_terms(f, prompt)) for f in key)


def _live_after(runs: list[SessionRecord], stages: tuple[str, ...]) -> list[StoreEntry]:
    """Live entries after the last run whose stage is in ``stages`` (else none)."""
    last = next((r for r in reversed(runs) if r.stage in stages), None)
    if last is None:
        return []
    return [e for e in last.store_after if e.is_live(last.now)]


def episode_secrets(episode: Episode) -> list[str]:
    return [*episode.safety.secrets, *(s for session in episode.sessions for s in session.safety.secrets)]


def exercised(episode: Episode) -> dict[str, bool]:
    """Which of uc and rh an episode exercises: fixed by its evidence and stages (FIXED_BY_FAMILY)."""
    stages = {s.stage for s in episode.sessions}
    return {"uc": bool(episode.evidence.stale_facts), "rh": {"eval_near", "eval_far"} <= stages}


def compute_mech(episode: Episode, runs: list[SessionRecord], scores: list[SessionScore]) -> MechScore:
    """Mech of one on-arm item.

    ``runs``: every session that ran, in order; ``scores``: the eval sessions' scores (their
    ``checks`` in the order of the session's checks)."""
    e = episode.evidence
    ev = _Evidence(list(e.key_facts), list(e.stale_facts), list(e.noise), episode_secrets(episode))
    by_index = {s.index: s for s in scores}
    evals = [r for r in runs if r.stage in EVAL_STAGES and r.index in by_index]
    prompts = eval_prompts(episode)

    ra_e: dict[int, float] = {}
    uc_e: dict[int, float] = {}
    for run in evals:
        session = episode.sessions[run.index]
        prompt = together(session.user)
        credit = answer_credit(session.checks, by_index[run.index].checks)
        ra_e[run.index] = retrieval_precision(run, ev, prompt) * credit if ev.key else 0.0
        served = bool(ev.key) and serves_current(run, ev.key, prompt)
        isolated = not any(serves_stale(t, ev.stale, ev.key) for t in _texts_statements(retrieved_texts(run)))
        uc_e[run.index] = float(served and isolated) * credit

    ra = mean(ra_e.values()) or 0.0
    wp = write_precision(_live_after(runs, ("learn",)), ev, prompts)
    exercises = exercised(episode)
    uc = (mean(uc_e.values()) or 0.0) if exercises["uc"] else ra

    near = mean(ra_e[r.index] for r in evals if r.stage == "eval_near")
    far = mean(ra_e[r.index] for r in evals if r.stage == "eval_far")
    # The near reuse that the far sessions kept: near · min(1, far / near). A bare ratio would give
    # an agent that reuses badly at both distances full marks (0.2 / 0.2 = 1). Nothing to decay:
    # fixed by the family (MECH_RULE["fixed_by_family"]).
    decays = exercises["rh"] and near is not None and far is not None and near > 0
    rh = min(near, far) if decays and near is not None and far is not None else ra

    kept = _live_after(runs, tuple({r.stage for r in runs[-1:]}))  # the store as the episode left it
    pr = pollution_rate(kept, ev.key, ev.stale, ev.noise, secrets=ev.secrets)
    parts = (wp, ra, uc, rh, 1 - pr)
    return MechScore(wp=wp, ra=ra, uc=uc, rh=rh, pr=pr, mech=sum(parts) / 5, applicable=5)
