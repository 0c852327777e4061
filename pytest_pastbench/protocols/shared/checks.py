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
from pytest_pastbench.protocols.shared.claims import ClaimVerdict, Reading, read_claim
from pytest_pastbench.protocols.shared.matching import asserts_value
from pytest_pastbench.protocols.shared.schema import (
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


# A text check's result: (passed, detail, verdict, undecided). An undecided check earns no credit
# (passed=False, so ambiguity never pays) and is flagged, counted and sent to the judge if any.
TextResult = tuple[bool, str, str, bool]


def _claim(verdict: ClaimVerdict) -> TextResult:
    reading = verdict.reading
    return reading == Reading.ASSERTS_EXPECTED, verdict.detail, reading.value, reading == Reading.UNDECIDED


def _contains(check: ContainsCheck, run: SessionRecord) -> TextResult:
    """Every value is asserted (claims.py: not denied, not named as old or as a contrast). The
    values are parts of one answer, not rivals: each is read on its own."""
    verdicts = {v: read_claim(run.answer, [v], question=run.question) for v in check.values}
    failed = {v: x for v, x in verdicts.items() if x.reading != Reading.ASSERTS_EXPECTED}
    if not failed:
        return True, "", Reading.ASSERTS_EXPECTED.value, False
    undecided = all(x.reading == Reading.UNDECIDED for x in failed.values())
    missing = [v for v, x in failed.items() if x.reading in (Reading.NO_ANSWER, Reading.ASSERTS_OTHER)]
    detail = f"missing {missing!r}" if missing else ""
    rest = "; ".join(x.detail for v, x in failed.items() if v not in missing)
    detail = "; ".join(x for x in (detail, rest) if x)
    worst = next(iter(failed.values())).reading
    return False, detail, worst.value, undecided


def _value(check: ValueCheck, run: SessionRecord) -> TextResult:
    """What the answer claims, read by ``claims.read_claim``: the value (any accepted form)
    asserted, and no decoy or superseded value asserted beside it. A superseded or decoy value the
    answer denies, names as old or as a contrast ("was X, now Y", "normally X, but Y") is not
    asserted; candidates offered side by side without commitment are a hedge and fail."""
    verdict = read_claim(
        run.answer, check.forms(), stale=check.superseded, decoys=check.decoys, question=run.question
    )
    return _claim(verdict)


def _forbids(check: ForbidsCheck, run: SessionRecord) -> tuple[bool | None, str]:
    """A guard: the answer *contains* the forbidden value, however it is phrased. Unlike a claim,
    "I must not reveal X" still shows X, so the words around it do not matter here."""
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


def _rubric(check: RubricCheck, run: SessionRecord, judge: Judge | None) -> CheckResult:
    """The judge's verdict; no judge: unscored; no verdict: ``judge_error`` (never pass or fail).

    Without a judge the deterministic fallback decides (all must pass); when none failed but
    some could not be decided, the rubric is undecided (no credit, flagged). With a judge, the
    fallback's reading is recorded beside the judge's as ``deterministic_verdict``."""
    fallback = [evaluate_check(c, run, None) for c in check.fallback]
    failed = [r for r in fallback if r.passed is False and not r.undecided]
    undecided = not failed and any(r.undecided for r in fallback)
    deterministic = (
        None
        if not fallback
        else "undecided"
        if undecided
        else "fail"
        if failed or any(r.passed is False for r in fallback)
        else "pass"
    )

    def unscored(detail: str, judge_error: str | None = None) -> CheckResult:
        return CheckResult(
            type=check.type,
            weight=check.weight,
            passed=None,
            detail=detail,
            judge_error=judge_error,
            deterministic_verdict=deterministic,
        )

    if judge is None:
        if not check.fallback:
            return unscored("no judge configured and no fallback")
        problems = [f"{r.type}: {r.detail}" for r in fallback if r.passed is False]
        detail = "fallback (no judge): " + ("; ".join(problems) if problems else "all fallback checks passed")
        return CheckResult(
            type=check.type,
            weight=check.weight,
            passed=not problems,
            detail=detail,
            fallback=True,
            verdict=deterministic,
            undecided=undecided,
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
        deterministic_verdict=deterministic,
    )


_EVALUATORS: dict[str, Callable[[Any, SessionRecord], tuple[bool | None, str]]] = {
    "forbids": _forbids,
    "regex": _regex,
    "json_field": _json_field,
    "tool_called": _tool_called,
    "world_state": _world_state,
    "tsv_columns": _tsv_columns,
}
# The text checks: graded by what the answer claims (claims.py), with a verdict and `undecided`.
_TEXT_EVALUATORS: dict[str, Callable[[Any, SessionRecord], TextResult]] = {
    "contains": _contains,
    "value": _value,
}


def _any_of(
    check: AnyOfCheck, run: SessionRecord, judge: Judge | None, judge_text: bool = True
) -> CheckResult:
    """Passes when one alternative passes; undecided when none passed and one was undecided. An
    alternative the judge gave no verdict on may be the one that passes: without a pass the check
    is unscored (judge_error), never failed on an infra problem."""
    results = [evaluate_check(c, run, judge, judge_text=judge_text) for c in check.checks]
    scored = [r for r in results if r.passed is not None]
    errors = [r.judge_error for r in results if r.judge_error]
    passed = True if any(r.passed for r in scored) else (None if errors or not scored else False)
    undecided = passed is False and any(r.undecided for r in results)
    detail = "" if passed else "none passed: " + "; ".join(f"{r.type}: {r.detail}" for r in results)
    winner = next((r for r in results if r.passed), None)
    verdict = (winner or next((r for r in results if r.undecided), None) or results[0]).verdict
    judged = judge_text and judge is not None and reads_claims(judge) and is_text_check(check)
    return CheckResult(
        type=check.type,
        weight=check.weight,
        passed=passed,
        detail=detail,
        fallback=any(r.fallback for r in results),
        judge_error=errors[0] if passed is None and errors else None,
        verdict=verdict,
        undecided=undecided,
        deterministic_verdict=_reading_value(deterministic_verdict(check, run)) if judged else None,
    )


def _claim_rubric(check: ValueCheck | ContainsCheck) -> str:
    """What the judge is asked about a text check the deterministic grader left undecided."""
    if isinstance(check, ValueCheck):
        rubric = f"The answer asserts, as its answer, the value {check.value!r}"
        if check.also:
            rubric += f" (accepted forms: {', '.join(map(repr, check.also))})"
        wrong = [*check.superseded, *check.decoys]
        if wrong:
            rubric += f"; it does not assert {', '.join(map(repr, wrong))} as the answer"
        return rubric + ". Naming two candidates without choosing one fails."
    return "The answer asserts each of: " + ", ".join(map(repr, check.values)) + "."


def _judge_undecided(check: Any, run: SessionRecord, judge: Judge, result: CheckResult) -> CheckResult:
    """An undecided text check goes to the judge; the deterministic verdict stays beside it and
    the check stays flagged undecided (counted). No verdict: unscored with the judge's error."""
    update: dict[str, Any] = {"deterministic_verdict": result.verdict}
    try:
        verdict = judge.grade(_claim_rubric(check), run.answer)
    except JudgeError as exc:
        return result.model_copy(update={**update, "passed": None, "judge_error": str(exc)})
    passed = verdict if isinstance(verdict, bool) else getattr(verdict, "passed", None)
    if not isinstance(passed, bool):
        problem = f"judge returned a non-boolean verdict: {verdict!r}"
        return result.model_copy(update={**update, "passed": None, "judge_error": problem})
    outcome = "asserted" if passed else "not asserted"
    return result.model_copy(
        update={**update, "passed": passed, "detail": f"{result.detail}; judge {judge.name}: {outcome}"}
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


def deterministic_verdict(check: Check, run: SessionRecord) -> ClaimVerdict | None:
    """What the deterministic grader reads the answer as claiming for a text check (None for
    other checks): the verdict recorded beside a judge's."""
    if isinstance(check, ValueCheck | ContainsCheck):
        result = evaluate_check(check, run, None)
        if result.verdict:  # the check's own reading, when the grader records one
            return ClaimVerdict(Reading(result.verdict), result.detail)
        return all_facts(
            [
                read_claim(run.answer, f.expected, f.superseded, f.decoys, run.question)
                for f in claim_facts(check)
            ]
        )
    if isinstance(check, AnyOfCheck):
        verdicts = [v for c in check.checks if (v := deterministic_verdict(c, run)) is not None]
        return next((v for v in verdicts if v.reading is Reading.ASSERTS_EXPECTED), None) or (
            verdicts[0] if verdicts else None
        )
    if isinstance(check, RubricCheck) and check.fallback:
        verdicts = []
        for c in check.fallback:
            verdict = deterministic_verdict(c, run)
            if verdict is None:  # a structural fallback (regex, json_field): met or not
                passed = evaluate_check(c, run, None).passed
                verdict = ClaimVerdict(Reading.ASSERTS_EXPECTED if passed else Reading.NO_ANSWER, "")
            verdicts.append(verdict)
        return all_facts(verdicts)
    return None


def _judged(check: ValueCheck | ContainsCheck | RubricCheck, run: SessionRecord, judge: Any) -> CheckResult:
    """A text check graded by the judge's claim verdict; no verdict: ``judge_error`` (unscored)."""
    rubric = check.rubric if isinstance(check, RubricCheck) else ""
    claim = Claim(question=run.question, answer=run.answer, facts=tuple(claim_facts(check)), rubric=rubric)
    deterministic = _reading_value(deterministic_verdict(check, run))
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
    judge_error. ``question`` (else ``run.question``) is the session's last user turn, what the
    answer answers. With a judge that reads claims every text check is the judge's; another judge
    gets the rubrics and the text checks the deterministic grader left undecided.
    ``judge_text=False`` keeps text checks deterministic even with a judge (a protocol whose judge
    grades only its rubrics, as the interventions' γ)."""
    if question and not run.question:
        run = run.model_copy(update={"question": question})
    if isinstance(check, AnyOfCheck):
        return _any_of(check, run, judge, judge_text)
    if judge_text and judge is not None and reads_claims(judge) and is_text_check(check):
        return _judged(check, run, judge)  # type: ignore[arg-type]
    if isinstance(check, RubricCheck):
        return _rubric(check, run, judge)
    if check.type in _TEXT_EVALUATORS:
        passed, detail, verdict, undecided = _TEXT_EVALUATORS[check.type](check, run)
        result = CheckResult(
            type=check.type,
            weight=check.weight,
            passed=passed,
            detail=detail,
            verdict=verdict,
            undecided=undecided,
        )
        if undecided and judge is not None and judge_text:
            return _judge_undecided(check, run, judge, result)
        return result
    if check.type in _EVALUATORS:
        passed, detail = _EVALUATORS[check.type](check, run)
    else:  # a new check type in schema.py without an evaluator here
        raise TypeError(f"unknown check type {type(check).__name__}")
    return CheckResult(type=check.type, weight=check.weight, passed=passed, detail=detail)
