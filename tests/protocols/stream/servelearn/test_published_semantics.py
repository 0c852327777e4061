"""Where our tools once differed from the authors' published tools: one test per difference fixed."""

from __future__ import annotations

import json

from pytest_pastbench.protocols.stream.servelearn.banking import reason_codes
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
    assert other == "Error: the payment method must be the original payment method or a gift card"
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
