"""What one item's run produced: sessions, tool calls, store accesses and snapshots.

These are the inputs of scoring and Mech, and (as plain JSON via ``model_dump``) what a worker
sends to the controller. Keeping them pydantic models means the controller can validate what
it receives and a trace file can be re-read for re-scoring.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

StoreOp = Literal["read", "search", "write", "update", "delete", "list"]


class StoreEntry(BaseModel):
    """One memory note or skill as it stands in a snapshot."""

    id: str
    kind: Literal["memory", "skill"] = "memory"
    name: str = ""
    text: str
    tags: list[str] = Field(default_factory=list)
    entity: str = ""
    scope: str = ""
    expires: str | None = None
    superseded_by: str | None = None
    deleted: bool = False
    created_session: int = 0
    updated_session: int = 0

    def is_live(self, now: str | None = None) -> bool:
        """Live = not deleted, not superseded and (given a clock) not expired."""
        if self.deleted or self.superseded_by:
            return False
        return not (now is not None and self.expires is not None and self.expires <= now)


class StoreAccess(BaseModel):
    """One store operation as logged by the store (the evidence ra and uc read)."""

    op: StoreOp
    session: int
    query: str = ""
    entry_ids: list[str] = Field(default_factory=list)
    returned_texts: list[str] = Field(
        default_factory=list, description="texts of live entries returned to the agent"
    )
    ok: bool = True


class ToolCall(BaseModel):
    index: int
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    ok: bool = True
    error: str | None = None
    result: Any = None
    irreversible: bool = False
    # The agent reads the result (or the error) as the text itself, not JSON: a protocol whose
    # observations are raw strings (ServeLearnBench's) sets it.
    verbatim: bool = False


class SessionRecord(BaseModel):
    """One session of one item, after it ran."""

    index: int = Field(description="position in the episode's session list")
    stage: str
    now: str
    answer: str = ""
    question: str = Field(default="", description="the session's last user turn (what the answer answers)")
    tool_calls: list[ToolCall] = Field(default_factory=list)
    store_accesses: list[StoreAccess] = Field(default_factory=list)
    store_after: list[StoreEntry] = Field(
        default_factory=list, description="store snapshot at the end of the session"
    )
    world_after: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    budget_exceeded: str | None = Field(
        default=None, description="'tool_calls', 'wall_time' or 'tokens' when a budget ran out"
    )
    agent_error: str | None = Field(
        default=None, description="why the agent failed (e.g. an external program crashed); scores 0"
    )
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0
    wall_s: float = 0.0


class CheckResult(BaseModel):
    type: str
    weight: float
    passed: bool | None = Field(description="None when not scored (rubric without a judge, judge_error)")
    detail: str = ""
    score: float | None = Field(default=None, description="rubric: the judge's score in [0, 1]")
    judge_error: str | None = Field(default=None, description="rubric: why the judge gave no verdict")
    fallback: bool = Field(
        default=False, description="rubric: graded by its deterministic fallback checks (no judge)"
    )
    guard: bool = Field(default=False, description="a guard: can lower c_e, never earn credit alone")
    verdict: str | None = Field(
        default=None, description="text checks: what the answer claims (a claims.Reading value)"
    )
    undecided: bool = Field(
        default=False,
        description="the deterministic grader could not decide (no credit; goes to the judge if configured)",
    )
    deterministic_verdict: str | None = Field(
        default=None, description="with a judge: the deterministic grader's verdict, recorded beside it"
    )


class SessionScore(BaseModel):
    index: int
    stage: str
    s: float
    c: float
    r: float
    sigma: int
    checks: list[CheckResult] = Field(default_factory=list)
    violations: list[str] = Field(default_factory=list)
    reason: str | None = None
    rubric_unscored: int = 0
    rubric_fallback: int = Field(default=0, description="rubric checks graded by their fallback (no judge)")
    judge_errors: int = Field(default=0, description="checks (text or rubric) the judge gave no verdict on")
    undecided: int = Field(default=0, description="text checks the deterministic grader could not decide")


class Loss(BaseModel):
    """Points of an item's score lost to one cause (``losses.py``)."""

    reason: str = Field(description="what cost the points: a failed check, a violation, a budget …")
    loss: float = Field(description="points of the item's score (0..1) it cost")
    sessions: list[int] = Field(default_factory=list, description="the eval sessions it cost them in")


class MechScore(BaseModel):
    wp: float | None = None
    ra: float | None = None
    uc: float | None = None
    rh: float | None = None
    pr: float | None = None
    mech: float | None = None
    applicable: int = 0
