"""A judge's agreement with human labels: the figures, the scale and line-numbered bad input (the
command's own tests are in tests/cli/test_judge_agreement.py)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.cli import main
from pytest_pastbench.errors import JudgeError, LabelError
from pytest_pastbench.judge.agreement import agreement, judge_samples, read_labels
from pytest_pastbench.judge.base import Verdict
from tests.docs_text import docs_text

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "judge-agreement" / "labels.jsonl"
RUBRIC = (
    "Routes Kestrel invoices to the OPS-BILLING queue"  # terms: routes, kestrel, invoices, ops-billing, queue
)


def write(path: Path, *lines: Any) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def sample(answer: str, human: float, **extra: Any) -> dict[str, Any]:
    return {"rubric": RUBRIC, "answer": answer, "human": human, **extra}


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    from contextlib import redirect_stderr, redirect_stdout

    with redirect_stdout(out), redirect_stderr(err):
        code = main(["judge-agreement", *args])
    return code, out.getvalue(), err.getvalue()


class ScriptedJudge:
    """Returns fixed scores in order; raises JudgeError for a None."""

    name = "scripted"

    def __init__(self, *scores: float | None) -> None:
        self.scores = list(scores)

    def grade(self, rubric: str, answer: str) -> Verdict:
        score = self.scores.pop(0)
        if score is None:
            raise JudgeError("no JSON")
        return Verdict(passed=score >= 0.5, score=score)


def test_agreement_share_mean_diff_and_confusion(tmp_path: Path) -> None:
    labels = write(
        tmp_path / "l.jsonl", sample("a", 1.0), sample("b", 0.0), sample("c", 1.0), sample("d", 0.2)
    )
    results = judge_samples(read_labels(labels, 1.0), ScriptedJudge(0.9, 0.7, 0.2, None), 1.0)
    result = agreement(results, tolerance=0.5, scale=1.0)
    # |diffs| 0.1, 0.7, 0.8; the fourth has no verdict and is left out of n.
    assert (result.n, result.agree, result.failed) == (3, 1, 1)
    assert result.mean_abs_diff == pytest.approx(1.6 / 3)
    assert result.confusion == {(True, True): 1, (True, False): 1, (False, True): 1, (False, False): 0}
    assert results[3].error == "judge_error: no JSON"


def test_the_judge_is_put_on_the_human_scale(tmp_path: Path) -> None:
    labels = write(tmp_path / "l.jsonl", sample("a", 4), sample("b", 1))
    results = judge_samples(read_labels(labels, 5.0), ScriptedJudge(0.7, 0.5), 5.0)
    assert [r.judge for r in results] == [3.5, 2.5]
    result = agreement(results, tolerance=0.5, scale=5.0)
    assert result.agree == 1 and result.confusion[(True, True)] == 1 and result.confusion[(False, True)] == 1


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([sample("a", 1.0), "{not json"], ":2: not JSON"),
        ([sample("a", 1.0), "", {"rubric": RUBRIC, "answer": "a"}], ":3: human: Field required"),
        ([{"rubric": RUBRIC, "answer": "a", "human": "high"}], ":1: human: Input should be a valid number"),
        ([sample("a", 1.0, humna=1)], ":1: humna: Extra inputs are not permitted"),
        ([sample("a", 1.5)], ":1: human: 1.5 is outside 0..1 (see --scale)"),
        ([[1, 2]], ":1: line: Input should be a valid dictionary"),
        ([""], ": no samples"),
    ],
)
def test_bad_input_is_exit_2_naming_the_line(tmp_path: Path, lines: list[Any], message: str) -> None:
    labels = write(tmp_path / "labels.jsonl", *lines)
    with pytest.raises(LabelError, match=re.escape(message)):
        read_labels(labels, 1.0)
    code, out, err = run_cli(str(labels))
    assert (code, out) == (2, "")
    assert err.startswith(f"pastbench judge-agreement: {labels}") and message in err


V3_LABELS = sorted((ROOT / "examples" / "judge-agreement").glob("labels-v3-*.jsonl"))


def test_the_v3_label_set_covers_every_capability_and_the_docs_quote_its_totals() -> None:
    """Issue 16: ≥ 60 labelled answers across the families, read as one set from several files."""
    assert {p.stem.removeprefix("labels-v3-") for p in V3_LABELS} == {
        "memory",
        "gathering",
        "procedural",
        "update",
    }
    samples = [s for p in V3_LABELS for s in read_labels(p, 1.0)]
    assert len(samples) >= 60
    assert {s.where.split(":")[0] for s in samples} == {p.name for p in V3_LABELS}
    code, out, _ = run_cli(*map(str, V3_LABELS))
    assert code == 0
    totals = out[out.index("judge                     pastbench/judge") :]
    assert (
        "$ pastbench judge-agreement examples/judge-agreement/labels-v3-*.jsonl\n…\n" + totals in docs_text()
    )
