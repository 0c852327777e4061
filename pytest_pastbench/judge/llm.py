"""The LLM judge of rubric checks: a ``ModelClient`` asked for strict JSON at temperature 0.

The prompt lives in ``prompts/judge_rubric.md``; its short SHA-256 is recorded with every result
(``judge_prompt_hash``) and in the summary (``run.judge``), so a changed prompt is visible.

Outcomes of one grading:
- a JSON reply ``{"score": 0..1, "reason": "..."}`` -> a ``Verdict`` (pass when score >= 0.5);
- a malformed reply -> asked again, with the problem named, up to ``JUDGE_ATTEMPTS`` replies in
  all; then ``JudgeError``, which the rubric check records as ``judge_error`` (left out of c_e);
- the provider failing after its own retries (``InfraError``) -> raised on, so the item is an
  error and ``infra_blocked``, exactly like an agent-model outage. Why not ``judge_error``: an
  outage says nothing about the answer; scoring the item without its rubric checks would shift
  c_e for whichever items the outage happened to hit, while a blocked item is left out of every
  mean and reruns with ``--pastbench-resume``.

Text checks (``read``) use ``prompts/judge_claim.md`` the same way: the reply is
``{"verdict": <one of the five readings>, "reason": "..."}``, asked again when malformed, then
``JudgeError``. The recorded prompt hash covers both prompt files.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import InfraError, JudgeError
from ..models.client import OFFLINE_PREFIX, ModelClient, resolve_model
from ..resources import prompt_file
from .base import JUDGE_READINGS, Claim, ClaimVerdict, Reading, Verdict

PROMPT_FILE = prompt_file("judge_rubric.md")
CLAIM_PROMPT_FILE = prompt_file("judge_claim.md")
REFERENCE_JUDGE = "pastbench/judge"
PASS_AT = 0.5  # a score at or above this passes the rubric check
JUDGE_ATTEMPTS = 3  # replies asked for before a malformed answer becomes judge_error
JUDGE_MAX_TOKENS = 8192  # as the agent's output budget: reasoning models spend tokens first
_SECTION = re.compile(r"^<!-- (system|user|retry) -->\n", re.M)
_READING_NAMES = ", ".join(r.value for r in JUDGE_READINGS)
_FENCE = re.compile(r"\A```(?:json)?\s*\n(.*)\n```\Z", re.S)


class JudgeReply(BaseModel):
    """The one reply shape accepted: no extra keys, a real number, a non-empty reason."""

    model_config = ConfigDict(extra="forbid", strict=True)

    score: float = Field(ge=0.0, le=1.0)
    reason: str = Field(min_length=1)


class ClaimReply(BaseModel):
    """The reply to a claim prompt: one of the five verdicts and a non-empty reason."""

    model_config = ConfigDict(extra="forbid", strict=True)

    verdict: str
    reason: str = Field(min_length=1)


@dataclass(frozen=True)
class JudgePrompt:
    system: str
    user: Template
    retry: Template
    hash: str

    def messages(self, rubric: str, answer: str) -> list[dict[str, Any]]:
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user.substitute(rubric=rubric, answer=answer)},
        ]

    def claim_messages(self, claim: Claim) -> list[dict[str, Any]]:
        """The claim prompt's conversation: question, rubric ("none" for a value check), one JSON
        object a fact, the answer."""
        facts = "\n".join(
            json.dumps(
                {"expected": list(f.expected), "superseded": list(f.superseded), "decoys": list(f.decoys)},
                ensure_ascii=False,
            )
            for f in claim.facts
        )
        user = self.user.substitute(
            question=claim.question.strip() or "(not given)",
            rubric=claim.rubric.strip() or "none",
            facts=facts or "none",
            answer=claim.answer,
        )
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]


@cache
def load_prompt(path: Path = PROMPT_FILE) -> JudgePrompt:
    """The prompt file's three sections, and the first 12 hex digits of its SHA-256."""
    raw = path.read_bytes()
    parts = _SECTION.split(raw.decode())
    sections = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    return JudgePrompt(
        system=sections["system"],
        user=Template(sections["user"]),
        retry=Template(sections["retry"]),
        hash=hashlib.sha256(raw).hexdigest()[:12],
    )


def prompt_hash(rubric: JudgePrompt | None = None, claim: JudgePrompt | None = None) -> str:
    """The judge's prompt hash as recorded: of both prompts (the rubric's and the claim's, the
    repo files by default), so an edit of either shows."""
    rubric, claim = rubric or load_prompt(), claim or load_prompt(CLAIM_PROMPT_FILE)
    return hashlib.sha256(f"{rubric.hash}:{claim.hash}".encode()).hexdigest()[:12]


