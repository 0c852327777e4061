"""Where the present supersedes the store (issue 29, item 2), and what an agent's memory does there.

Shared by ``tests/adversarial/test_stale_trust.py`` (which says why the sessions and families are
defined so) and ``benchmarks/present_supersedes.py``:

- ``supersede_sessions``: the sessions of item 2, eval sessions with a ``present`` check that rejects
  something the learn sessions taught (a value check's ``superseded`` values, or a guard on a
  value the learn sessions stated);
- ``present_led_families``: the families where those sessions outnumber the eval sessions the store
  alone decides;
- ``session_pairs``: (s_on, s_off) of a run on those sessions, per family, with their scenario
  groups (the bootstrap's clusters); ``meaningful``: whether a family's CI over them is a figure
  of its own (``MEANINGFUL_GROUPS``); ``summary_families``: the run summary's per-family Δ and CI.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pytest_pastbench.protocols.past.metrics import summarize
from pytest_pastbench.protocols.past.schema import Episode, Family
from pytest_pastbench.protocols.shared.matching import normalise_for_match
from pytest_pastbench.protocols.shared.schema import (
    AnyOfCheck,
    Check,
    ForbidsCheck,
    RubricCheck,
    ValueCheck,
    WorldStateCheck,
    is_guard,
)
from tests.adversarial.harness import Result

HONEST = "curator+hermes-plus"  # the honest reference (test_stale_trust.py says why)

Session = tuple[str, str, int]  # (family, episode, session index)
Pairs = dict[str, list[tuple[float, float]]]  # family -> (s_on, s_off) per session of item 2
Labels = dict[str, list[str]]  # family -> the scenario group of each pair (the bootstrap's cluster)

# A family's CI over its sessions of item 2 is its own figure when they span this many scenario
# groups (the bootstrap's clusters). With fewer, one group where memory did not hurt already puts 0
# inside the 95% CI whatever the others show: a resample made of it alone has probability
# (1/k)^k, 1/27 = 3.7% for k = 3 (above the 2.5% tail), 1/256 for k = 4. Below it only the family's
# Δ and the CI pooled over all families speak.
MEANINGFUL_GROUPS = 4


def rejects_what_was_taught(check: Check, taught: str) -> bool:
    """A present check that fails an answer or an action on a value the store holds: a value
    check's superseded values, or a guard whose forbidden value the learn sessions stated."""
    if check.evidence != "present":
        return False
    if isinstance(check, ValueCheck):
        return bool(check.superseded)
    if isinstance(check, AnyOfCheck | RubricCheck):
        nested = check.checks if isinstance(check, AnyOfCheck) else check.fallback
        return any(
            rejects_what_was_taught(c.model_copy(update={"evidence": "present"}), taught) for c in nested
        )
    if isinstance(check, WorldStateCheck) and is_guard(check):
        values = [str(v).lstrip("@") for v in check.match.values()]
    elif isinstance(check, ForbidsCheck):
        values = list(check.values)
    else:
        return False
    # Whole tokens, as the grader matches: "P2" is not in "P20".
    return any(f" {normalise_for_match(v)} " in f" {taught} " for v in values if v.strip())


def _taught(episode: Episode) -> str:
    return normalise_for_match(" ".join(t for s in episode.sessions if s.stage == "learn" for t in s.user))


def supersede_sessions(families: list[Family]) -> set[Session]:
    """Every session of item 2: an eval session where the present supersedes the store."""
    return {
        (f.qualified_id, e.id, i)
        for f in families
        for e in f.episodes
        for i, s in enumerate(e.sessions)
        if s.stage.startswith("eval") and any(rejects_what_was_taught(c, _taught(e)) for c in s.checks)
    }


def present_led_families(families: list[Family]) -> set[str]:
    """The families where sessions of item 2 outnumber the eval sessions only the store decides."""
    where = supersede_sessions(families)
    led = set()
    for family in families:
        superseding = sum(1 for w in where if w[0] == family.qualified_id)
        store_only = sum(
            1
            for e in family.episodes
            for s in e.eval_sessions()
            if not any(c.evidence == "present" and not is_guard(c) for c in s.checks)
        )
        if superseding > store_only:
            led.add(family.qualified_id)
    return led


def session_pairs(result: Result, where: set[Session]) -> tuple[Pairs, Labels]:
    scores: dict[Session, dict[str, float]] = defaultdict(dict)
    groups: dict[Session, str] = {}
    for record in result.records:
        for session in record.sessions:
            key = (record.family, record.episode, session.index)
            if key in where:
                scores[key][record.arm] = session.s
                groups[key] = record.group or record.episode
    pairs: Pairs = defaultdict(list)
    labels: Labels = defaultdict(list)
    for key, arms in sorted(scores.items()):
        pairs[key[0]].append((arms["on"], arms["off"]))
        labels[key[0]].append(groups[key])
    return dict(pairs), dict(labels)


def meaningful(labels: list[str]) -> bool:
    """Is a CI over pairs with these scenario groups a figure of its own (``MEANINGFUL_GROUPS``)?"""
    return len(set(labels)) >= MEANINGFUL_GROUPS


def delta(pairs: list[tuple[float, float]]) -> float:
    return sum(on - off for on, off in pairs) / len(pairs)


def family_delta(result: Result, family: str) -> float:
    """The family's Δ over all its episodes, as the run summary has it (mean on − mean off)."""
    arms: dict[str, list[float]] = defaultdict(list)
    for record in result.records:
        if record.family == family and record.score is not None:
            arms[record.arm].append(record.score)
    return sum(arms["on"]) / len(arms["on"]) - sum(arms["off"]) / len(arms["off"])


def summary_families(result: Result) -> dict[str, dict[str, Any]]:
    """Per family: Δ and its 95% CI as the run summary computes them (what the reports mark)."""
    return summarize(result.records, {"trials": 1}, seed=0)["configs"][0]["families"]
