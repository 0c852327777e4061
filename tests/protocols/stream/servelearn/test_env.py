"""What the environments share: the episode's view of the world (a copy, never the published
one) and the ``read_docs`` sections."""

from __future__ import annotations

import json

from pytest_pastbench.protocols.stream.servelearn.env import document_sections
from pytest_pastbench.protocols.stream.servelearn.episode import toolbox

from .helpers import scenarios, task
from .test_retail import retail_box

SCENARIOS = scenarios()
RETAIL, BANKING = SCENARIOS["retail_l1"], SCENARIOS["banking_l1"]


def test_an_episode_sees_the_base_orders_and_its_own_order_only() -> None:
    box = toolbox(RETAIL, task("retail_l1", "rfx_s1"))
    assert json.loads(box.call("get_order_details", {"order_id": "#W1000002"}))["status"] == "pending"
    assert box.call("get_order_details", {"order_id": "#W1000001"}).startswith("{")  # a base order
    assert box.call("get_order_details", {"order_id": "#W1000003"}) == "Error: order not found"
    user = json.loads(box.call("get_user_details", {"user_id": "lena_park_1001"}))
    assert user["orders"] == ["#W1000001", "#W1000002"]
    assert "_episode_view" not in box.state


def test_a_banking_episode_sees_only_its_case_and_never_the_accepted_reasons() -> None:
    box = toolbox(BANKING, task("banking_l1", "bfx_s2"))
    case = json.loads(box.call("get_case_details", {"case_id": "TXN-000002"}))
    assert "_accept" not in case and case["status"] == "pending"
    assert box.call("get_case_details", {"case_id": "TXN-000001"}) == "Error: case not found"


def test_an_episode_never_changes_the_published_world() -> None:
    before = json.dumps(RETAIL.environment.world, sort_keys=True)
    box = retail_box("rfx_s1")
    box.call("cancel_pending_order", {"order_id": "#W1000002", "reason": "no longer needed"})
    box.state["users"]["lena_park_1001"]["orders"].append("#W-mutated")
    assert json.dumps(RETAIL.environment.world, sort_keys=True) == before


def test_section_slugs_follow_the_prompts_list_and_fall_back_to_the_headings() -> None:
    def sections(prompt: str, doc: str = "policy") -> list[str]:
        environment = BANKING.environment.model_copy(update={"system_prompt": prompt})
        return [
            name
            for name, _, _ in document_sections(BANKING.model_copy(update={"environment": environment}), doc)
        ]

    listed = "Retrievable sections:\n  policy: txn, limits, transfers\n  workflow: steps, reasons"
    assert sections(listed) == ["txn", "limits", "transfers"]
    assert sections(listed, "workflow") == ["steps", "reasons"]
    short = "Retrievable sections:\n  policy: txn, limits"  # two names for three sections
    assert sections(short) == ["card-transactions", "limit-increases", "transfers"]
    assert sections("") == ["card-transactions", "limit-increases", "transfers"]
