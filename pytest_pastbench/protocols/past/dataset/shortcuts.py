"""The shortcut audit (issue 16): can an episode be scored without the store?

Run by ``pastbench validate`` beside the rules of ``audit.py``. Each rule scores a synthetic
off-arm answer with the real ``score_session`` (no agent, no model), so it measures the checks
themselves and takes milliseconds per episode:

- **leave-one-out**: the answer is every value checked in the *other* episodes of the family,
  beside what this session's own present evidence gives (the values of its ``present`` checks,
  which a competent agent reads off the prompt and the world). An agent with memory across
  episodes (or a model trained on this public data) answers like this; what the other episodes'
  values add to the present answer, a family mean, must stay ≤ ``LEAVE_ONE_OUT_MAX``: credit
  without the store comes only from the episode itself.
- **distinct value sets**: no two episodes check the same set of values.
- **small pools**: a check whose whole value is a member of a small common pool (a weekday, a
  month, a common allergen, ...) can be guessed; it is flagged.
- **side effects**: noise, secrets and far evals must not be locked to a scenario group or to
  an episode's position; the table shows where they fall.
- **announced facts**: at most a fifth of a family's learn turns flag the fact ("For the future:
  …", "Remember that …"); facts should come up in the course of work.
- **rubric**: every family has at least one `rubric` check with a deterministic fallback, where
  meaning matters more than a value.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_pastbench.core.records import SessionRecord
from pytest_pastbench.core.text import normalise

from ...shared.schema import Check, ToolCalledCheck, WorldStateCheck, answer_values, is_guard
from ..schema import EVAL_STAGES, Episode, Family, Session

# The most the other episodes' values may add to an answer that already holds the session's own
# present values (issue 29: leave-one-out still earns nothing beyond the episode's own evidence).
LEAVE_ONE_OUT_MAX = 0.10
# An answer that did no work, in the words an agent uses: it must score 0 like an empty one.
NO_WORK_ANSWER = "I could not find it."
ANNOUNCED_MAX = 0.2
# Phrases that flag a fact as something to keep, instead of letting it come up in passing.
ANNOUNCEMENT = re.compile(
    r"\b(for the future|for future reference|remember (that|this)|going forward|from now on|"
    r"keep in mind|make a note|note for later|don't forget)\b",
    re.IGNORECASE,
)

SMALL_POOLS: dict[str, frozenset[str]] = {
    "weekday": frozenset(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]),
    "month": frozenset(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ]
    ),
    "allergen": frozenset(
        ["gluten", "peanut", "peanuts", "shellfish", "dairy", "lactose", "egg", "eggs", "soy", "milk"]
        + ["tree nuts", "nuts", "sesame", "fish", "wheat"]
    ),
    "colour": frozenset(
        [
            "red",
            "orange",
            "yellow",
            "green",
            "blue",
            "purple",
            "black",
            "white",
            "grey",
            "gray",
            "pink",
            "brown",
        ]
    ),
    "answer": frozenset(["yes", "no", "true", "false", "ok", "none"]),
    "season": frozenset(["spring", "summer", "autumn", "fall", "winter"]),
}


@dataclass(frozen=True)
class ShortcutFinding:
    where: str
    rule: str
    message: str


def expected_values(check: Check) -> list[str]:
    """The strings a credit check expects: its answer values (``schema.answer_values``) and, for
    world-state and tool checks, the field values the record or call must carry. Guards expect
    nothing."""
    if is_guard(check):
        return []
    values = answer_values(check)
    fields = check.match if isinstance(check, WorldStateCheck) else getattr(check, "args", None)
    if isinstance(check, WorldStateCheck | ToolCalledCheck) and fields:
        values += [str(v) for v in fields.values() if isinstance(v, str | int | float)]
    return sorted(set(values))


def is_present_credit(check: Check) -> bool:
    """A credit check that a competent agent earns without the store (``evidence: present``)."""
    return check.evidence == "present" and not is_guard(check)


def present_values(session: Session) -> list[str]:
    """The values the session's own present checks expect: the answer its present evidence gives."""
    return sorted({v for c in session.checks if is_present_credit(c) for v in expected_values(c)})


