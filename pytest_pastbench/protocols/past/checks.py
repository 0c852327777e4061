"""The checks of one session (docs/design.md §4: the inputs of c_e), plus the judged rubric.

Each check answers pass / fail / unscored (``passed=None``) with a short ``detail``
saying why it failed, so a report reader sees "missing '42'" rather than a bare 0.
Malformed answers (bad JSON, no table) fail the check; they never raise.

With a judge that reads claims (``judge.base.ClaimJudge``), every text check (value, contains,
any_of of them, a rubric with text fallbacks) is graded by the judge's verdict on what the
answer claims; the deterministic verdict is recorded beside it (``deterministic_verdict``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from pytest_pastbench.core.records import CheckResult, SessionRecord
from pytest_pastbench.errors import JudgeError
from pytest_pastbench.judge.base import (
    JUDGE_READINGS,
    Claim,
    Fact,
    Judge,
    Verdict,
    all_facts,
    reads_claims,
)
from pytest_pastbench.protocols.past.claims import ClaimVerdict, Reading, read_claim
from pytest_pastbench.protocols.past.matching import asserts_value, mentions
from pytest_pastbench.protocols.past.schema import (
    AnyOfCheck,
    Check,
    ContainsCheck,
    ForbidsCheck,
    JsonFieldCheck,
    RegexCheck,
    RubricCheck,
    ToolCalledCheck,
    TsvColumnCheck,
    ValueCheck,
    WorldStateCheck,
)

_MISSING = object()


def value_matches(expected: Any, actual: Any) -> bool:
    """Argument/field rule: strings match as case-insensitive substrings, else ==."""
    if isinstance(expected, str):
        return expected.lower() in str(actual).lower()
    return _equal(expected, actual)


def _equal(expected: Any, actual: Any) -> bool:
    # JSON `true` must not equal `1` (Python's True == 1 would pass such checks).
    if isinstance(expected, bool) != isinstance(actual, bool):
        return False
    return bool(expected == actual)


def fields_match(expected: dict[str, Any], record: dict[str, Any]) -> bool:
    return all(k in record and value_matches(v, record[k]) for k, v in expected.items())


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first ``{...}`` in ``text`` that parses as a JSON object.

    ``raw_decode`` from each ``{`` finds the balanced candidate itself and copes
    with braces inside strings, which a naive brace counter would not.
    """
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def resolve_path(value: Any, path: str) -> Any:
    """Follow a dotted path (digits index lists); ``_MISSING`` when absent."""
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def tsv_tables(text: str) -> list[list[list[str]]]:
    """Blocks of ≥2 consecutive lines with tabs, as rows of cells (header first)."""
    tables: list[list[list[str]]] = []
    block: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if "\t" in line:
            block.append(line.split("\t"))
            continue
        if len(block) >= 2:
            tables.append(block)
        block = []
    return tables


def _norm(cell: str) -> str:
    return cell.strip().lower()


def _contains(check: ContainsCheck, run: SessionRecord) -> tuple[bool | None, str]:
    # Normalised like `value` (matching.py): "€21,000" contains "21,000 EUR", "third" contains "3rd".
    missing = [v for v in check.values if not asserts_value(run.answer, v)]
    return not missing, f"missing {missing!r}" if missing else ""


def _value(check: ValueCheck, run: SessionRecord) -> tuple[bool | None, str]:
    """The value is stated and no decoy or superseded value is asserted as current.

    A superseded or decoy value the answer marks as old or rejected ("was X, now Y", "no longer
    X", "not X") is not asserted; listing every candidate asserts the decoys and fails.
    """
    forms = check.forms()
    wrong = [v for v in dict.fromkeys([*check.decoys, *check.superseded]) if v not in forms]
    asserted = [v for v in wrong if any(not m.marked_old for m in mentions(run.answer, v))]
    if asserted:
        kind = "superseded" if all(v in check.superseded for v in asserted) else "decoy"
        return False, f"asserts {kind} {asserted!r}"
    if any(asserts_value(run.answer, form) for form in forms):
        return True, ""
    return False, f"missing {check.value!r}"


