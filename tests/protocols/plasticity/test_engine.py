"""The checkpoint loop with the real agent loop and the offline reference policy (no litellm):
what is learning cost and what is not, what reflection may see, and how edits persist."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.agents.base import AgentResult, Budgets, HermesAgent, SessionContext
from pytest_pastbench.protocols.plasticity.engine import run

from .helpers import PolicyClient, small_family


def lineage(tmp_path: Path, client: Any, arm: str = "on", checkpoints: int = 2, agent: Any = None) -> dict:
    family = small_family(splits={"train": 2, "id": 2, "ood": 1})
    return run(family, arm, agent or HermesAgent(), client, tmp_path, Budgets(), checkpoints).record


def test_the_curator_learns_tools_that_lift_held_out_scores(tmp_path: Path) -> None:
    client = PolicyClient("curator", cost_per_call=0.001)
    record = lineage(tmp_path, client)
    rows = record["checkpoints"]
    assert [r["checkpoint"] for r in rows] == [0, 1, 2]
    assert rows[0]["scores"]["id"] == 0.0 and rows[-1]["scores"]["id"] == 100.0
    assert rows[0]["inventory"]["tools"] == 0 and rows[-1]["inventory"]["tools"] == 2
    assert "train" not in rows[-1]["scores"]  # the last checkpoint is evaluated, not trained
    assert {aid.split(":")[0] for aid in record["inventory_final"]} == {"note", "tool"}
    # Learning cost: train batches and reflections only, growing; held-out calls are apart.
    costs = [r["learning_cost"] for r in rows]
    assert costs[0] == {"usd": 0.0, "tokens": 0, "model_calls": 0}
    assert 0 < costs[1]["tokens"] < costs[2]["tokens"]
    assert costs[2]["usd"] == pytest.approx(costs[2]["model_calls"] * 0.001)
    assert record["eval_usage"]["model_calls"] > 0
    total_calls = len(client.prompts)
    assert record["eval_usage"]["model_calls"] + record["learning_usage"]["model_calls"] == total_calls


def test_reflection_never_sees_a_held_out_task(tmp_path: Path) -> None:
    client = PolicyClient("curator")
    lineage(tmp_path, client)
    reflections = [
        m for p in client.prompts for m in p if "Reflection after train batch" in str(m["content"])
    ]
    assert reflections, "reflection ran"
    family = small_family(splits={"train": 2, "id": 2, "ood": 1})
    from pytest_pastbench.protocols.plasticity.text_env import heldout_tasks

    heldout = [
        t.prompt.splitlines()[0] for s in ("id", "ood") for t in heldout_tasks(family.environment, s, 2, 1)
    ]
    for message in reflections:
        assert not any(request in message["content"] for request in heldout)


def test_with_reflection_off_nothing_persists_and_the_curve_is_flat(tmp_path: Path) -> None:
    record = lineage(tmp_path, PolicyClient("curator"), arm="off")
    assert {r["scores"]["id"] for r in record["checkpoints"]} == {0.0}
    assert all(r["inventory"] == {"notes": 0, "skills": 0, "tools": 0} for r in record["checkpoints"])
    assert record["learning_usage"]["tokens"] > 0  # the train batches still ran and cost


def test_an_unknown_price_makes_the_cost_null_but_tokens_still_count(tmp_path: Path) -> None:
    record = lineage(tmp_path, PolicyClient("recall", cost_per_call=None))
    assert record["learning_usage"]["usd"] is None and record["learning_usage"]["tokens"] > 0
    assert [r["learning_cost"]["usd"] for r in record["checkpoints"]] == [0.0, None, None]


class ProposingAgent:
    """Acts blind; in reflection proposes one tool that loops forever, then a good one."""

    name = "proposer"
    mechanisms: list[str] = []

    def run_session(self, ctx: SessionContext) -> AgentResult:
        result = AgentResult(answer="0", model_calls=1, prompt_tokens=100, completion_tokens=10, cost_usd=0.5)
        if ctx.stage == "reflection":
            loop = {"name": "spin", "description": "d", "code": "def run(t):\n    while True: pass\n"}
            ctx.tools.call("propose_tool", {**loop, "examples": '[{"input": "x"}]'})
            good = {"name": "echo", "description": "d", "code": "def run(t):\n    return t\n"}
            ctx.tools.call("propose_tool", {**good, "examples": '[{"input": "x", "expected": "x"}]'})
        return result


def test_rejected_edits_are_recorded_and_their_session_still_costs(tmp_path: Path) -> None:
    record = lineage(tmp_path, PolicyClient("blind"), checkpoints=1, agent=ProposingAgent())
    assert [r["kind"] for r in record["rejected_edits"]] == ["tool"]
    assert "cpu limit" in record["rejected_edits"][0]["reason"]  # CPU time, not the wall clock (issue 30)
    assert record["checkpoints"][1]["edits"] == {"accepted": 1, "rejected": 1}
    assert record["checkpoints"][1]["inventory"]["tools"] == 1
    # checkpoint 1's learning cost: 2 train sessions + 1 reflection at $0.5 each
    assert record["checkpoints"][1]["learning_cost"]["usd"] == pytest.approx(1.5)
    assert record["eval_usage"]["usd"] == pytest.approx(0.5 * 3 * 2)  # (2 ID + 1 OOD) × 2 checkpoints
