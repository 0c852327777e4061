"""One episode's ToolBox: arguments checked against tools.json before any handler runs, the
policy and workflow documents readable, a tool's refusal an ``Error:`` the agent reads."""

from __future__ import annotations

import pytest

from pytest_pastbench.errors import ToolFailure, UnknownTool
from pytest_pastbench.protocols.stream.servelearn.env import FINISH, state_hash
from pytest_pastbench.protocols.stream.servelearn.episode import toolbox
from pytest_pastbench.protocols.stream.servelearn.schema import Task

from .helpers import scenarios

SCENARIOS = scenarios()
RETAIL, BANKING = SCENARIOS["retail_l1"], SCENARIOS["banking_l1"]


def task(scenario_name: str, task_id: str) -> Task:
    return next(t for t in SCENARIOS[scenario_name].tasks() if t.task_id == task_id)


def test_unknown_missing_and_mistyped_arguments_are_tool_errors() -> None:
    box = toolbox(RETAIL, task("retail_l1", "rfx_s1"))
    before = state_hash(box.state)
    unknown = box.call("cancel_pending_order", {"order_id": "#W1000002", "reason": "x", "force": True})
    assert unknown.startswith("Error: unknown argument(s) 'force' for cancel_pending_order; allowed:")
    assert box.call("cancel_pending_order", {"order_id": "#W1000002"}) == (
        "Error: cancel_pending_order requires 'reason'"
    )
    assert "must be a JSON array" in box.call(
        "return_delivered_order_items",
        {"order_id": "#W1000001", "item_ids": "7100000001", "payment_method_id": "x", "reason": "y"},
    )
    assert state_hash(box.state) == before  # nothing was executed


def test_read_docs_lists_sections_and_reads_one() -> None:
    box = toolbox(RETAIL, task("retail_l1", "rfx_s1"))
    toc = box.call("read_docs", {"doc": "policy"}).splitlines()
    assert [line.split(" — ")[0] for line in toc[1:]] == [
        "- cancellation",
        "- returns",
        "- exchanges",
        "- modifications",  # the system prompt's slug for "## Order modifications"
    ]
    assert "30 days" in box.call("read_docs", {"doc": "policy", "section": "returns"})
    assert box.call("read_docs", {"doc": "policy", "section": "modifications"}).startswith(
        "## Order modifications"
    )
    assert box.call("read_docs", {"doc": "policy", "section": "nope"}).startswith(
        "Error: unknown section 'nope' (available: cancellation, returns"
    )


def test_finish_and_tools_the_scenario_does_not_offer_are_unknown() -> None:
    box = toolbox(RETAIL, task("retail_l1", "rfx_s1"))
    assert FINISH in box.specs  # published in tools.json, but ends the episode: not a call
    for name in (FINISH, "drop_database"):
        with pytest.raises(UnknownTool):
            box.call(name, {})


def test_a_handlers_refusal_or_absence_is_an_error_the_agent_reads() -> None:
    box = toolbox(RETAIL, task("retail_l1", "rfx_s1"))

    def refuse(**args: object) -> str:
        raise ToolFailure("order is locked")

    box.handlers["get_order_details"] = refuse
    assert box.call("get_order_details", {"order_id": "#W1000002"}) == "Error: order is locked"
    del box.handlers["get_order_details"]
    assert box.call("get_order_details", {"order_id": "#W1000002"}) == (
        "Error: get_order_details is not available in this environment"
    )


def test_only_a_banking_episode_checks_reason_codes() -> None:
    assert toolbox(RETAIL, task("retail_l1", "rfx_s1")).reason_codes is None
    banking = toolbox(BANKING, task("banking_l1", "bfx_s2"))
    before = state_hash(banking.state)
    assert banking.call("deny_case", {"case_id": "TXN-000002", "reason": "no_such_code"}).startswith("Error:")
    assert state_hash(banking.state) == before  # refused before the handler: the case stays pending
    assert not banking.call("deny_case", {"case_id": "TXN-000002", "reason": "corridor_blocked"}).startswith(
        "Error:"
    )
    assert state_hash(banking.state) != before
