"""Where our tools once differed from the authors' published tools: one test per difference fixed."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date

from pytest_pastbench.protocols.stream.servelearn import retail
from pytest_pastbench.protocols.stream.servelearn.banking import reason_codes
from pytest_pastbench.protocols.stream.servelearn.env import document_sections
from pytest_pastbench.protocols.stream.servelearn.episode import toolbox
from pytest_pastbench.protocols.stream.servelearn.pitch import distinct_claims
from pytest_pastbench.protocols.stream.servelearn.schema import Task
from pytest_pastbench.protocols.stream.servelearn.scoring import feedback_line

from .helpers import scenarios

SCENARIOS = scenarios()
RETAIL, BANKING = SCENARIOS["retail_l1"], SCENARIOS["banking_l1"]


def task(scenario_name: str, task_id: str) -> Task:
    return next(t for t in SCENARIOS[scenario_name].tasks() if t.task_id == task_id)


def test_the_reason_codes_are_every_code_the_scenario_files_name() -> None:
    codes = reason_codes(BANKING)
    # from the ground-truth actions, a batch line, the cases' accepted sets and the bulletins
    assert {"standing_hold", "new_payee_review", "corridor_blocked", "merchant_restricted"} <= codes
    assert "approve" not in codes and all("_" in code for code in codes)


def test_a_workflow_list_of_reason_codes_is_read() -> None:
    listed = (
        "## reasons\nReason codes: corridor_blocked | only_listed_here | over_limit. Each code names a rule."
    )
    environment = BANKING.environment.model_copy(update={"workflow": listed})
    assert "only_listed_here" in reason_codes(BANKING.model_copy(update={"environment": environment}))
    assert "only_listed_here" not in reason_codes(BANKING)


def test_a_case_reads_as_published_kind_and_no_reason_until_decided() -> None:
    box = toolbox(BANKING, task("banking_l1", "bfx_t1"))
    case = json.loads(box.call("get_case_details", {"case_id": "TXN-000003"}))
    assert (case["kind"], case["status"], case["reason"]) == ("card_transaction", "pending", None)
    box.call("escalate_case", {"case_id": "TXN-000003", "reason": "standing_hold"})
    assert box.state["transactions"]["TXN-000003"]["reason"] == "standing_hold"


def test_a_decision_citing_an_unknown_reason_code_is_an_error_and_the_case_stays_pending() -> None:
    box = toolbox(BANKING, task("banking_l1", "bfx_s2"))
    typo = box.call("deny_case", {"case_id": "TXN-000002", "reason": "corridor-blocked"})
    assert typo == "Error: invalid reason code"
    assert box.state["transactions"]["TXN-000002"]["status"] == "pending"  # the agent may still decide
    assert box.call("deny_case", {"case_id": "TXN-000002", "reason": "corridor_blocked"}).startswith("Case")


def test_a_batch_line_with_an_unknown_code_is_an_error_and_a_repeated_line_takes_the_last_entry() -> None:
    box = toolbox(BANKING, task("banking_l1", "bfx_s4"))
    bad = [{"line": 1, "action": "approve"}, {"line": 2, "action": "deny", "reason": "because"}]
    assert box.call("decide_batch", {"case_id": "TRF-000001", "decisions": bad}) == (
        "Error: invalid reason code"
    )
    repeated = [
        {"line": 1, "action": "deny", "reason": "new_payee_review"},
        {"line": "1", "action": "approve"},  # the published tool reads an int-like line number
        {"line": 2, "action": "escalate", "reason": "new_payee_review"},
    ]
    assert box.call("decide_batch", {"case_id": "TRF-000001", "decisions": repeated}).startswith("Batch")
    lines = box.state["transfers"]["TRF-000001"]["lines"]
    assert [(line["status"], line["reason"]) for line in lines] == [
        ("approved", None),
        ("escalated", "new_payee_review"),
    ]


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


def test_an_invented_claim_quoted_twice_with_other_punctuation_counts_once() -> None:
    claims = ["Ships free!", "ships  free", "Waterproof to 30m.", "!!!"]
    assert distinct_claims(claims) == ["ships free", "waterproof to 30m"]


def test_the_score_line_keeps_six_significant_digits() -> None:
    assert feedback_line(0.0123456) == "Score: 1.23456/100."  # not rounded to four decimals
    assert feedback_line(0.123456789) == "Score: 12.3457/100."


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


def test_an_episode_never_changes_the_published_world() -> None:
    before = json.dumps(RETAIL.environment.world, sort_keys=True)
    box = retail_box("rfx_s1")
    box.call("cancel_pending_order", {"order_id": "#W1000002", "reason": "no longer needed"})
    box.state["users"]["lena_park_1001"]["orders"].append("#W-mutated")
    assert json.dumps(RETAIL.environment.world, sort_keys=True) == before


def test_a_refusal_reports_the_code_it_stored() -> None:
    box = toolbox(BANKING, task("banking_l1", "bfx_s2"))
    said = box.call("deny_case", {"case_id": "TXN-000002", "reason": "merchant_restricted"})
    assert said == "Case TXN-000002 denied (corridor_blocked)"  # an accepted code lands on the first


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
