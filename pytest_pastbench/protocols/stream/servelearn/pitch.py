"""Pitch: a 40-80 word sales pitch from a product sheet, graded against the hidden customer.

The published rubric: every sheet attribute is classed mentioned (M), contradicted (C) or not
addressed (N), and invented claims are listed; then

    score = 100 * (liked weight covered / liked weight on the sheet)
                * 0.5^(disliked touched) * 0.3^(red-line touched) * 0.5^(contradictions)
                * 0.5^(invented claims, at most 5)

and a pitch over 90 words scores at most 25. Reward = score / 100.

The classification is a ``Checklist``: with a judge model, ``checklist.ModelChecklist`` (one call
per pitch, M / C / N and invented claims); offline, ``JudgeChecklist`` over the project's judge
seam (``judge.Judge``, one ``grade`` per fact: "does the pitch state this fact"), which yields M or
N only, so contradictions and invented claims are not seen. ``PitchGrade.judge`` records the judge.

The customer's taste is read from the window's Oracle bulletin ("They like: ...; They dislike:
..."), the one place the published files state it; a dislike marked "(do NOT bring this up)" is
a red line. The bulletin gives no weights, so every liked fact weighs 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, Protocol

from pytest_pastbench.judge import reference as reference_judge
from pytest_pastbench.judge.base import Judge, Verdict
from pytest_pastbench.judge.llm import PASS_AT

from ....errors import JudgeError
from .schema import Scenario, Task

Valence = Literal["pos", "neu", "neg", "red"]
Mark = Literal["M", "C", "N"]
WEIGHTS = {"pos": 1.0}
F_NEG, F_RED, F_LIE, F_FAB = 0.5, 0.3, 0.5, 0.5
FAB_CAP, WORD_CAP, OVER_CAP_SCORE = 5, 90, 25.0
RED_LINE = "(do not bring this up)"


@dataclass(frozen=True)
class Sheet:
    """The product's facts as the agent read them, each with the customer's valence."""

    facts: dict[str, Valence]


@dataclass(frozen=True)
class Checked:
    marks: dict[str, Mark]
    invented: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class PitchGrade:
    reward: float
    score: float
    judge: str
    detail: dict[str, object]


class Checklist(Protocol):
    """Classifies every fact of a sheet for one pitch; ``name`` is recorded with the grade."""

    name: str

    def check(self, facts: list[str], pitch: str) -> Checked: ...


class JudgeChecklist:
    """The project's ``Judge`` asked once per fact whether the pitch states it (M or N)."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge
        self.name = judge.name

    def check(self, facts: list[str], pitch: str) -> Checked:
        marks: dict[str, Mark] = {}
        for fact in facts:
            verdict = self.judge.grade(f"The answer states: {fact}", pitch)
            passed = verdict.passed if isinstance(verdict, Verdict) else bool(verdict)
            marks[fact] = "M" if passed else "N"
        return Checked(marks)


class ReferenceJudge:
    """``pastbench/judge`` called in process: the offline lexical-overlap judge, no model client."""

    name = f"pastbench/{reference_judge.NAME}"

    def grade(self, rubric: str, answer: str) -> Verdict:
        score, reason = reference_judge.grade(rubric, answer)
        return Verdict(passed=score >= PASS_AT, score=score, reason=reason)


class VerbatimChecklist:
    """The replay audit's checklist: a fact is M when the pitch contains it word for word, else N.

    Exact for the audit's own pitch (the liked facts, verbatim), so replaying a Pitch task checks
    the sheet, the window's taste and the rubric without a model; never used to grade an agent.
    """

    name = "pastbench/verbatim"

    def check(self, facts: list[str], pitch: str) -> Checked:
        text = " ".join(pitch.casefold().split())
        return Checked({fact: "M" if " ".join(fact.casefold().split()) in text else "N" for fact in facts})


