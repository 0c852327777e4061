"""Banking's tools as the authors published them: reason codes, final decisions, ranked
alternatives and batches. Each difference once found from the published tools has its own test."""

from __future__ import annotations

import json

from pytest_pastbench.protocols.stream.servelearn.banking import reason_codes
from pytest_pastbench.protocols.stream.servelearn.env import state_hash
from pytest_pastbench.protocols.stream.servelearn.episode import toolbox

from .helpers import scenarios, task

BANKING = scenarios()["banking_l1"]


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


def test_a_refusal_reports_the_code_it_stored() -> None:
    box = toolbox(BANKING, task("banking_l1", "bfx_s2"))
    said = box.call("deny_case", {"case_id": "TXN-000002", "reason": "merchant_restricted"})
    assert said == "Case TXN-000002 denied (corridor_blocked)"  # an accepted code lands on the first


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
