"""How PAST's grader reads answers labelled by meaning (``pastbench grader-agreement``, whose rows
and tallies are judge/grader_agreement.py, its output cli/grader_agreement.py): each answer is
graded by its session's text checks alone (value, contains, any_of of them, rubrics through their
fallbacks; tool and world checks are not about the text), and predicted correct when every one of
them passes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_pastbench.errors import FamilyFileError

from ..base import GradedAnswer
from .schema import EVAL_STAGES, Family, Session, is_guard


class PastAnswerGrader:
    """``BenchProtocol.answer_grader`` of PAST: the families of some roots, read when a row names them."""

    def __init__(self, roots: list[Path]) -> None:
        self.families = Families(roots)

    @property
    def problems(self) -> list[str]:
        return self.families.problems

    def grade(self, label: Any, judge: Any) -> GradedAnswer | str:
        found = find_session(self.families, label)
        if isinstance(found, str):
            return found
        _, episode, session = found
        return grade_answer(label, episode, session, judge)


class Families:
    """The PAST families of some roots, by qualified id, loaded only when a row names them.

    A family file ``<root>/<capability>/<id>.yaml`` is found by its name first (the layout of the
    built-in families); any other layout is found by loading the remaining files once.
    """

    def __init__(self, roots: list[Path]) -> None:
        files = sorted({p for root in roots for p in ([root] if root.is_file() else root.rglob("*.yaml"))})
        self._by_name = {f"{p.parent.name}.{p.stem}": p for p in files}
        self._unread = list(files)
        self._loaded: dict[str, Family] = {}
        self.problems: list[str] = []

    def _load(self, path: Path) -> Family | None:
        # lazy: family files, checks and records, only when answers are graded
        from pytest_pastbench.core.family_files import read_family_mapping, validate_family

        if path in self._unread:
            self._unread.remove(path)
        try:
            data, _ = read_family_mapping(path)
            if data.get("format") != "pastbench/v1":  # another protocol's family
                return None
            family = validate_family(path, data, Family)
        except FamilyFileError as exc:
            self.problems.append(str(exc))
            return None
        self._loaded[family.qualified_id] = family
        return family

    def get(self, qualified_id: str) -> Family | None:
        if qualified_id in self._loaded:
            return self._loaded[qualified_id]
        path = self._by_name.get(qualified_id)
        if path is not None and path in self._unread:
            family = self._load(path)
            if family is not None and family.qualified_id == qualified_id:
                return family
        while qualified_id not in self._loaded and self._unread:
            self._load(self._unread[0])
        return self._loaded.get(qualified_id)


def text_checks(session: Session) -> list[Any]:
    """The session's credit checks that grade the answer's text (``checks.is_text_check``)."""
    # lazy: family files, checks and records, only when answers are graded
    from ..shared.checks import is_text_check

    return [c for c in session.checks if is_text_check(c) and not is_guard(c)]


def find_session(families: Families, label: Any) -> tuple[Family, Any, Session] | str:
    """The row's family, episode and session, or why the row names none usable."""
    family = families.get(label.family)
    if family is None:
        return f"unknown family {label.family!r}"
    episode = next((e for e in family.episodes if e.id == label.episode), None)
    if episode is None:
        known = ", ".join(e.id for e in family.episodes)
        return f"{label.family} has no episode {label.episode!r} (episodes: {known})"
    where = f"{label.family} {label.episode}"
    if label.session >= len(episode.sessions):
        return f"{where} has no session {label.session} (sessions 0..{len(episode.sessions) - 1})"
    session = episode.sessions[label.session]
    if session.stage not in EVAL_STAGES:
        return f"{where} session {label.session} is a {session.stage} session, not an eval session"
    if not text_checks(session):
        return f"{where} session {label.session} has no text check to grade the answer by"
    return family, episode, session


def grade_answer(label: Any, episode: Any, session: Session, judge: Any) -> GradedAnswer:
    """Predicted correct when every text check of the session passes on the answer alone."""
    # lazy: family files, checks and records, only when answers are graded
    from pytest_pastbench.core.records import SessionRecord

    # lazy: family files, checks and records, only when answers are graded
    from ..shared.checks import evaluate_check

    run = SessionRecord(
        index=label.session, stage=session.stage, now=session.now or episode.world.now, answer=label.answer
    )
    question = session.user[-1]
    results = [evaluate_check(c, run, judge, question=question) for c in text_checks(session)]
    failed = [f"{r.type}: {r.detail}" for r in results if r.passed is False]
    # Undecided by the deterministic grader: its own flag, or its verdict beside a judge's.
    undecided = any(r.undecided or r.deterministic_verdict == "undecided" for r in results)
    if failed:
        return GradedAnswer(False, undecided, "; ".join(failed))
    errors = [r.judge_error for r in results if r.passed is None]
    if errors:
        return GradedAnswer(None, undecided, f"no verdict: {errors[0]}")
    return GradedAnswer(True, undecided)
