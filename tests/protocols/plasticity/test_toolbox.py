"""A plasticity session's tools: acting sessions read the inventory and cannot change it, the
reflection session proposes within its edit budget, and every artifact shown or run is recorded."""

from __future__ import annotations

from pathlib import Path

from pytest_pastbench.protocols.plasticity.artifacts import Inventory
from pytest_pastbench.protocols.plasticity.toolbox import ArtifactToolBox


def names(box: ArtifactToolBox) -> set[str]:
    return {spec["function"]["name"] for spec in box.specs()}


def test_only_the_reflection_session_may_propose(tmp_path: Path) -> None:
    inventory = Inventory(tmp_path / "inventory")
    acting, reflection = ArtifactToolBox(inventory), ArtifactToolBox(inventory, reflection=True)
    proposals = {"propose_note", "propose_skill", "propose_tool"}
    assert not names(acting) & proposals and proposals <= names(reflection)
    assert {"memory_search", "tool_run"} <= names(acting)
    refused = acting.call("propose_note", {"text": "Shipping is 3.5 + 0.8 per kg."})
    assert not refused.ok and inventory.counts()["notes"] == 0


def test_a_proposal_is_answered_accepted_or_rejected_with_its_reason(tmp_path: Path) -> None:
    inventory = Inventory(tmp_path / "inventory")
    box = ArtifactToolBox(inventory, reflection=True)
    kept = box.call("propose_note", {"text": "Shipping is 3.5 + 0.8 per kg."})
    assert kept.ok and kept.result == {"accepted": "note:m0001"}
    empty = box.call("propose_skill", {"name": "quote", "steps": []})
    assert not empty.ok and empty.error.startswith("rejected: structural")
    assert inventory.counts() == {"notes": 1, "skills": 0, "tools": 0}


def test_a_reflection_proposes_at_most_its_edits_rejected_ones_included(tmp_path: Path) -> None:
    box = ArtifactToolBox(Inventory(tmp_path / "inventory"), reflection=True, max_edits=2)
    box.call("propose_note", {"text": " "})  # rejected, still an edit
    assert box.call("propose_note", {"text": "one"}).ok
    over = box.call("propose_note", {"text": "two"})
    assert not over.ok and "at most 2 edits" in over.error and box.edits == 2


def test_each_artifact_put_in_front_of_the_agent_is_used_once_in_first_use_order(tmp_path: Path) -> None:
    inventory = Inventory(tmp_path / "inventory")
    inventory.propose_note("Storage bills: 0.023 per GB-month.")
    inventory.propose_skill("quote storage", ["read GB and days", "apply the rate"])
    box = ArtifactToolBox(inventory)
    box.call("skill_read", {"name": "quote storage"})
    box.call("memory_search", {"query": "storage"})
    box.call("skill_read", {"name": "quote storage"})
    assert box.used[0] == "skill:quote storage" and "note:m0001" in box.used
    assert len(box.used) == len(set(box.used))
    missing = box.call("tool_read", {"name": "nope"})
    assert (
        not missing.ok and "tool_list" in missing.error and not any(u.startswith("tool:") for u in box.used)
    )
