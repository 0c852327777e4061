"""How often the judge agrees with human labels: the label files read, each sample judged, the
agreement figures and their table (the ``pastbench judge-agreement`` command is
``cli/judge_agreement.py``, whose help says what the files hold)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from tabulate import tabulate

from ..core.stats import mean
from ..errors import InfraError, JudgeError, LabelError
from ..results.render.table import format_number
from .llm import PASS_AT, REFERENCE_JUDGE, LLMJudge, check_judge_model

DEFAULT_TOLERANCE = 0.5


class LabelledSample(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    rubric: str = Field(min_length=1)
    answer: str
    human: float
    id: str | None = None


@dataclass(frozen=True)
class Sample:
    line: int
    label: LabelledSample
    path: str = ""

    @property
    def where(self) -> str:
        """``file:line``, so a sample of several label files is found again."""
        return f"{Path(self.path).name}:{self.line}" if self.path else str(self.line)


@dataclass(frozen=True)
class Judged:
    sample: Sample
    judge: float | None  # on the human scale; None when the judge gave no verdict
    error: str | None = None


ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass(frozen=True)
class Row(Generic[ModelT]):
    """One line of a JSON Lines labels file: the validated row, or why it cannot be used."""

    path: str
    line: int
    value: ModelT | None
    error: str | None = None

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def read_json_lines(path: Path, model: type[ModelT], shape: str) -> list[Row[ModelT]]:
    """Every non-blank line of a JSON Lines file validated as ``model``; a bad line is a row with
    an error naming its field (``shape`` says what a line should hold), so a caller can report
    it and still measure the others. ``LabelError`` when the file cannot be read at all."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelError(f"{path}: cannot read: {exc}") from None
    rows: list[Row[ModelT]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            rows.append(Row(str(path), number, None, f"not JSON ({exc.msg}, column {exc.colno})"))
            continue
        try:
            rows.append(Row(str(path), number, model.model_validate(value)))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(map(str, first["loc"])) or "line"
            rows.append(Row(str(path), number, None, f"{where}: {first['msg']} (expected {shape})"))
    return rows


def share_text(agree: int, n: int) -> str:
    """``92.5% (37/40)``, or ``—`` for no sample: how both agreement commands print a share."""
    return f"{agree / n:.1%} ({agree}/{n})" if n else "—"


def make_judge(model: str, aliases: str | None, retries: int) -> Any:
    """The ``LLMJudge`` of an agreement command, on the run's model path (gateway, retries,
    offline ``pastbench/...``); ``ValueError`` naming what is missing."""
    # lazy: the model client and gateway, only when a model judges
    from ..models.client import RetryPolicy, missing_keys, use_alias_file
    from ..models.gateway import ModelService, ServiceClient

    use_alias_file(aliases)
    check_judge_model(model)
    missing = missing_keys(model)
    if missing:
        raise ValueError(
            f"judge model {model} needs {' and '.join(missing)} set in the environment "
            f"(or judge offline with --judge-model={REFERENCE_JUDGE})"
        )
    service = ModelService(retry=RetryPolicy(attempts=retries))
    return LLMJudge(ServiceClient(service, model))


SAMPLE_SHAPE = '{"rubric": str, "answer": str, "human": number, "id": optional str}'


def read_labels(path: Path, scale: float) -> list[Sample]:
    """Every sample of the file, validated; ``LabelError`` at the first bad line."""
    samples: list[Sample] = []
    for row in read_json_lines(path, LabelledSample, SAMPLE_SHAPE):
        if row.value is None:
            raise LabelError(f"{path}:{row.line}: {row.error}")
        if not 0.0 <= row.value.human <= scale:
            raise LabelError(
                f"{path}:{row.line}: human: {row.value.human} is outside 0..{scale:g} (see --scale)"
            )
        samples.append(Sample(row.line, row.value, str(path)))
    if not samples:
        raise LabelError(f"{path}: no samples (one JSON object per line)")
    return samples


def judge_samples(samples: list[Sample], judge: Any, scale: float) -> list[Judged]:
    """Grade each sample; a judge_error or a provider failure is kept as that sample's error."""
    results = []
    for sample in samples:
        try:
            verdict = judge.grade(sample.label.rubric, sample.label.answer)
        except (JudgeError, InfraError) as exc:
            kind = "judge_error" if isinstance(exc, JudgeError) else "infra_blocked"
            results.append(Judged(sample, None, f"{kind}: {exc}"))
            continue
        results.append(Judged(sample, verdict.score * scale))
    return results


@dataclass(frozen=True)
class Agreement:
    n: int
    agree: int
    mean_abs_diff: float | None
    confusion: dict[tuple[bool, bool], int]  # (human pass, judge pass) -> count
    failed: int

    @property
    def share(self) -> float | None:
        return self.agree / self.n if self.n else None


def agrees(diff: float, tolerance: float) -> bool:
    # A tiny epsilon: 0.7 − 0.2 must count as within 0.5 despite binary floating point.
    return diff <= tolerance + 1e-9


def agreement(results: list[Judged], tolerance: float, scale: float) -> Agreement:
    pairs = [(r.sample.label.human, r.judge) for r in results if r.judge is not None]
    diffs = [abs(judge - human) for human, judge in pairs]
    cut = PASS_AT * scale
    confusion = {(h, j): 0 for h in (True, False) for j in (True, False)}
    for human, judge in pairs:
        confusion[(human >= cut, judge >= cut)] += 1
    agree = sum(1 for d in diffs if agrees(d, tolerance))
    return Agreement(len(pairs), agree, mean(diffs), confusion, len(results) - len(pairs))


def render(results: list[Judged], result: Agreement, judge_name: str, tolerance: float, scale: float) -> str:
    rows = []
    for r in results:
        label = r.sample.label
        diff = None if r.judge is None else abs(r.judge - label.human)
        within = "—" if diff is None else ("yes" if agrees(diff, tolerance) else "no")
        rows.append(
            [
                r.sample.where,
                label.id or "",
                format_number(label.human),
                format_number(r.judge) if r.error is None else r.error[:60],
                format_number(diff),
                within,
            ]
        )
    samples = tabulate(
        rows, headers=("sample", "id", "human", "judge", "|diff|", "agrees"), disable_numparse=True
    )
    totals = tabulate(
        [
            ["judge", judge_name],
            ["scale", f"0..{scale:g}"],
            ["n judged", f"{result.n} of {result.n + result.failed}"],
            [f"agreement (|diff| ≤ {tolerance:g})", share_text(result.agree, result.n)],
            ["mean |judge − human|", format_number(result.mean_abs_diff)],
        ],
        disable_numparse=True,
        tablefmt="plain",
    )
    c = result.confusion
    confusion = tabulate(
        [
            ["human pass", c[(True, True)], c[(True, False)]],
            ["human fail", c[(False, True)], c[(False, False)]],
        ],
        headers=("", "judge pass", "judge fail"),
        disable_numparse=True,
    )
    return f"{samples}\n\n{totals}\n\npass = score ≥ {PASS_AT * scale:g}\n{confusion}"
