"""One finished item (episode × arm × trial) as written to ``sequence_results.json``.

Plain pydantic so a worker can ship it as JSON and the controller can validate it again.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from pytest_pastbench.core.records import Loss, MechScore, SessionScore


class ItemRecord(BaseModel):
    nodeid: str
    family: str = Field(description='qualified id, e.g. "update.SM03_fact_correction"')
    capability: str
    episode: str
    group: str | None = Field(default=None, description="the episode's scenario group (bootstrap cluster)")
    arm: Literal["on", "off", "ablated"]
    trial: int = 0
    model: str
    agent: str
    mechanisms: list[str] = Field(default_factory=list)
    config_label: str
    score: float | None = Field(default=None, description="None when infra_blocked")
    sessions: list[SessionScore] = Field(default_factory=list)
    mech: MechScore | None = Field(default=None, description="on arm only")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    wall_s: float = 0.0
    model_calls: int = Field(default=0, description="the agent's model calls in its sessions (not a judge's)")
    tool_calls: int = 0
    store_reads: int = 0
    store_writes: int = 0
    infra_blocked: bool = False
    reasons: list[str] = Field(
        default_factory=list, description="why the score is below 1, largest loss first, then flags"
    )
    losses: list[Loss] = Field(default_factory=list, description="the points each reason cost")
    judge: str | None = None
    judge_prompt_hash: str | None = None
    judge_errors: int = Field(default=0, description="checks (text or rubric) left unscored by a judge_error")
    undecided: int = Field(default=0, description="text checks the deterministic grader could not decide")
    dataset_hash: str = ""
    family_version: str = ""