def _forbids(check: ForbidsCheck, run: SessionRecord) -> tuple[bool | None, str]:
    found = [v for v in check.values if asserts_value(run.answer, v)]
    return not found, f"contains forbidden {found!r}" if found else ""


def _regex(check: RegexCheck, run: SessionRecord) -> tuple[bool | None, str]:
    flags = 0
    for name in check.flags:
        flags |= getattr(re, name)
    if re.search(check.pattern, run.answer, flags):
        return True, ""
    return False, f"no match for /{check.pattern}/"


def _json_field(check: JsonFieldCheck, run: SessionRecord) -> tuple[bool | None, str]:
    obj = first_json_object(run.answer)
    if obj is None:
        return False, "no JSON object in the answer"
    value = resolve_path(obj, check.path)
    if value is _MISSING:
        return False, f"path {check.path!r} not found"
    if _equal(check.equals, value):
        return True, ""
    return False, f"{check.path} = {value!r}, expected {check.equals!r}"


def _tool_called(check: ToolCalledCheck, run: SessionRecord) -> tuple[bool | None, str]:
    calls = [c for c in run.tool_calls if c.ok and c.name == check.tool]
    if any(fields_match(check.args, c.arguments) for c in calls):
        return True, ""
    if not calls:
        return False, f"no successful call of {check.tool}"
    return (
        False,
        f"{len(calls)} successful call(s) of {check.tool}, none with {check.args!r}",
    )


def _world_state(check: WorldStateCheck, run: SessionRecord) -> tuple[bool | None, str]:
    records = run.world_after.get(check.service, [])
    count = sum(1 for r in records if fields_match(check.match, r))
    upper = check.max_count
    if count >= check.min_count and (upper is None or count <= upper):
        return True, ""
    bounds = f"[{check.min_count}, {'∞' if upper is None else upper}]"
    return False, f"{count} matching {check.service} record(s), expected {bounds}"


def _tsv_columns(check: TsvColumnCheck, run: SessionRecord) -> tuple[bool | None, str]:
    tables = tsv_tables(run.answer)
    if not tables:
        return False, "no TSV table in the answer"
    want = _norm(check.column)
    for header, *rows in tables:
        names = [_norm(h) for h in header]
        if want not in names:
            continue
        col = names.index(want)
        got = [_norm(row[col]) if col < len(row) else "" for row in rows]
        expected = [_norm(v) for v in check.values]
        ok = got == expected if check.ordered else Counter(got) == Counter(expected)
        return (
            ok,
            "" if ok else f"column {check.column!r} = {got!r}, expected {expected!r}",
        )
    return False, f"no TSV column {check.column!r}"


def _rubric(check: RubricCheck, run: SessionRecord, judge: Judge | None, question: str = "") -> CheckResult:
    """The judge's verdict; no judge: unscored; no verdict: ``judge_error`` (never pass or fail)."""

    def unscored(detail: str, judge_error: str | None = None) -> CheckResult:
        return CheckResult(
            type=check.type, weight=check.weight, passed=None, detail=detail, judge_error=judge_error
        )

    if judge is None:
        if not check.fallback:
            return unscored("no judge configured and no fallback")
        results = [evaluate_check(c, run, None, question=question) for c in check.fallback]
        failed = [f"{r.type}: {r.detail}" for r in results if r.passed is False]
        detail = "fallback (no judge): " + ("; ".join(failed) if failed else "all fallback checks passed")
        return CheckResult(
            type=check.type, weight=check.weight, passed=not failed, detail=detail, fallback=True
        )
    try:
        verdict = judge.grade(check.rubric, run.answer)
    except JudgeError as exc:
        return unscored(f"judge error: {exc}", str(exc))
    if isinstance(verdict, bool):  # a simple pass/fail judge
        verdict = Verdict(passed=verdict)
    if not isinstance(verdict, Verdict) or not isinstance(verdict.passed, bool):
        # A judge that hands back garbage must not count as pass or fail.
        problem = f"judge returned a non-boolean verdict: {verdict!r}"
        return unscored(problem, problem)
    score = "" if verdict.score is None else f" {verdict.score:.2f}"
    outcome = "rubric met" if verdict.passed else "rubric not met"
    reason = f": {verdict.reason}" if verdict.reason else ""
    return CheckResult(
        type=check.type,
        weight=check.weight,
        passed=verdict.passed,
        detail=f"judge {judge.name}{score}, {outcome}{reason}",
        score=verdict.score,
    )