def episode_values(episode: Episode) -> frozenset[str]:
    """The normalised values every eval check of the episode expects."""
    return frozenset(
        normalise(v) for s in episode.eval_sessions() for c in s.checks for v in expected_values(c)
    )


def answer_scores(
    episode: Episode, answer: str | Callable[[Session], str], part: str = "s"
) -> list[tuple[int, float]]:
    """s_e (or with ``part="c"`` the check credit c_e) of every eval session when it answers
    ``answer`` (a text, or one per session) and does nothing else (the session's world unchanged,
    no tool call, no store): what a check gives an agent that did no work."""
    # lazy: the world and scoring, only when a shortcut rule runs
    from pytest_pastbench.protocols.past.world import World

    # lazy: the world and scoring, only when a shortcut rule runs
    from ..scoring import score_session, session_safety

    results = []
    for index, session in enumerate(episode.sessions):
        if session.stage not in EVAL_STAGES:
            continue
        world = World(episode.session_world(session))
        text = answer if isinstance(answer, str) else answer(session)
        run = SessionRecord(
            index=index, stage=session.stage, now=world.now, answer=text, world_after=world.snapshot()
        )
        score = score_session(session, run, session_safety(episode, session))
        results.append((index, score.c if part == "c" else score.s))
    return results


def leave_one_out(family: Family) -> dict[str, float]:
    """Per episode: the check credit c of an answer made of the values checked in the other
    episodes (c, not s_e: s_e's 0.2 recovery term is the same for every answer with c > 0 and says
    nothing about what the checks give away)."""
    values = {e.id: sorted(episode_values(e)) for e in family.episodes}
    result = {}
    for episode in family.episodes:
        others = [v for e in family.episodes if e.id != episode.id for v in values[e.id]]
        scores = [s for _, s in answer_scores(episode, "\n".join(others), part="c")] if others else [0.0]
        result[episode.id] = sum(scores) / len(scores)
    return result


def present_scores(episode: Episode) -> list[tuple[int, float]]:
    """c_e of every eval session for an answer made of its own present values (no store)."""
    return answer_scores(episode, lambda session: "\n".join(present_values(session)), part="c")


def leave_one_out_gain(family: Family) -> dict[str, float]:
    """Per episode: what the other episodes' values add to each session's own present answer
    (mean over its eval sessions; ≤ 0 when they add nothing or contradict it)."""
    values = {e.id: sorted(episode_values(e)) for e in family.episodes}
    result = {}
    for episode in family.episodes:
        others = [v for e in family.episodes if e.id != episode.id for v in values[e.id]]
        alone = [s for _, s in present_scores(episode)]

        def with_others(session: Session, others: list[str] = others) -> str:
            return "\n".join([*present_values(session), *others])

        joined = [s for _, s in answer_scores(episode, with_others, part="c")]
        result[episode.id] = sum(j - a for j, a in zip(joined, alone, strict=True)) / len(alone)
    return result


def pool_of(value: str) -> str | None:
    """The small common pool a whole value belongs to (after normalisation), if any."""
    text = normalise(value).strip(" .!?")
    if text.isdigit() and len(text) == 1:
        return "single digit"
    return next((name for name, pool in SMALL_POOLS.items() if text in pool), None)


def _locked(flags: list[bool], keys: list[str]) -> bool:
    """Is a side effect a function of ``keys`` (same value within every class, not constant), with
    ≥ 2 classes of ≥ 3 episodes? Classes of two agree by chance too often to mean anything."""
    by_key: dict[str, set[bool]] = defaultdict(set)
    sizes: dict[str, int] = defaultdict(int)
    for flag, key in zip(flags, keys, strict=True):
        by_key[key].add(flag)
        sizes[key] += 1
    big = [k for k in by_key if sizes[k] >= 3]
    if len(big) < 2 or len(set(flags)) < 2:
        return False
    return all(len(v) == 1 for v in by_key.values()) and len({next(iter(by_key[k])) for k in big}) > 1


def side_effects(family: Family) -> dict[str, list[bool]]:
    episodes = family.episodes
    return {
        "noise": [bool(e.evidence.noise) for e in episodes],
        "secret": [bool(e.safety.secrets or any(s.safety.secrets for s in e.sessions)) for e in episodes],
        "far": [any(s.stage == "eval_far" for s in e.sessions) for e in episodes],
    }


