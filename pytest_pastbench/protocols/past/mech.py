"""Mech: the mechanism-level components of the "on" arm (docs/design.md §4), from the trace and store
snapshots. Mech follows write → retrieve → reuse, so an agent earns it only by reusing what it
stored, never by hoarding or by retrieving and then ignoring.

The five components, each in [0, 1] or N/A (None):

- ``wp`` (write precision, the paper's name): share of the key facts the live entries *together*
  assert after the last learn session (one entry per step of a procedure is fine).
- ``ra`` (retrieval accuracy): share of eval sessions in which a successful read or search
  returned a key fact **and the session then used it**: its answer, or the arguments of a world
  tool it called (not a store tool), says the fact's informative terms.
- ``uc`` (update correctness; episodes with stale facts): 1 when the corrected facts are live,
  no stale fact is live and no answer uses one; 0.5 when corrected but a stale fact is live or
  used; 0 otherwise (an empty store: forgetting everything is not updating).
- ``rh`` (retention over horizon; episodes with eval_far): min(1, c_far / c_near), on the check
  score c, and only when the near session used a retrieved key fact and c_near > 0.
- ``pr`` (pollution rate; when the final store holds entries): share of live entries at the end
  of the episode that are noise, stale, a duplicate, or hold no key fact at all (indiscriminate
  storage, eval prompts included).

``Mech = mean(wp, ra, uc, rh, 1 − pr)`` over the components that apply; nothing else is folded in.

A term is *informative* for a session when the session's own user turns do not say it: an answer
that repeats the question proves no reuse, and an entry that only repeats the question's subject
carries nothing the eval needs. A fact all of whose terms the question says keeps all its terms.
"""

from __future__ import annotations

from collections.abc import Iterable

from pytest_pastbench.core.records import MechScore, SessionRecord, SessionScore, StoreEntry, ToolCall
from pytest_pastbench.core.stats import mean
from pytest_pastbench.core.text import normalise, sentences
from pytest_pastbench.protocols.past.matching import mentions, normalise_for_match
from pytest_pastbench.protocols.past.schema import EVAL_STAGES, Episode, Fact

_READ_OPS = ("read", "search")
_STORE_TOOL_PREFIXES = ("memory_", "skill_")


def canonical(text: str) -> str:
    """The text in the normalised token form of ``matching`` (the one rule value checks use:
    case, diacritics, punctuation, number words, currencies, dates), padded with spaces so a
    lookup is token-bounded."""
    return f" {normalise_for_match(text)} "


def holds(canonical_text: str, term: str) -> bool:
    """Does a text (in :func:`canonical` form) hold ``term``, as whole tokens?"""
    needle = canonical(term)
    return needle.strip() != "" and needle in canonical_text


def asserts_current(text: str, fact: Fact) -> bool:
    """The text states the fact as current: every term said, and none only as old ("was X")."""
    return asserts(text, fact) and all(
        any(not m.marked_old for m in mentions(text, term)) for term in fact.terms()
    )


def asserts(text: str, fact: Fact) -> bool:
    """The text holds every term of the fact."""
    return _asserts_canonical(canonical(text), fact.terms())


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


def used_retrieved_fact(run: SessionRecord, key_facts: list[Fact], prompt: str) -> bool:
    """Did a successful read/search here return a key fact that the session then used: said in
    its answer, or passed to a world tool (a ticket filed in the queue the note names is a use)?"""
    retrieved = together(
        t for a in run.store_accesses if a.ok and a.op in _READ_OPS for t in a.returned_texts
    )
    if not retrieved.strip():
        return False
    answer = together([run.answer, *(_arguments_text(c) for c in run.tool_calls if _acts_on_world(c))])
    for fact in key_facts:
        terms = informative_terms(fact, prompt)
        if _asserts_canonical(retrieved, terms) and _asserts_canonical(answer, terms):
            return True
    return False


def _acts_on_world(call: ToolCall) -> bool:
    # Store tools move facts around (a search for the fact is not a use of it); world tools act.
    return call.ok and not call.name.startswith(_STORE_TOOL_PREFIXES)


