"""What an answer claims about one value: the contract's ``Reading``, ``ClaimVerdict`` and ``read_claim``.

Placeholder of branch ``agreement``: the types are the shared contract's, and ``read_claim``
wraps today's matching (``matching.py``) so the judge path and the grader-agreement command run.
The ``grader`` branch owns the real reading (denials, reversals, contrasts, hedges); at merge its
module replaces this one, with the same names and signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from pytest_pastbench.protocols.past.matching import asserts_value, mentions


class Reading(StrEnum):
    ASSERTS_EXPECTED = "asserts_expected"
    ASSERTS_OTHER = "asserts_other"
    HEDGES = "hedges"
    DENIES = "denies"
    NO_ANSWER = "no_answer"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class ClaimVerdict:
    reading: Reading
    detail: str
    value: str | None = None


def read_claim(
    answer: str,
    expected: Sequence[str],
    stale: Sequence[str] = (),
    decoys: Sequence[str] = (),
    question: str = "",
) -> ClaimVerdict:
    """The answer's claim about the value ``expected`` names (its accepted forms)."""
    del question  # the placeholder reads the answer alone
    forms = list(expected)
    wrong = [v for v in dict.fromkeys([*decoys, *stale]) if v not in forms]
    asserted = [v for v in wrong if any(not m.marked_old for m in mentions(answer, v))]
    if asserted:
        return ClaimVerdict(Reading.ASSERTS_OTHER, f"asserts {asserted[0]!r}", asserted[0])
    # As today's value check: any mention of an accepted form is the value (no denial reading).
    if any(asserts_value(answer, form) for form in forms):
        return ClaimVerdict(Reading.ASSERTS_EXPECTED, "", forms[0])
    return ClaimVerdict(Reading.NO_ANSWER, f"missing {forms[0]!r}" if forms else "no expected value")
