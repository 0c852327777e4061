"""The grader measured against labelled answers: a row without a verdict is left out, not counted
wrong, and a run with a real model and no judge is told the grader's measured agreement."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.judge.grader_agreement import measure, read_rows
from pytest_pastbench.protocols.past.protocol import PROTOCOL as PAST
from tests.cli.test_grader_agreement import GOOD_ROWS, family_folder, write


@pytest.fixture
def families(tmp_path: Path) -> Path:
    return family_folder(tmp_path)


class NoVerdict:
    name = "broken"
    prompt_hash = "x"

    def grade(self, rubric: str, answer: str) -> bool:
        return True

    def read(self, claim: Any) -> Any:
        return None


def test_a_row_the_judge_gives_no_verdict_on_is_left_out_of_n_not_counted_wrong(
    tmp_path: Path, families: Path
) -> None:
    rows = read_rows([write(tmp_path / "labels.jsonl", *GOOD_ROWS)])
    result = measure(rows, PAST.answer_grader([families]), NoVerdict())
    assert result.overall.n == 0 and len(result.no_verdict) == len(GOOD_ROWS)
    assert result.no_verdict[0].detail.startswith("no verdict: judge returned no verdict")


# -- a run says what graded it -----------------------------------------------------------------------


@pytest.fixture
def shipped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, families: Path) -> Path:
    """A labelled set standing in for the shipped one (and the families it refers to)."""
    import pytest_pastbench.judge.grader_agreement as module

    path = write(tmp_path / "answers.jsonl", *GOOD_ROWS)
    monkeypatch.setattr(module, "labels_file", lambda: path)
    monkeypatch.setattr(module, "families_dir", lambda: families)
    module.shipped_agreement.cache_clear()
    yield path
    module.shipped_agreement.cache_clear()


def test_a_real_model_without_a_judge_is_told_the_grader_and_its_measured_agreement(shipped: Path) -> None:
    from pytest_pastbench.judge.grader_agreement import deterministic_grading_line

    line = deterministic_grading_line(["openai/gpt-4o"], None, PAST.answer_grader)
    assert line == (
        "pastbench: free text graded deterministically (no judge): it agrees with answers labelled by "
        "meaning on 83.3% (5/6) of the shipped set (pastbench grader-agreement); to grade it with a "
        "judge, add --pastbench-judge-model=MODEL"
    )
    assert (
        deterministic_grading_line(["pastbench/recall"], None, PAST.answer_grader) is None
    )  # offline: unchanged
    assert (
        deterministic_grading_line(["openai/gpt-4o"], {"model": "pastbench/judge"}, PAST.answer_grader)
        is None
    )
    assert deterministic_grading_line(["openai/gpt-4o"], "pastbench/judge", PAST.answer_grader) is None


def test_without_the_shipped_set_the_line_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import pytest_pastbench.judge.grader_agreement as module

    monkeypatch.setattr(module, "labels_file", lambda: tmp_path / "absent.jsonl")
    module.shipped_agreement.cache_clear()
    try:
        line = module.deterministic_grading_line(
            ["openai/gpt-4o", "pastbench/recall"], None, PAST.answer_grader
        )
    finally:
        module.shipped_agreement.cache_clear()
    assert line is not None and f"unknown here (no labelled set at {tmp_path / 'absent.jsonl'})" in line
    assert line.endswith("add --pastbench-judge-model=MODEL")


class Terminal:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.currentfspath = None

    def section(self, title: str) -> None:
        self.lines.append(f"== {title}")

    def write_line(self, line: str, **markup: Any) -> None:
        self.lines.append(line)


def test_the_terminal_summary_carries_the_line_for_a_real_model_only(shipped: Path) -> None:
    from pytest_pastbench.protocols.past.metrics import summarize
    from pytest_pastbench.protocols.past.report import render
    from tests.protocols.past.test_metrics import RUN, rec

    records = [rec("memory.recall", "ep01", "on", 0.6), rec("memory.recall", "ep01", "off", 0.1)]
    for models, expected in ((["openai/gpt-4o"], 1), (["pastbench/recall"], 0)):
        terminal = Terminal()
        render(terminal, summarize(records, {**RUN, "models": models}, 42), records)
        assert sum("free text graded deterministically" in line for line in terminal.lines) == expected


def test_the_run_header_says_it_for_a_real_model_and_not_for_an_offline_one(
    pytester: pytest.Pytester,
) -> None:
    from tests.family_samples import GOOD_MEMORY

    (pytester.path / "families" / "memory").mkdir(parents=True)
    (pytester.path / "families" / "memory" / "tiny_prefs.yaml").write_text(GOOD_MEMORY)
    # A real (non-pastbench/) model on a local server: collected only, so nothing is called.
    aliases = pytester.path / "aliases.yaml"
    aliases.write_text('aliases:\n  real-local: {model: openai/x, api_base: "http://127.0.0.1:9/v1"}\n')
    real = pytester.runpytest_subprocess(
        "families", "--collect-only", "--pastbench-model=real-local", f"--pastbench-model-aliases={aliases}"
    )
    real.stdout.fnmatch_lines(
        ["pastbench: free text graded deterministically (no judge): *--pastbench-judge-model=MODEL"]
    )
    offline = pytester.runpytest_subprocess(
        "families", "--collect-only", "--pastbench-model=pastbench/recall"
    )
    assert "free text graded deterministically" not in offline.stdout.str()
    judged = pytester.runpytest_subprocess(
        "families",
        "--collect-only",
        "--pastbench-model=real-local",
        f"--pastbench-model-aliases={aliases}",
        "--pastbench-judge-model=pastbench/judge",
    )
    assert "free text graded deterministically" not in judged.stdout.str()