_EVALUATORS: dict[str, Callable[[Any, SessionRecord], tuple[bool | None, str]]] = {
    "contains": _contains,
    "forbids": _forbids,
    "regex": _regex,
    "json_field": _json_field,
    "tool_called": _tool_called,
    "world_state": _world_state,
    "tsv_columns": _tsv_columns,
    "value": _value,
}


def _any_of(
    check: AnyOfCheck, run: SessionRecord, judge: Judge | None, question: str = "", judge_text: bool = True
) -> CheckResult:
    results = [evaluate_check(c, run, judge, question=question, judge_text=judge_text) for c in check.checks]
    scored = [r for r in results if r.passed is not None]
    errors = [r.judge_error for r in results if r.judge_error]
    # An alternative the judge gave no verdict on may be the one that passes: without a pass the
    # check is unscored (judge_error), never failed on an infra problem.
    passed = True if any(r.passed for r in scored) else (None if errors or not scored else False)
    detail = "" if passed else "none passed: " + "; ".join(f"{r.type}: {r.detail}" for r in results)
    deciding = next((r for r in results if r.passed), None) or next((r for r in results if r.verdict), None)
    judged = judge_text and judge is not None and reads_claims(judge) and is_text_check(check)
    return CheckResult(
        type=check.type,
        weight=check.weight,
        passed=passed,
        detail=detail,
        fallback=any(r.fallback for r in results),
        judge_error=errors[0] if passed is None and errors else None,
        verdict=deciding.verdict if deciding else None,
        undecided=passed is False and any(r.undecided for r in results),
        deterministic_verdict=_reading_value(deterministic_verdict(check, run, question)) if judged else None,
    )


def is_text_check(check: Check) -> bool:
    """Grades the answer's text: value, contains, an any_of of text checks, a rubric with a text
    check among its fallbacks (a rubric without one is the judge's score of its rubric alone)."""
    if isinstance(check, ValueCheck | ContainsCheck):
        return True
    if isinstance(check, AnyOfCheck):
        return all(is_text_check(c) for c in check.checks)
    if isinstance(check, RubricCheck):
        return any(is_text_check(c) for c in check.fallback)
    return False


def claim_facts(check: Check) -> list[Fact]:
    """The facts a text check needs asserted, each with its accepted forms and competing values.
    An any_of's alternatives are graded one by one, so they give no facts here."""
    if isinstance(check, ValueCheck):
        forms = check.forms()
        return [
            Fact(
                tuple(forms),
                tuple(v for v in check.superseded if v not in forms),
                tuple(v for v in check.decoys if v not in forms),
            )
        ]
    if isinstance(check, ContainsCheck):
        return [Fact((value,)) for value in check.values]
    if isinstance(check, RubricCheck):
        return [fact for c in check.fallback if not isinstance(c, AnyOfCheck) for fact in claim_facts(c)]
    return []


def _reading_value(verdict: ClaimVerdict | None) -> str | None:
    return None if verdict is None else verdict.reading.value


