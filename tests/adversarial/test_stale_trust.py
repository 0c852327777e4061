"""Issue 29, item 3: an agent that applies what it stored and ignores newer evidence scores below
its own off arm where the present supersedes the store; the honest reference does not.

"The families of item 2" are the eval sessions whose present check names a superseded value (the
store taught it, the prompt or the world has replaced it): those sessions, grouped by family."""

from __future__ import annotations

import tempfile
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

from pytest_pastbench.core.stats import paired_bootstrap_ci
from pytest_pastbench.protocols.past.schema import AnyOfCheck, Check, Family, RubricCheck, ValueCheck
from tests.adversarial.agents import trust_the_store
from tests.adversarial.harness import Result, past_families, run_contestant
from tests.present_samples import write_present_family

Pairs = dict[str, list[tuple[float, float]]]  # family -> (s_on, s_off) per supersede session


def _supersedes(check: Check) -> bool:
    if isinstance(check, ValueCheck):
        return check.evidence == "present" and bool(check.superseded)
    if isinstance(check, AnyOfCheck | RubricCheck):
        nested = check.checks if isinstance(check, AnyOfCheck) else check.fallback
        return check.evidence == "present" and any(isinstance(c, ValueCheck) and c.superseded for c in nested)
    return False


def supersede_sessions(families: list[Family]) -> set[tuple[str, str, int]]:
    """(family, episode, session index) of every eval session where the present supersedes the store."""
    return {
        (f.qualified_id, e.id, i)
        for f in families
        for e in f.episodes
        for i, s in enumerate(e.sessions)
        if any(_supersedes(c) for c in s.checks)
    }


def session_pairs(result: Result, where: set[tuple[str, str, int]]) -> Pairs:
    scores: dict[tuple[str, str, int], dict[str, float]] = defaultdict(dict)
    for record in result.records:
        for session in record.sessions:
            key = (record.family, record.episode, session.index)
            if key in where:
                scores[key][record.arm] = session.s
    pairs: Pairs = defaultdict(list)
    for (family, _, _), arms in sorted(scores.items()):
        pairs[family].append((arms["on"], arms["off"]))
    return dict(pairs)


def delta(pairs: list[tuple[float, float]]) -> float:
    return sum(on - off for on, off in pairs) / len(pairs)


@cache
def sample_runs() -> tuple[set[tuple[str, str, int]], dict[str, Result]]:
    with tempfile.TemporaryDirectory() as tmp:
        family = write_present_family(Path(tmp))
        runs = {name: run_contestant(name, families=[family]) for name in ("stale_trust", "curator")}
        return supersede_sessions([family]), runs


def test_trusting_the_store_over_the_answer_it_is_given_keeps_the_notes_only() -> None:
    answer = (
        "From my notes:\n- The digest goes out at 16:00\n\nFrom the note 'Digest':\nNow at 11:30.\n\n"
        "As you said:\n- It goes out at 11:30 this time.\n\nOpened ticket: {}"
    )
    assert trust_the_store(answer) == "From my notes:\n- The digest goes out at 16:00\n\nOpened ticket: {}"
    assert (
        trust_the_store("From the note 'Digest':\nNow at 11:30.") == "From the note 'Digest':\nNow at 11:30."
    )


def test_the_stale_trusting_agent_scores_below_its_off_arm_where_the_present_supersedes() -> None:
    where, runs = sample_runs()
    [(family, pairs)] = session_pairs(runs["stale_trust"], where).items()
    ci = paired_bootstrap_ci({family: pairs}, seed=0)
    assert delta(pairs) < 0 and ci is not None and ci[1] < 0, (pairs, ci)


def test_the_honest_reference_gains_from_its_store_there() -> None:
    where, runs = sample_runs()
    curator = runs["curator"]
    assert curator.s("update", "on") > curator.s("update", "off")
    # Where the present supersedes, the curator is never below its off arm.
    [(_, pairs)] = session_pairs(curator, where).items()
    assert all(on >= off for on, off in pairs)


@cache
def builtin_runs() -> tuple[set[tuple[str, str, int]], dict[str, Result]]:
    families = past_families()
    where = supersede_sessions(families)
    chosen = [f for f in families if any(w[0] == f.qualified_id for w in where)]
    return where, {name: run_contestant(name, families=chosen) for name in ("stale_trust", "curator")}


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="issue 29, open: on the appended 4.0 sessions the offline reference and the adversary "
    "do not yet separate in every family (benchmarks/present_supersedes.py prints the two families)",
)
def test_on_the_built_in_data_the_stale_trusting_agent_has_delta_below_zero_in_every_such_family() -> None:
    where, runs = builtin_runs()
    assert where, "the built-in families have no session where the present supersedes the store"
    pairs = session_pairs(runs["stale_trust"], where)
    ci = paired_bootstrap_ci(pairs, seed=0)
    assert ci is not None and ci[1] < 0, ci
    assert all(delta(p) < 0 for p in pairs.values()), {f: delta(p) for f, p in pairs.items()}


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="issue 29, open: on the appended 4.0 sessions the offline reference and the adversary "
    "do not yet separate in every family (benchmarks/present_supersedes.py prints the two families)",
)
def test_on_the_built_in_data_the_honest_reference_has_delta_above_zero_there() -> None:
    where, runs = builtin_runs()
    curator = runs["curator"]
    families = {w[0] for w in where}
    by_family: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for record in curator.records:
        if record.family in families and record.score is not None:
            by_family[record.family][record.arm].append(record.score)
    for family, arms in by_family.items():
        on, off = (sum(arms[a]) / len(arms[a]) for a in ("on", "off"))
        assert on > off, (family, on, off)
