"""``pastbench/judge``: a deterministic, offline reference judge (lexical overlap, not understanding).

It reads what a judge model reads, the judge prompt, takes the rubric and the answer from its
``<rubric>`` / ``<answer>`` blocks, and scores the share of the rubric's content terms found in
the answer. A term is found when an answer word shares its first ``STEM`` letters (a crude stem:
"rollback" finds "rollbacks"). Words that describe the grading rather than the content
("mentions", "answer", ...) are not terms. It is an honest baseline so rubric checks can be
scored without keys; it cannot tell a right answer from one that merely uses the right words.

A claim prompt (``prompts/judge_claim.md``: question, rubric, facts, answer) it answers with the
deterministic claim reading of each fact the prompt gives (the ``ClaimReader`` it is handed: a
protocol's, ``BenchProtocol.claim_reader``), so offline the judge path grades text as the
deterministic grader does; a rubric without facts gets the lexical score above (met:
asserts_expected, else no_answer).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.text import content_words
from ..errors import NotAJudgePrompt
from .base import ClaimReader, ClaimVerdict, Reading, all_facts

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
_CLAIM = re.compile(
    r"<question>\n(?P<question>.*?)\n</question>\s*<rubric>\n(?P<rubric>.*?)\n</rubric>\s*"
    r"<facts>\n(?P<facts>.*?)\n</facts>\s*<answer>\n(?P<answer>.*)\n</answer>",
    re.S,
)
PASS_AT = 0.5  # as llm.PASS_AT: a rubric score at or above this meets the rubric
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


def _facts(block: str) -> list[dict[str, Any]]:
    if block.strip() == "none":
        return []
    facts = [json.loads(line) for line in block.splitlines() if line.strip()]
    if not all(isinstance(f, dict) and isinstance(f.get("expected"), list) for f in facts):
        raise NotAJudgePrompt("pastbench/judge: a fact is not a JSON object with an 'expected' list")
    return facts


def read(
    question: str, rubric: str, facts: list[dict[str, Any]], answer: str, read_claim: ClaimReader | None
) -> ClaimVerdict:
    """The claim verdict from what a claim prompt gives: ``read_claim``'s reading of each fact."""
    if not facts:
        score, reason = grade(rubric, answer) if rubric != "none" else (0.0, "no fact and no rubric")
        return ClaimVerdict(Reading.ASSERTS_EXPECTED if score >= PASS_AT else Reading.NO_ANSWER, reason)
    if read_claim is None:
        raise NotAJudgePrompt("pastbench/judge: no registered protocol reads claims, so it reads no facts")
    verdicts = [
        read_claim(
            answer,
            [str(v) for v in f["expected"]],
            [str(v) for v in f.get("superseded") or []],
            [str(v) for v in f.get("decoys") or []],
            question,
        )
        for f in facts
    ]
    verdict = all_facts(verdicts)
    assert verdict is not None
    if verdict.reading is Reading.UNDECIDED:
        # A judge must commit; the grader could not: two claims stand, which earns no credit, as
        # a hedge does.
        return ClaimVerdict(Reading.HEDGES, f"undecided by the deterministic reading: {verdict.detail}")
    return verdict


def reply(messages: list[dict[str, Any]], read_claim: ClaimReader | None = None) -> str:
    """The JSON verdict for the first user message of a judge conversation; a claim prompt's
    facts are read with ``read_claim``."""
    first_user = next((m for m in messages if m.get("role") == "user"), None)
    content = str((first_user or {}).get("content") or "")
    claim = _CLAIM.search(content)
    if claim is not None:
        try:
            facts = _facts(claim["facts"])
        except json.JSONDecodeError as exc:
            raise NotAJudgePrompt(f"pastbench/judge: a fact line is not JSON ({exc.msg})") from None
        verdict = read(claim["question"], claim["rubric"], facts, claim["answer"], read_claim)
        reason = verdict.detail or f"{verdict.reading.value.replace('_', ' ')}"
        return json.dumps({"verdict": verdict.reading.value, "reason": reason})
    match = _BLOCK.search(content)
    if match is None:
        raise NotAJudgePrompt(
            "pastbench/judge only grades judge prompts (<rubric> and <answer> blocks, or a claim prompt)"
        )
    score, reason = grade(match["rubric"], match["answer"])
    return json.dumps({"score": score, "reason": reason})
