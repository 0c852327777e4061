"""Retail's tools as the authors published them (servelearnbench's retail tools): status rules,
refunds, exchanges and the tier's mechanics. Each difference once found from the published tools
has its own test."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date

from pytest_pastbench.protocols.stream.servelearn import retail
from pytest_pastbench.protocols.stream.servelearn.episode import toolbox

from .helpers import scenarios, task

RETAIL = scenarios()["retail_l1"]


def test_a_modification_settles_through_the_original_method_or_a_gift_card_and_no_clearance_item() -> None:
    box = toolbox(RETAIL, task("retail_l1", "rfx_s5"))
    box.state["users"]["lena_park_1001"]["payment_methods"]["credit_card_9999"] = {
        "source": "credit_card",
        "id": "credit_card_9999",
    }
    swap = {"order_id": "#W1000003", "item_ids": ["7100000001"], "new_item_ids": ["7100000002"]}
    other = box.call("modify_pending_order_items", {**swap, "payment_method_id": "credit_card_9999"})
    assert (
        other == "Error: the price difference must be settled via the original payment method or a gift card"
    )
    box.state["products"]["7000000001"]["variants"]["7100000002"]["clearance"] = True
    clearance = box.call("modify_pending_order_items", {**swap, "payment_method_id": "credit_card_1111"})
    assert clearance == "Error: item 7100000002 is a clearance item (final sale) and cannot be selected"
    assert box.state["orders"]["#W1000003"]["items"][0]["item_id"] == "7100000001"  # nothing changed


def test_a_placed_order_is_numbered_after_the_published_orders() -> None:
    box = toolbox(RETAIL, task("retail_l1", "rfx_s1"))
    visible = len(box.state["orders"])
    args = {"user_id": "lena_park_1001", "item_ids": ["7200000001"], "payment_method_id": "credit_card_1111"}
    first = json.loads(box.call("place_order", args))
    assert first["order_id"] == f"#W{9_000_000 + visible}"
    box.state["orders"][f"#W{9_000_000 + visible + 2}"] = {"order_id": "taken"}
    second = json.loads(box.call("place_order", args))
    assert second["order_id"] == f"#W{9_000_000 + visible + 3}"  # skips a number already in use


def retail_box(task_id: str = "rfx_t1", **gates: bool):
    """An L1 fixture episode, or the same world under other tier gates."""
    box = toolbox(RETAIL, task("retail_l1", task_id))
    if gates:
        box.handlers.update(retail.handlers(box.state, replace(retail.mechanics_of(RETAIL), **gates)))
    return box


def test_the_mechanics_come_from_the_tier_and_the_system_prompts_date() -> None:
    mechanics = retail.mechanics_of(RETAIL)
    assert (mechanics.today, mechanics.window_returnable, mechanics.record_modifications) == (
        date(2026, 7, 15),
        True,
        False,
    )
    assert retail.TIER_GATES["L2"] == {"split_refund_proportional": True, "record_modifications": True}


def test_a_cancellation_needs_a_listed_reason_and_a_total_within_the_tiers_threshold() -> None:
    box = retail_box("rfx_s1")
    assert box.call(
        "cancel_pending_order", {"order_id": "#W1000002", "reason": "changed my mind"}
    ).startswith("Error: invalid reason")
    box.state["orders"]["#W1000002"]["payment_history"][0]["amount"] = 600.0  # lena is gold: $500
    over = box.call("cancel_pending_order", {"order_id": "#W1000002", "reason": "no longer needed"})
    assert over == (
        "Error: orders with a total above $500 cannot be cancelled for this account (this order: $600.00)"
    )
    assert box.state["orders"]["#W1000002"]["status"] == "pending"


def test_a_return_withholds_the_tiers_fee_and_refunds_the_rest_at_once() -> None:
    box = retail_box()
    args = {"order_id": "#W1000005", "item_ids": ["7100000001"], "payment_method_id": "gift_card_2222"}
    assert box.call("return_delivered_order_items", {**args, "reason": "bored"}).startswith(
        "Error: invalid or missing return reason"
    )
    order = json.loads(box.call("return_delivered_order_items", {**args, "reason": "no longer needed"}))
    assert (order["return_refund_amount"], order["payment_history"][-1]["amount"]) == (28.5, 28.5)  # gold: 5%
    assert "return_payment_method_id" not in order
    assert box.state["users"]["lena_park_1001"]["payment_methods"]["gift_card_2222"]["balance"] == 68.5


def test_the_category_window_and_final_sale_bind_exchanges_and_bind_returns_only_where_the_tier_says() -> (
    None
):
    late = {"order_id": "#W1000001", "item_ids": ["7100000001"], "payment_method_id": "gift_card_2222"}
    box = retail_box("rfx_t4")
    box.state["orders"]["#W1000001"]["delivered_at"] = "2026-06-01"  # 44 days: electronics allow 14
    assert box.call("exchange_delivered_order_items", {**late, "new_item_ids": ["7100000002"]}) == (
        "Error: the electronics exchange window (14 days after delivery) has passed"
    )
    returned = {**late, "reason": "defective"}
    assert box.call("return_delivered_order_items", returned).startswith("{")  # L1 leaves the return open
    strict = retail_box("rfx_t4", window_returnable=False, clearance_returnable=False)
    strict.state["orders"]["#W1000001"]["delivered_at"] = "2026-06-01"
    assert "window (14 days after delivery) has passed" in strict.call(
        "return_delivered_order_items", returned
    )
    sale = retail_box("rfx_t4", clearance_returnable=False)
    sale.state["products"]["7000000001"]["variants"]["7100000001"]["clearance"] = True
    assert sale.call("return_delivered_order_items", returned) == (
        "Error: item 7100000001 is a clearance item (final sale) and cannot be returned"
    )


def test_an_upcharge_may_use_any_method_but_a_refund_only_the_original_or_a_gift_card() -> None:
    box = retail_box("rfx_t4")
    box.state["users"]["lena_park_1001"]["payment_methods"]["credit_card_9999"] = {
        "source": "credit_card",
        "id": "credit_card_9999",
    }
    up = {"order_id": "#W1000001", "item_ids": ["7100000001"], "new_item_ids": ["7100000002"]}
    done = json.loads(
        box.call("exchange_delivered_order_items", {**up, "payment_method_id": "credit_card_9999"})
    )
    assert done["payment_history"][-1] == {
        "transaction_type": "payment",
        "amount": 12.5,
        "payment_method_id": "credit_card_9999",
    }


def test_l2_splits_an_original_method_refund_and_records_modifications() -> None:
    box = retail_box("rfx_s2", split_refund_proportional=True, record_modifications=True)
    order = box.state["orders"]["#W2000002"]  # paid 20 by card and 10 by gift card; omar is silver
    order.update(status="delivered", delivered_at="2026-07-10")
    args = {"order_id": "#W2000002", "item_ids": ["7100000001"], "payment_method_id": "credit_card_3333"}
    box.call("return_delivered_order_items", {**args, "reason": "wrong item"})
    refunds = [(p["payment_method_id"], p["amount"]) for p in order["payment_history"][2:]]
    assert refunds == [("credit_card_3333", 18.0), ("gift_card_4444", 9.0)]  # 27 = 30 less 10%
    modified = retail_box("rfx_s5", record_modifications=True)
    swap = {"order_id": "#W1000003", "item_ids": ["7100000001"], "new_item_ids": ["7100000002"]}
    modified.call("modify_pending_order_items", {**swap, "payment_method_id": "credit_card_1111"})
    assert modified.state["orders"]["#W1000003"]["modification_history"] == [
        {"item_id": "7100000001", "new_item_id": "7100000002"}
    ]


def test_a_placed_order_is_dated_and_a_short_gift_card_is_drained_before_the_fallback() -> None:
    box = retail_box("rfx_s1")
    args = {"user_id": "lena_park_1001", "item_ids": ["7100000002"], "payment_method_id": "gift_card_2222"}
    assert box.call("place_order", {**args, "fallback_payment_method_id": "gift_card_2222"}) == (
        "Error: the fallback payment method must not be a gift card"
    )
    order = json.loads(box.call("place_order", {**args, "fallback_payment_method_id": "credit_card_1111"}))
    assert order["placed_at"] == "2026-07-15"
    assert [(p["payment_method_id"], p["amount"]) for p in order["payment_history"]] == [
        ("gift_card_2222", 40.0),
        ("credit_card_1111", 2.5),
    ]
    assert box.state["users"]["lena_park_1001"]["payment_methods"]["gift_card_2222"]["balance"] == 0.0


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
