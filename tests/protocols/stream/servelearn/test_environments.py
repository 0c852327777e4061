"""Retail and Banking tools: argument errors the agent reads, the episode's view, what they write."""

from __future__ import annotations

import json

from pytest_pastbench.protocols.stream.servelearn.env import state_hash
from pytest_pastbench.protocols.stream.servelearn.episode import toolbox
from pytest_pastbench.protocols.stream.servelearn.schema import Task

from .helpers import scenarios

SCENARIOS = scenarios()
RETAIL, BANKING = SCENARIOS["retail_l1"], SCENARIOS["banking_l1"]


def task(scenario_name: str, task_id: str) -> Task:
    return next(t for t in SCENARIOS[scenario_name].tasks() if t.task_id == task_id)


def test_an_episode_sees_the_base_orders_and_its_own_order_only() -> None:
    box = toolbox(RETAIL, task("retail_l1", "rfx_s1"))
    assert json.loads(box.call("get_order_details", {"order_id": "#W1000002"}))["status"] == "pending"
    assert box.call("get_order_details", {"order_id": "#W1000001"}).startswith("{")  # a base order
    assert box.call("get_order_details", {"order_id": "#W1000003"}) == "Error: order not found"
    user = json.loads(box.call("get_user_details", {"user_id": "lena_park_1001"}))
    assert user["orders"] == ["#W1000001", "#W1000002"]
    assert "_episode_view" not in box.state


def test_retail_writes_follow_status_and_refund_gift_cards() -> None:
    box = toolbox(RETAIL, task("retail_l1", "rfx_s1"))
    order = json.loads(
        box.call("cancel_pending_order", {"order_id": "#W1000002", "reason": "no longer needed"})
    )
    assert order["status"] == "cancelled" and order["payment_history"][-1]["transaction_type"] == "refund"
    assert box.state["users"]["lena_park_1001"]["payment_methods"]["gift_card_2222"]["balance"] == 65.0
    again = box.call("cancel_pending_order", {"order_id": "#W1000002", "reason": "no longer needed"})
    assert again.startswith("Error: order status is 'cancelled'")


def test_an_exchange_needs_an_available_variant_and_enough_gift_card_balance() -> None:
    box = toolbox(RETAIL, task("retail_l1", "rfx_t4"))
    args = {"order_id": "#W1000001", "item_ids": ["7100000001"], "payment_method_id": "gift_card_2222"}
    assert box.call("exchange_delivered_order_items", {**args, "new_item_ids": ["7100000003"]}) == (
        "Error: item 7100000003 is not available"
    )
    assert "not a variant" in box.call(
        "exchange_delivered_order_items", {**args, "new_item_ids": ["7200000002"]}
    )
    done = json.loads(box.call("exchange_delivered_order_items", {**args, "new_item_ids": ["7100000002"]}))
    assert (done["status"], done["exchange_price_difference"]) == ("exchange requested", 12.5)
    assert box.state["users"]["lena_park_1001"]["payment_methods"]["gift_card_2222"]["balance"] == 27.5


def test_a_banking_episode_sees_only_its_case_and_never_the_accepted_reasons() -> None:
    box = toolbox(BANKING, task("banking_l1", "bfx_s2"))
    case = json.loads(box.call("get_case_details", {"case_id": "TXN-000002"}))
    assert "_accept" not in case and case["status"] == "pending"
    assert box.call("get_case_details", {"case_id": "TXN-000001"}) == "Error: case not found"


def test_banking_decisions_are_final_and_equivalent_reasons_store_one_value() -> None:
    first, second = (toolbox(BANKING, task("banking_l1", "bfx_s2")) for _ in range(2))
    first.call("deny_case", {"case_id": "TXN-000002", "reason": "corridor_blocked"})
    second.call("deny_case", {"case_id": "TXN-000002", "reason": "merchant_restricted"})
    assert state_hash(first.state) == state_hash(second.state)  # both codes are accepted
    retry = first.call("approve_case", {"case_id": "TXN-000002"})
    assert retry == "Error: case already denied; decisions are final"


def test_ranked_alternatives_and_batches_have_their_own_tools() -> None:
    legs = toolbox(BANKING, task("banking_l1", "bfx_s3"))
    assert "execute_leg" in legs.call("approve_case", {"case_id": "TXN-000004"})
    assert legs.call("execute_leg", {"case_id": "TXN-000004", "leg": 9}).startswith("Error: no alternative 9")
    assert legs.call("execute_leg", {"case_id": "TXN-000004", "leg": 3}).endswith("alternative 3")
    batch = toolbox(BANKING, task("banking_l1", "bfx_s4"))
    partial = [{"line": 1, "action": "approve"}]
    assert "exactly once" in batch.call("decide_batch", {"case_id": "TRF-000001", "decisions": partial})
    whole = [*partial, {"line": 2, "action": "deny", "reason": "new_payee_review"}]
    assert batch.call("decide_batch", {"case_id": "TRF-000001", "decisions": whole}).startswith("Batch")
    lines = batch.state["transfers"]["TRF-000001"]["lines"]
    assert [(line["status"], line["reason"]) for line in lines] == [
        ("approved", None),
        ("denied", "new_payee_review"),
    ]


def test_refunds_go_to_the_original_method_or_a_gift_card_and_a_modified_order_stays_pending() -> None:
    box = toolbox(RETAIL, task("retail_l1", "rfx_t1"))
    methods = box.state["users"]["lena_park_1001"]["payment_methods"]
    methods["credit_card_9999"] = {"source": "credit_card", "id": "credit_card_9999"}
    args = {"order_id": "#W1000005", "item_ids": ["7100000001"], "reason": "no longer needed"}
    other_card = box.call("return_delivered_order_items", {**args, "payment_method_id": "credit_card_9999"})
    assert other_card == "Error: refund destination not permitted for this account"
    assert box.call(
        "return_delivered_order_items", {**args, "payment_method_id": "credit_card_1111"}
    ).startswith("{")
    pending = toolbox(RETAIL, task("retail_l1", "rfx_s5"))
    swap = {"order_id": "#W1000003", "item_ids": ["7100000001"], "new_item_ids": ["7100000002"]}
    pending.call("modify_pending_order_items", {**swap, "payment_method_id": "credit_card_1111"})
    assert pending.state["orders"]["#W1000003"]["payment_history"][-1]["amount"] == 12.5
    assert pending.state["orders"]["#W1000003"]["status"] == "pending"  # as the authors' tool leaves it
    pending.call("cancel_pending_order", {"order_id": "#W1000003", "reason": "no longer needed"})
    assert pending.state["orders"]["#W1000003"]["status"] == "cancelled"
