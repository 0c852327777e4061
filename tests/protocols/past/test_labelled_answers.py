"""PAST's grader on answers labelled by meaning: a row names an eval session with text checks, its
answer is graded by those checks alone, and a row that names nothing usable says why."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pytest_pastbench.protocols.past.labelled_answers import Families, PastAnswerGrader

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
          - {type: value, value: "Dock 4B", superseded: ["Dock 11"]}
      - stage: eval_far
        user: "Log the delivery in a ticket."
        checks:
          - {type: world_state, service: tickets, match: {title: delivery}}
"""


def label(answer: str = "", *, family: str = "update.docks", episode: str = "ep01", session: int = 1) -> Any:
    """A row as the grader reads it (the label itself and its class are the tally's, not the grader's)."""
    return SimpleNamespace(family=family, episode=episode, session=session, answer=answer)


def grader(tmp_path: Path, folder: str = "update") -> PastAnswerGrader:
    (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    (tmp_path / folder / "docks.yaml").write_text(FAMILY)
    return PastAnswerGrader([tmp_path])


def test_an_answer_is_graded_by_its_sessions_text_checks(tmp_path: Path) -> None:
    past = grader(tmp_path)
    right = past.grade(label("The courier unloads at Dock 4B."), None)
    wrong = past.grade(label("Dock 11, as always."), None)
    assert (right.predicted, wrong.predicted) == (True, False)
    assert wrong.detail.startswith("value: ")


def test_a_row_naming_nothing_usable_says_why(tmp_path: Path) -> None:
    past = grader(tmp_path)
    assert past.grade(label(family="update.ships"), None) == "unknown family 'update.ships'"
    assert past.grade(label(episode="ep09"), None) == "update.docks has no episode 'ep09' (episodes: ep01)"
    assert past.grade(label(session=5), None) == "update.docks ep01 has no session 5 (sessions 0..2)"
    assert past.grade(label(session=0), None) == (
        "update.docks ep01 session 0 is a learn session, not an eval session"
    )
    assert past.grade(label(session=2), None) == (
        "update.docks ep01 session 2 has no text check to grade the answer by"
    )


def test_a_family_outside_the_built_in_layout_is_still_found(tmp_path: Path) -> None:
    past = grader(tmp_path, folder="mine/elsewhere")  # not <capability>/<id>.yaml
    assert past.grade(label("Dock 4B"), None).predicted is True


def test_other_protocols_files_are_skipped_and_a_broken_file_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "streams").mkdir()
    (tmp_path / "streams" / "retail.yaml").write_text("format: pastbench/stream-v1\nid: retail\n")
    (tmp_path / "update").mkdir()
    (tmp_path / "update" / "broken.yaml").write_text("format: pastbench/v1\nid: broken\n")
    families = Families([tmp_path])
    assert families.get("update.docks") is None
    assert len(families.problems) == 1 and "broken.yaml" in families.problems[0]
