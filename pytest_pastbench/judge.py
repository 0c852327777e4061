"""The judge seam: what a rubric check needs from an LLM judge, and how it fails.

Only the interface lives here; implementations talk to a ``ModelClient`` elsewhere.
Keeping the protocol tiny lets tests (and users) pass any object with ``name`` and
``grade``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


class JudgeError(Exception):
    """The judge could not give a verdict (garbage reply, refusal, unparsable output).

    A rubric check whose judge raises this is left unscored and flagged, never
    silently failed.
    """


@runtime_checkable
class Judge(Protocol):
    """Grades one answer against one rubric; ``name`` is recorded in the results."""

    name: str

    def grade(self, rubric: str, answer: str) -> bool: ...