def _arguments_text(call: ToolCall) -> str:
    return " ".join(str(v) for v in call.arguments.values())


def _live_after(runs: list[SessionRecord], stages: tuple[str, ...]) -> list[StoreEntry]:
    """Live entries after the last run whose stage is in ``stages`` (else none)."""
    last = next((r for r in reversed(runs) if r.stage in stages), None)
    if last is None:
        return []
    return [e for e in last.store_after if e.is_live(last.now)]


def pollution_rate(
    live: list[StoreEntry], key: list[Fact], stale: list[Fact], noise: list[Fact], prompts: str = " "
) -> float | None:
    """Share of the stored statements (the sentences and list items of the live entries) that are
    noise, stale, a repeat of an earlier one, or hold no key fact.

    Counted per statement, not per entry, so the figure does not depend on how the agent cuts
    what it stores: one blob per session pollutes as much as one entry per sentence."""
    statements = [s for e in live for s in (sentences(e.text) or [e.text])]
    if not statements:
        return None
    seen: set[str] = set()
    polluted = 0
    for statement in statements:
        duplicate = normalise(statement) in seen
        seen.add(normalise(statement))
        text = canonical(statement)
        junk = any(_asserts_canonical(text, f.terms()) for f in [*noise, *stale])
        if duplicate or junk or (key and not _bears_key(text, key, prompts)):
            polluted += 1
    return polluted / len(statements)


def update_correctness(
    live: list[StoreEntry], key: list[Fact], stale: list[Fact], answers: list[str]
) -> float:
    if not live:  # forgetting everything is not updating
        return 0.0
    stored = together(e.text for e in live)
    if not all(_asserts_canonical(stored, f.terms()) for f in key):
        return 0.0
    # "was X, now Y" in a note or an answer keeps X as history, not as a current fact.
    stale_live = any(asserts_current(e.text, f) for e in live for f in stale)
    stale_used = any(asserts_current(a, f) for a in answers for f in stale)
    return 0.5 if stale_live or stale_used else 1.0


def compute_mech(episode: Episode, runs: list[SessionRecord], scores: list[SessionScore]) -> MechScore:
    """Mech of one on-arm item.

    ``runs``: every session that ran, in order; ``scores``: the eval sessions' scores.
    """
    ev = episode.evidence
    key = ev.key_facts
    evals = [r for r in runs if r.stage in EVAL_STAGES]
    prompt = {r.index: together(episode.sessions[r.index].user) for r in evals}
    used = {r.index: bool(key) and used_retrieved_fact(r, key, prompt[r.index]) for r in evals}

    wp = ra = uc = rh = None
    if key:
        written = together(e.text for e in _live_after(runs, ("learn",)))
        wp = sum(1 for f in key if _asserts_canonical(written, f.terms())) / len(key)
        if evals:
            ra = sum(used.values()) / len(evals)
    if ev.stale_facts:
        learned = _live_after(runs, ("learn", "distractor"))
        uc = update_correctness(learned, key, ev.stale_facts, [r.answer for r in evals])

    has_far = any(s.stage == "eval_far" for s in episode.sessions)
    near_used = any(used[r.index] for r in evals if r.stage == "eval_near")
    near = mean([x.c for x in scores if x.stage == "eval_near"])
    far = mean([x.c for x in scores if x.stage == "eval_far"])
    if has_far and near_used and near is not None and near > 0 and far is not None:
        rh = min(1.0, far / near)

    kept = _live_after(runs, tuple({r.stage for r in runs[-1:]}))  # the store as the episode left it
    pr = pollution_rate(kept, key, ev.stale_facts, ev.noise, eval_prompts(episode))
    parts = [v for v in (wp, ra, uc, rh, None if pr is None else 1 - pr) if v is not None]
    return MechScore(wp=wp, ra=ra, uc=uc, rh=rh, pr=pr, mech=mean(parts), applicable=len(parts))
