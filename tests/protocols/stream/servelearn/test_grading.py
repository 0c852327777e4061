"""How an episode is graded: the world it left and what ``finish`` declared, against the task's
ground truth."""

from __future__ import annotations

import pytest

from pytest_pastbench.protocols.stream.servelearn.grading import answer_matches, compare_answer
from pytest_pastbench.protocols.stream.servelearn.schema import Answer

from .helpers import ScriptedAgent, call
from .test_engine import BANKING, CANCEL_ARGS, REFUSE, RETAIL, reward

QUESTION = next(t for t in RETAIL.serving if t.task_id == "rfx_s6")


def test_the_wrong_state_or_a_wrong_declaration_scores_zero() -> None:
    assert reward(ScriptedAgent(call("finish"))) == 0.0  # did nothing
    other_reason = call("cancel_pending_order", order_id="#W1000002", reason="ordered by mistake")
    assert reward(ScriptedAgent(other_reason, call("finish"))) == 0.0
    refused_after = call("finish", decision="refuse", reason="invalid_status")
    assert reward(ScriptedAgent(call("cancel_pending_order", **CANCEL_ARGS), refused_after)) == 0.0


def test_a_refusal_needs_an_accepted_reason_and_an_untouched_database() -> None:
    assert reward(ScriptedAgent(call("finish", decision="refuse", reason="over_threshold")), REFUSE) == 0.0
    modify = call("modify_pending_order_items", order_id="#W2000002", item_ids=["7100000001"],
                  new_item_ids=["7100000002"], payment_method_id="credit_card_3333")  # fmt: skip
    refuse = call("finish", decision="refuse", reason="invalid_status")
    assert reward(ScriptedAgent(modify, refuse), REFUSE) == 0.0
    assert reward(ScriptedAgent(refuse), REFUSE) == 1.0


def test_a_question_is_graded_on_its_answer() -> None:
    assert reward(ScriptedAgent(call("finish", answer="1 order")), QUESTION) == 1.0
    assert reward(ScriptedAgent(call("finish", answer="1 or 2")), QUESTION) == 0.0
    assert reward(ScriptedAgent(call("finish", answer=1.5)), QUESTION) == 0.0


def test_banking_grades_decision_and_reason_through_the_database() -> None:
    task = next(t for t in BANKING.test if t.task_id == "bfx_t1")
    right = ScriptedAgent(call("escalate_case", case_id="TXN-000003", reason="standing_hold"), call("finish"))
    wrong = ScriptedAgent(call("escalate_case", case_id="TXN-000003", reason="over_limit"), call("finish"))
    assert (reward(right, task, BANKING), reward(wrong, task, BANKING)) == (1.0, 0.0)


@pytest.mark.parametrize(
    ("got", "expect", "mode", "same"),
    [
        ("$1,250 in total", 1250, "int", True),
        ("1250.5", 1250, "int", False),  # an int answer is a whole number
        ("1 or 2", 1, "int", False),  # single-valued: two numbers are no answer
        ("12.004", "12.00", "float", True),
        ("12.02", "12.00", "float", False),
        (["#W1", "w 2"], ["#w2", "W1"], "set", True),  # order and case do not matter
        ("#W1, #W2", ["#W1", "#W2"], "set", False),  # a set wants a list, not text that lists
        ("Gift Card!", "gift card", "str_norm", True),
        ("", "", "str_norm", False),  # an empty expected text matches nothing
        (None, "x", "str_norm", False),
    ],
)
def test_an_answer_is_compared_format_tolerant_but_single_valued(got, expect, mode: str, same: bool) -> None:  # noqa: ANN001
    assert compare_answer(got, expect, mode) is same


def test_a_finish_agrees_with_the_tasks_answer_kind() -> None:
    refuse = Answer(kind="refuse", reasons=["invalid_status"])
    assert answer_matches(refuse, {"decision": "Refused", "reason": "invalid_status"}) == (True, "")
    assert answer_matches(refuse, {"decision": "refuse", "reason": "other"})[0] is False
    assert answer_matches(refuse, {"answer": "done"}) == (False, "expected a refusal")
    assert answer_matches(None, {}) == (True, "")  # a carried-out request declares nothing
    assert answer_matches(None, {"decision": "refuse"})[0] is False
    assert answer_matches(Answer(kind="value", expect=3, compare="int"), {"decision": "refuse"})[0] is False
    assert answer_matches(None, None) == (False, "no finish submitted")