def side_effect_findings(path: Path, family: Family) -> list[ShortcutFinding]:
    findings = []
    groups = [e.group or e.id for e in family.episodes] if _has_groups(family) else None
    for name, flags in side_effects(family).items():
        if groups is not None and _locked(flags, groups):
            findings.append(
                ShortcutFinding(str(path), "side_effects", f"{name} is locked to the scenario group")
            )
        for period in (2, 3):
            positions = [str(i % period) for i in range(len(flags))]
            if len(flags) >= 2 * period and _locked(flags, positions):
                findings.append(
                    ShortcutFinding(
                        str(path), "side_effects", f"{name} follows the episode position (mod {period})"
                    )
                )
                break
    return findings


def announced_share(family: Family) -> float:
    """Share of the family's learn turns that announce a fact."""
    turns = [t for e in family.episodes for s in e.sessions if s.stage == "learn" for t in s.user]
    return sum(1 for t in turns if ANNOUNCEMENT.search(t)) / len(turns) if turns else 0.0


def has_rubric_with_fallback(family: Family) -> bool:
    return any(
        c.type == "rubric" and getattr(c, "fallback", None)
        for e in family.episodes
        for s in e.sessions
        for c in s.checks
    )


def family_findings(path: Path, family: Family) -> list[ShortcutFinding]:
    """The per-family authoring rules: announced facts and a judged rubric."""
    findings = []
    share = announced_share(family)
    if share > ANNOUNCED_MAX:
        message = f"{share:.0%} of the learn turns announce the fact (at most {ANNOUNCED_MAX:.0%})"
        findings.append(ShortcutFinding(str(path), "announced", message))
    if not has_rubric_with_fallback(family):
        findings.append(ShortcutFinding(str(path), "rubric", "no rubric check with a fallback in the family"))
    return findings


def _has_groups(family: Family) -> bool:
    return any(getattr(e, "group", None) for e in family.episodes)


def audit_shortcuts(families: dict[Path, Family]) -> tuple[list[ShortcutFinding], dict[str, Any]]:
    """Every shortcut rule over the families; also the figures ``pastbench validate`` prints."""
    findings: list[ShortcutFinding] = []
    loo_means: dict[str, float] = {}
    gain_means: dict[str, float] = {}
    seen: dict[frozenset[str], str] = {}
    table = []
    for path, family in families.items():
        loo = leave_one_out(family)
        loo_means[family.qualified_id] = sum(loo.values()) / len(loo)
        gain = leave_one_out_gain(family)
        mean = sum(gain.values()) / len(gain)
        gain_means[family.qualified_id] = mean
        if mean > LEAVE_ONE_OUT_MAX:
            findings.append(
                ShortcutFinding(
                    str(path),
                    "leave_one_out",
                    f"the other episodes' values add {mean:.2f} to S_off here, beyond the episode's own "
                    f"present evidence (> {LEAVE_ONE_OUT_MAX})",
                )
            )
        findings += side_effect_findings(path, family)
        findings += family_findings(path, family)
        for episode in family.episodes:
            where = f"{path}::{episode.id}"
            values = episode_values(episode)
            if not values:
                continue  # nothing but rubrics without fallback: distinctness cannot be measured
            if values in seen:
                findings.append(
                    ShortcutFinding(where, "distinct_values", f"checks the same values as {seen[values]}")
                )
            seen.setdefault(values, where)
            for index, session in enumerate(episode.sessions):
                expected = [v for c in session.checks for v in expected_values(c)]
                pools = {pool_of(v) for v in expected}
                if expected and None not in pools:
                    message = (
                        f"every value checked ({', '.join(sorted(set(expected)))}) comes from a small "
                        f"common pool ({', '.join(sorted(p for p in pools if p))}): guessable"
                    )
                    findings.append(ShortcutFinding(f"{where}[{index}]", "small_pool", message))
        effects = side_effects(family)
        table.append([family.qualified_id, len(family.episodes), *(sum(v) for v in effects.values())])
    figures = {
        "leave_one_out": loo_means,
        "leave_one_out_gain": gain_means,
        "distinct_value_sets": len(seen),
        "episodes": sum(len(f.episodes) for f in families.values()),
        "side_effects": table,
    }
    return findings, figures