def parse_reply(content: str | None) -> JudgeReply:
    """Strict: the whole reply is one JSON object (optionally in one ```json fence), else JudgeError."""
    return _parse(content, JudgeReply)


def parse_claim_reply(content: str | None) -> ClaimVerdict:
    """A claim reply as a ``ClaimVerdict``; JudgeError for anything but one of the five verdicts."""
    reply = _parse(content, ClaimReply)
    try:
        reading = Reading(reply.verdict.strip().lower())
    except ValueError:
        reading = None
    if reading not in JUDGE_READINGS:
        raise JudgeError(f"verdict {reply.verdict!r} is not one of {_READING_NAMES}")
    return ClaimVerdict(reading, reply.reason)


def _parse(content: str | None, model: type[BaseModel]) -> Any:
    text = (content or "").strip()
    if not text:
        raise JudgeError("empty reply")
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JudgeError(f"not a JSON object ({exc.msg} at char {exc.pos}): {_clip(text)}") from None
    if not isinstance(value, dict):
        raise JudgeError(f"not a JSON object: {_clip(text)}")
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'reply'}: {e['msg']}" for e in exc.errors())
        raise JudgeError(f"wrong JSON fields ({problems}): {_clip(text)}") from None


def _clip(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")


class LLMJudge:
    """A ``Judge`` backed by a model: the run's ``ModelClient`` (gateway, cache, limits, ledger)."""

    def __init__(
        self,
        client: ModelClient,
        prompt: JudgePrompt | None = None,
        attempts: int = JUDGE_ATTEMPTS,
        claim_prompt: JudgePrompt | None = None,
    ):
        self.client = client
        self.name = client.model
        self.prompt = prompt or load_prompt()
        self.claim_prompt = claim_prompt or load_prompt(CLAIM_PROMPT_FILE)
        self.prompt_hash = prompt_hash(self.prompt, self.claim_prompt)
        self.attempts = max(1, attempts)

    def grade(self, rubric: str, answer: str) -> Verdict:
        parsed = self._ask(self.prompt, self.prompt.messages(rubric, answer), parse_reply)
        return Verdict(passed=parsed.score >= PASS_AT, score=parsed.score, reason=parsed.reason)

    def read(self, claim: Claim) -> ClaimVerdict:
        """What the answer claims: one of the five verdicts, with the judge's reason."""
        return self._ask(self.claim_prompt, self.claim_prompt.claim_messages(claim), parse_claim_reply)

    def _ask(self, prompt: JudgePrompt, messages: list[dict[str, Any]], parse: Any) -> Any:
        problem = ""
        for _ in range(self.attempts):
            try:
                reply = self.client.complete(messages, None, temperature=0.0, max_tokens=JUDGE_MAX_TOKENS)
            except InfraError as exc:
                raise InfraError(f"judge {exc}", retries=exc.retries) from exc
            try:
                return parse(reply.content)
            except JudgeError as exc:
                problem = str(exc)
                # Ask again with the problem named: a changed request (so neither temperature 0
                # nor the response cache can hand back the same garbage) that may fix it.
                messages = [
                    *messages,
                    {"role": "assistant", "content": reply.content or ""},
                    {"role": "user", "content": prompt.retry.substitute(problem=problem)},
                ]
        raise JudgeError(f"{self.name}: no valid verdict in {self.attempts} replies; last: {problem}")


def check_judge_model(model: str) -> None:
    """``ValueError`` when the model cannot judge: an offline agent policy answers no rubric."""
    # lazy: the offline and sleep models, only when a judge model is checked
    from ..models.offline_models import agent_policies
    from ..models.sleep_model import NAME as SLEEP_MODEL

    target = resolve_model(model).model
    if not target.startswith(OFFLINE_PREFIX):
        return  # a real model: the protocols' policy names need not load
    # An unknown pastbench/ name is the start-up check's (preflight.check_run_setup) to name.
    if target.split("?", 1)[0].removeprefix(OFFLINE_PREFIX) in {*agent_policies(), SLEEP_MODEL}:
        raise ValueError(
            f"{target} is an offline agent policy, not a judge; "
            f"use {REFERENCE_JUDGE} (offline) or a real model"
        )


def judge_info(model: str | None) -> dict[str, str] | None:
    """``run.judge`` of the summary: which model judged, with which prompt (None: no judge)."""
    if model is None:
        return None
    return {"model": model, "prompt_hash": prompt_hash()}
