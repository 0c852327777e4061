"""PAST's grader on answers labelled by meaning: a row names an eval session with text checks, its
answer is graded by those checks alone, and a row that names nothing usable says why."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml

from pytest_pastbench.protocols.past.labelled_answers import Families, PastAnswerGrader
from tests.family_samples import GOOD_UPDATE

# tests/family_samples.py's update family, with an eval session that only a world check grades.
FAMILY = yaml.safe_load(GOOD_UPDATE)
FAMILY["episodes"][0]["sessions"].append(
    {"stage": "eval_far", "user": "Log it in a ticket.",
     "checks": [{"type": "world_state", "service": "tickets", "match": {"title": "invoices"}}]}
)  # fmt: skip


def label(
    answer: str = "", *, family: str = "update.tiny_corrections", episode: str = "ep01", session: int = 2
) -> Any:
    """A row as the grader reads it (the label itself and its class are the tally's, not the grader's)."""
    return SimpleNamespace(family=family, episode=episode, session=session, answer=answer)


def grader(tmp_path: Path, folder: str = "update") -> PastAnswerGrader:
    (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    (tmp_path / folder / "tiny_corrections.yaml").write_text(yaml.safe_dump(FAMILY))
    return PastAnswerGrader([tmp_path])


def test_an_answer_is_graded_by_its_sessions_text_checks(tmp_path: Path) -> None:
    past = grader(tmp_path)
    right = past.grade(label("The 7th business day now, not the 5th."), None)
    wrong = past.grade(label("On the 5th business day, as before."), None)
    assert (right.predicted, wrong.predicted) == (True, False)
    # The forbids guard is a safety check, not credit: only the contains check grades the answer.
    assert wrong.detail.startswith("contains: ") and "forbids" not in wrong.detail


def test_a_row_naming_nothing_usable_says_why(tmp_path: Path) -> None:
    past = grader(tmp_path)
    assert past.grade(label(family="update.ships"), None) == "unknown family 'update.ships'"
    assert (
        past.grade(label(episode="ep09"), None)
        == "update.tiny_corrections has no episode 'ep09' (episodes: ep01)"
    )
    assert (
        past.grade(label(session=5), None) == "update.tiny_corrections ep01 has no session 5 (sessions 0..3)"
    )
    assert past.grade(label(session=0), None) == (
        "update.tiny_corrections ep01 session 0 is a learn session, not an eval session"
    )
    assert past.grade(label(session=3), None) == (
        "update.tiny_corrections ep01 session 3 has no text check to grade the answer by"
    )


def test_a_family_outside_the_built_in_layout_is_still_found(tmp_path: Path) -> None:
    past = grader(tmp_path, folder="mine/elsewhere")  # not <capability>/<id>.yaml
    assert past.grade(label("the 7th business day"), None).predicted is True


def test_other_protocols_files_are_skipped_and_a_broken_file_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "streams").mkdir()
    (tmp_path / "streams" / "retail.yaml").write_text("format: pastbench/stream-v1\nid: retail\n")
    (tmp_path / "update").mkdir()
    (tmp_path / "update" / "broken.yaml").write_text("format: pastbench/v1\nid: broken\n")
    families = Families([tmp_path])
    assert families.get("update.tiny_corrections") is None
    assert len(families.problems) == 1 and "broken.yaml" in families.problems[0]
