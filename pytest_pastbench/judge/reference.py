"""``pastbench/judge``: a deterministic, offline reference judge (lexical overlap, not understanding).

It reads what a judge model reads, the judge prompt, takes the rubric and the answer from its
``<rubric>`` / ``<answer>`` blocks, and scores the share of the rubric's content terms found in
the answer. A term is found when an answer word shares its first ``STEM`` letters (a crude stem:
"rollback" finds "rollbacks"). Words that describe the grading rather than the content
("mentions", "answer", ...) are not terms. It is an honest baseline so rubric checks can be
scored without keys; it cannot tell a right answer from one that merely uses the right words.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.text import content_words
from ..errors import NotAJudgePrompt

NAME = "judge"
STEM = 5
# Grading vocabulary of rubrics: it says what to look for, it is not what to look for.
RUBRIC_WORDS = frozenset(
    """
    answer answers response reply mentions mention mentioned states state stated says say
    explains explain explained includes include including contains contain gives names name
    named lists list asks ask correct correctly clearly explicitly user assistant agent must
    least whether either both any each rubric
    """.split()  # noqa: SIM905 (a word list reads better as text)
)
_BLOCK = re.compile(r"<rubric>\n?(?P<rubric>.*?)\n?</rubric>\s*<answer>\n?(?P<answer>.*)\n?</answer>", re.S)


def _stem(word: str) -> str:
    return word[:STEM]


def grade(rubric: str, answer: str) -> tuple[float, str]:
    """(score in [0, 1], one-sentence reason)."""
    terms = [w for w in content_words(rubric) if w not in RUBRIC_WORDS]
    if not terms:
        return 0.0, "the rubric names no content terms to look for"
    found_stems = {_stem(w) for w in content_words(answer)}
    missing = [t for t in terms if _stem(t) not in found_stems]
    score = round((len(terms) - len(missing)) / len(terms), 4)
    reason = f"{len(terms) - len(missing)} of {len(terms)} rubric terms found"
    return score, reason + (f"; missing: {', '.join(missing)}" if missing else "")


def reply(messages: list[dict[str, Any]]) -> str:
    """The JSON verdict for the first user message of a judge conversation."""
    first_user = next((m for m in messages if m.get("role") == "user"), None)
    match = _BLOCK.search(str((first_user or {}).get("content") or ""))
    if match is None:
        raise NotAJudgePrompt("pastbench/judge only grades judge prompts (<rubric> and <answer> blocks)")
    score, reason = grade(match["rubric"], match["answer"])
    return json.dumps({"score": score, "reason": reason})