def sheet_facts(task: Task) -> list[str]:
    """The fact lines of the instruction's product sheet, in order."""
    facts, in_facts = [], False
    for line in task.instruction.splitlines():
        if line.strip() == "Facts:":
            in_facts = True
        elif in_facts and line.strip().startswith("- "):
            facts.append(line.strip()[2:].strip())
        elif in_facts and line.strip():
            break
    return facts


def taste(bulletin: str) -> dict[str, Valence]:
    """``fact -> valence`` from an Oracle bulletin's "They like:" / "They dislike:" lines."""
    found: dict[str, Valence] = {}
    for line in bulletin.splitlines():
        for label, valence in (("They like:", "pos"), ("They dislike:", "neg")):
            if line.startswith(label):
                for part in line[len(label) :].strip().rstrip(".").split(";"):
                    text = part.strip()
                    red = RED_LINE in text.lower()
                    fact = re.sub(re.escape(RED_LINE), "", text, flags=re.I).strip()
                    if fact:
                        found[fact] = "red" if red and valence == "neg" else valence  # type: ignore[assignment]
    return found


def sheet(scenario: Scenario, task: Task) -> Sheet:
    likes = taste(scenario.window(task.window).oracle_bulletin)
    return Sheet({fact: likes.get(fact, "neu") for fact in sheet_facts(task)})


def rubric_score(sheet_: Sheet, checked: Checked, words: int) -> tuple[float, dict[str, object]]:
    """The published rubric as a pure function: (score 0-100, the counts behind it)."""
    liked = sum(WEIGHTS.get(v, 0.0) for v in sheet_.facts.values())
    gained = sum(WEIGHTS.get(v, 0.0) for f, v in sheet_.facts.items() if checked.marks.get(f) == "M")
    touched = {
        kind: sum(1 for f, v in sheet_.facts.items() if v == kind and checked.marks.get(f) in ("M", "C"))
        for kind in ("neg", "red")
    }
    lies = sum(1 for f in sheet_.facts if checked.marks.get(f) == "C")
    invented = min(len(distinct_claims(checked.invented)), FAB_CAP)
    coverage = gained / liked if liked else 0.0
    score = (
        100.0 * coverage * F_NEG ** touched["neg"] * F_RED ** touched["red"] * F_LIE**lies * F_FAB**invented
    )
    if words > WORD_CAP:
        score = min(score, OVER_CAP_SCORE)
    detail = {"coverage": coverage, "neg_touch": touched["neg"], "red_touch": touched["red"]}
    return score, {**detail, "lies": lies, "invented": invented, "words": words}


def distinct_claims(claims: list[str]) -> list[str]:
    """Invented claims counted once each: a repeat or requote (case, punctuation, spacing) is one claim."""
    keys = (" ".join(re.sub(r"[^a-z0-9 ]", "", claim.casefold()).split()) for claim in claims)
    return [key for key in dict.fromkeys(keys) if key]


def grade_pitch(scenario: Scenario, task: Task, pitch: str | None, checklist: Checklist) -> PitchGrade:
    """The reward of one submitted pitch; a missing pitch scores 0, a judge without verdict raises."""
    if not pitch or not pitch.strip():
        return PitchGrade(0.0, 0.0, checklist.name, {"reason": "no pitch submitted"})
    sheet_ = sheet(scenario, task)
    if not sheet_.facts:
        raise JudgeError(f"{task.task_id}: the instruction has no product sheet (no 'Facts:' list)")
    checked = checklist.check(list(sheet_.facts), pitch)
    score, detail = rubric_score(sheet_, checked, len(pitch.split()))
    return PitchGrade(score / 100.0, round(score, 1), checklist.name, {**detail, "marks": checked.marks})


def oracle_pitch(scenario: Scenario, task: Task) -> str:
    """The audit's pitch: the sheet's liked facts and nothing else (what the bulletin asks for)."""
    liked = [fact for fact, valence in sheet(scenario, task).facts.items() if valence == "pos"]
    return " ".join(f"{fact[:1].upper()}{fact[1:]}." for fact in liked)