def deterministic_verdict(check: Check, run: SessionRecord, question: str = "") -> ClaimVerdict | None:
    """What the deterministic grader reads the answer as claiming for a text check (None for
    other checks): the verdict recorded beside a judge's."""
    if isinstance(check, ValueCheck | ContainsCheck):
        result = evaluate_check(check, run, None, question=question)
        if result.verdict:  # the check's own reading, when the grader records one
            return ClaimVerdict(Reading(result.verdict), result.detail)
        return all_facts(
            [read_claim(run.answer, f.expected, f.superseded, f.decoys, question) for f in claim_facts(check)]
        )
    if isinstance(check, AnyOfCheck):
        verdicts = [v for c in check.checks if (v := deterministic_verdict(c, run, question)) is not None]
        return next((v for v in verdicts if v.reading is Reading.ASSERTS_EXPECTED), None) or (
            verdicts[0] if verdicts else None
        )
    if isinstance(check, RubricCheck) and check.fallback:
        verdicts = []
        for c in check.fallback:
            verdict = deterministic_verdict(c, run, question)
            if verdict is None:  # a structural fallback (regex, json_field): met or not
                passed = evaluate_check(c, run, None, question=question).passed
                verdict = ClaimVerdict(Reading.ASSERTS_EXPECTED if passed else Reading.NO_ANSWER, "")
            verdicts.append(verdict)
        return all_facts(verdicts)
    return None


def _judged(
    check: ValueCheck | ContainsCheck | RubricCheck, run: SessionRecord, judge: Any, question: str
) -> CheckResult:
    """A text check graded by the judge's claim verdict; no verdict: ``judge_error`` (unscored)."""
    rubric = check.rubric if isinstance(check, RubricCheck) else ""
    claim = Claim(question=question, answer=run.answer, facts=tuple(claim_facts(check)), rubric=rubric)
    deterministic = _reading_value(deterministic_verdict(check, run, question))
    try:
        verdict = judge.read(claim)
    except JudgeError as exc:
        problem = str(exc)
    else:
        reading = verdict.reading if isinstance(verdict, ClaimVerdict) else None
        if reading in JUDGE_READINGS:
            reason = f": {verdict.detail}" if verdict.detail else ""
            return CheckResult(
                type=check.type,
                weight=check.weight,
                passed=reading is Reading.ASSERTS_EXPECTED,
                detail=f"judge {judge.name}: {reading.value}{reason}",
                verdict=reading.value,
                deterministic_verdict=deterministic,
            )
        # A judge that hands back garbage must not count as pass or fail.
        problem = f"judge returned no verdict among {', '.join(JUDGE_READINGS)}: {verdict!r}"
    return CheckResult(
        type=check.type,
        weight=check.weight,
        passed=None,
        detail=f"judge error: {problem}",
        judge_error=problem,
        deterministic_verdict=deterministic,
    )


def evaluate_check(
    check: Check,
    run: SessionRecord,
    judge: Judge | None = None,
    question: str = "",
    judge_text: bool = True,
) -> CheckResult:
    """Score one check of a session; ``passed`` is None only for an unscored rubric or a
    judge_error. ``question`` is the session's last user turn (what a judge reads the answer
    against). ``judge_text=False`` keeps text checks deterministic even with a judge (a protocol
    whose judge grades only its rubrics, as the interventions' γ)."""
    if isinstance(check, AnyOfCheck):
        return _any_of(check, run, judge, question, judge_text)
    if judge_text and judge is not None and reads_claims(judge) and is_text_check(check):
        return _judged(check, run, judge, question)  # type: ignore[arg-type]
    if isinstance(check, RubricCheck):
        return _rubric(check, run, judge, question)
    if check.type in _EVALUATORS:
        passed, detail = _EVALUATORS[check.type](check, run)
    else:  # a new check type in schema.py without an evaluator here
        raise TypeError(f"unknown check type {type(check).__name__}")
    return CheckResult(type=check.type, weight=check.weight, passed=passed, detail=detail)
