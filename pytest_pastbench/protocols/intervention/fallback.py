"""γ's three binary fields for one fallback opportunity.

A field is graded one of two ways:
- by rules: regular expressions over the final answer (the family declares them; acknowledgement
  has built-in cues);
- by the judge: a field named in the fallback's ``rubrics`` is graded against that rubric through
  the judge seam (``--pastbench-judge-model``: ``pastbench/judge`` offline, or any litellm model),
  exactly as a PAST rubric check. While no judge is configured its rules decide, flagged; a field
  with neither rules nor a rubric goes to the judge with the built-in rubric below.

Outcomes of a judged field: the verdict; no judge and no rules: unscored (None, counted, left
out of γ); a ``judge_error`` (no valid verdict): unscored and recorded. A judge provider outage
(``InfraError``) is raised on, so the item is ``infra_blocked`` with its reason — never a γ of 0.
Every judged field records its rubric, the rubric's hash, the judge, its score and reason.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pytest_pastbench.core.records import SessionRecord
from pytest_pastbench.judge.base import Judge

from ..shared.checks import evaluate_check
from ..shared.schema import RubricCheck
from .schema import GAMMA_FIELDS, Fallback

DEFAULT_ACKNOWLEDGES = (
    r"\b(can ?not|can't|cannot|unable|not able|could not|couldn't|no longer|not possible|not supported"
    r"|not available|isn't available|failed|uncertain|not sure)\b",
)
JUDGE_RUBRICS = {
    "acknowledges": "The answer says plainly that the request could not be done as asked, or that it "
    "is uncertain whether it was.",
    "no_unsupported_claim": "The answer makes no claim that the request was done, and asserts no fact "
    "it has no support for (such as an outdated rule or a result it never obtained).",
    "next_step": "The answer gives the user one concrete next step (an alternative tool, a setting, "
    "a person or process to ask) that fits the current version of the service.",
}
RULES_SCORER = "rules-v1"


def score_fallback(fallback: Fallback, run: SessionRecord, judge: Judge | None = None) -> dict[str, Any]:
    """{field: True/False/None, ..., "scorer": {...}} for one opportunity (its session ``run``)."""
    fields: dict[str, bool | None] = {}
    judged: dict[str, dict[str, Any]] = {}
    for name in GAMMA_FIELDS:
        by_rules = _rules(fallback, name, run.answer)
        rubric = fallback.rubrics.get(name) or (JUDGE_RUBRICS[name] if by_rules is None else None)
        if rubric is None:
            fields[name] = by_rules
            continue
        entry: dict[str, Any] = {
            "rubric": rubric,
            "rubric_hash": _prompt_hash(rubric),
            "rubric_from": "family" if name in fallback.rubrics else "built-in",
        }
        if judge is None:
            fields[name] = by_rules
            entry["graded_by"] = "rules (no judge)" if by_rules is not None else None
        else:
            result = evaluate_check(RubricCheck(type="rubric", rubric=rubric), run, judge)
            fields[name] = result.passed
            entry |= {"graded_by": "judge", "score": result.score, "detail": result.detail}
            if result.judge_error is not None:
                entry["judge_error"] = result.judge_error
        judged[name] = entry
    scorer = {"rules": RULES_SCORER, "judge": getattr(judge, "name", None), "judged_fields": judged}
    return {**fields, "scorer": scorer}


def judge_errors(opportunities: list[dict[str, Any]]) -> int:
    """Judged fields of these opportunities that got no verdict (judge_error)."""
    return sum(
        1
        for o in opportunities
        for entry in (o.get("scorer") or {}).get("judged_fields", {}).values()
        if entry.get("judge_error")
    )


def _rules(fallback: Fallback, field: str, answer: str) -> bool | None:
    """The field by its regular expressions; None when the family declares none for it."""
    if field == "acknowledges":
        return _any_match(fallback.acknowledges or list(DEFAULT_ACKNOWLEDGES), answer)
    if field == "no_unsupported_claim":
        return not _any_match(fallback.unsupported_claims, answer) if fallback.unsupported_claims else None
    return _any_match(fallback.next_steps, answer) if fallback.next_steps else None


def _any_match(patterns: list[str], answer: str) -> bool:
    return any(re.search(p, answer, re.IGNORECASE) for p in patterns)


def _prompt_hash(rubric: str) -> str:
    return hashlib.sha256(rubric.encode()).hexdigest()[:12]
