"""``pastbench grader-agreement``: agreement per class and overall on labelled answers, the
judge path, exit codes, and bad rows named by file:line while the others are still measured."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.cli import main
from pytest_pastbench.judge.grader_agreement import shipped_agreement
from pytest_pastbench.protocols.past.protocol import PROTOCOL as PAST
from pytest_pastbench.resources import families_dir, labels_file

# A family of this file's own, so the rows do not depend on the built-in data.
FAMILY = """\
format: pastbench/v1
id: docks
capability: update
version: "1"
episodes:
  - id: ep01
    sessions:
      - stage: learn
        user: "Deliveries for Brackwater now go to Dock 4B; Dock 11 is shut."
      - stage: eval_near
        user: "Where does the courier unload for Brackwater?"
        checks:
          - {type: value, value: "Dock 4B", superseded: ["Dock 11"], decoys: ["Dock 7"]}
      - stage: eval_far
        user: "Log the delivery in a ticket."
        checks:
          - {type: world_state, service: tickets, match: {title: delivery}}
"""


def row(answer: str, label: str, cls: str, **extra: Any) -> dict[str, Any]:
    return {
        "family": "update.docks",
        "episode": "ep01",
        "session": 1,
        "answer": answer,
        "label": label,
        "class": cls,
        "reason": "by meaning",
        **extra,
    }


GOOD_ROWS = [
    row("Unload at Dock 4B.", "correct", "terse_correct"),
    row("Dock 4B, since Dock 11 was shut.", "correct", "correct_old_marked_old"),
    row("Dock 7.", "wrong", "decoy_asserted"),
    row("Dock 11.", "wrong", "stale_asserted"),
    row("I could not find it.", "wrong", "refusal"),
    row("Use Dock 11.", "correct", "terse_correct"),  # a mislabelled row: the grader must disagree
]


def write(path: Path, *lines: Any) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def family_folder(root: Path) -> Path:
    """A families folder under ``root`` holding only ``FAMILY``."""
    folder = root / "families" / "update"
    folder.mkdir(parents=True)
    (folder / "docks.yaml").write_text(FAMILY)
    return root / "families"


@pytest.fixture
def families(tmp_path: Path) -> Path:
    return family_folder(tmp_path)


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["grader-agreement", *args])
    return code, out.getvalue(), err.getvalue()


def test_agreement_per_class_and_overall(tmp_path: Path, families: Path) -> None:
    labels = write(tmp_path / "labels.jsonl", *GOOD_ROWS)
    code, out, err = run_cli(str(labels), "--families", str(families))
    assert (code, err) == (0, "")
    assert out.startswith("grader: deterministic (no judge)\n")
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines()[2:] if line and line[0] != "-"}
    assert lines["terse_correct"] == ["2", "50.0%", "(1/2)", "0"]
    assert lines["decoy_asserted"] == ["1", "100.0%", "(1/1)", "0"]
    assert lines["overall"] == ["6", "83.3%", "(5/6)", "0"]


def test_json_output_and_min_agreement(tmp_path: Path, families: Path) -> None:
    labels = write(tmp_path / "labels.jsonl", *GOOD_ROWS)
    code, out, err = run_cli(str(labels), "--families", str(families), "--json", "--min-agreement", "0.9")
    assert code == 1 and "agreement 83.3% (5/6) is below --min-agreement 0.9" in err
    got = json.loads(out)
    assert got["overall"] == {"n": 6, "agree": 5, "agreement": 5 / 6, "undecided": 0}
    assert got["classes"]["refusal"]["agreement"] == 1.0
    assert [d["row"] for d in got["disagreements"]] == [f"{labels}:6"]
    assert got["errors"] == [] and got["grader"] == "deterministic (no judge)"
    assert run_cli(str(labels), "--families", str(families), "--min-agreement", "0.8")[0] == 0


def test_bad_rows_are_one_line_each_and_the_others_are_still_measured(tmp_path: Path, families: Path) -> None:
    labels = write(
        tmp_path / "labels.jsonl",
        GOOD_ROWS[0],
        "{not json",
        {k: v for k, v in GOOD_ROWS[2].items() if k != "label"},
        row("Dock 4B", "correct", "terse_correct", family="update.nope"),
        row("Dock 4B", "correct", "terse_correct", episode="ep99"),
        row("Dock 4B", "correct", "terse_correct", session=7),
        row("Dock 4B", "correct", "terse_correct", session=0),
        row("Dock 4B", "correct", "terse_correct", session=2),
        row("Dock 4B", "maybe", "terse_correct"),
        "",
        GOOD_ROWS[2],
    )
    code, out, err = run_cli(str(labels), "--families", str(families))
    assert code == 2
    errors = err.splitlines()
    assert [e.split(": ")[1] for e in errors] == [f"{labels}:{n}" for n in (2, 3, 4, 5, 6, 7, 8, 9)]
    assert "not JSON" in errors[0] and "label: Field required" in errors[1]
    assert "unknown family 'update.nope'" in errors[2]
    assert "has no episode 'ep99' (episodes: ep01)" in errors[3]
    assert "has no session 7 (sessions 0..2)" in errors[4]
    assert "is a learn session, not an eval session" in errors[5]
    assert "has no text check" in errors[6]
    assert "label: Input should be 'correct' or 'wrong'" in errors[7]
    [overall] = [line.split() for line in out.splitlines() if line.startswith("overall")]
    assert overall == ["overall", "2", "100.0%", "(2/2)", "0"]  # the two good rows, still measured


def test_the_offline_judge_grades_the_rows_through_the_run_s_model_path(
    tmp_path: Path, families: Path
) -> None:
    labels = write(tmp_path / "labels.jsonl", *GOOD_ROWS)
    code, out, err = run_cli(
        str(labels), "--families", str(families), "--judge-model=pastbench/judge", "--json"
    )
    assert code == 0, err
    got = json.loads(out)
    assert got["grader"].startswith("judge pastbench/judge (prompt ")
    deterministic = json.loads(run_cli(str(labels), "--families", str(families), "--json")[1])
    # Offline the judge reads each claim as the deterministic grader does.
    assert got["overall"] == deterministic["overall"] and got["classes"] == deterministic["classes"]


def test_default_file_is_the_shipped_set_found_beside_the_families() -> None:
    assert labels_file() == families_dir() / "labels" / "answers.jsonl"
    measured = shipped_agreement(PAST.answer_grader)
    if labels_file().is_file():
        assert measured is not None and measured.overall.n > 0
    else:
        assert measured is None
        code, _, err = run_cli()
        assert code == 2 and "no labelled answer set at" in err


def test_an_unreadable_file_is_exit_2(tmp_path: Path) -> None:
    code, _, err = run_cli(str(tmp_path / "missing.jsonl"))
    assert code == 2 and "cannot read" in err


def test_ci_runs_the_command_on_the_shipped_set_after_the_docs_build_and_fails_with_it() -> None:
    script = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text().splitlines()
    [mkdocs] = [i for i, line in enumerate(script) if line.startswith("NO_MKDOCS_2_WARNING=1 mkdocs build")]
    [agreement] = [i for i, line in enumerate(script) if line.startswith("pastbench grader-agreement")]
    assert agreement > mkdocs and "--min-agreement" in script[agreement]
    assert "|| {" in script[agreement] and "exit 1" in script[agreement]  # a failure stops CI
    assert any(line.startswith("set -euo pipefail") for line in script)
