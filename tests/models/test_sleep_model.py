"""pastbench/sleep: the offline model that only waits, for measuring the harness alone."""

from __future__ import annotations

import json

import pytest

from pytest_pastbench.judge.llm import check_judge_model
from pytest_pastbench.models.client import LiteLLMClient, model_problem
from pytest_pastbench.models.sleep_model import ANSWER, reply
from pytest_pastbench.protocols.past.toolbox import ToolBox
from tests.family_samples import run_tiny_benchmark

QUESTION = {"role": "user", "content": "Who approves the Halvorsen refunds this quarter?"}
MESSAGES = [{"role": "system", "content": "s"}, QUESTION]


def test_through_litellm_it_searches_memory_then_answers() -> None:
    client = LiteLLMClient("pastbench/sleep?latency_ms=1")
    first = client.complete(MESSAGES, ToolBox.specs(), temperature=0)
    assert first.content is None
    assert [c["name"] for c in first.tool_calls] == ["memory_search"]
    assert json.loads(first.tool_calls[0]["arguments"]) == {"query": QUESTION["content"]}
    call = {"id": first.tool_calls[0]["id"], "type": "function", "function": first.tool_calls[0]}
    answered = [
        *MESSAGES,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": "[]"},
    ]
    second = client.complete(answered, ToolBox.specs(), temperature=0)
    assert second.tool_calls == [] and second.content == ANSWER
    assert second.prompt_tokens > 0 and second.cost_usd == 0.0


def test_each_user_turn_searches_again_and_without_a_search_tool_it_answers() -> None:
    done = [*MESSAGES, {"role": "tool", "tool_call_id": "c1", "content": "[]"}]
    assert reply(done, ToolBox.specs()) == {"content": ANSWER}
    follow_up = [*done, {"role": "assistant", "content": ANSWER}, {"role": "user", "content": "And Kestrel?"}]
    assert reply(follow_up, ToolBox.specs()) == {"tool_calls": [("memory_search", {"query": "And Kestrel?"})]}
    other_search = [
        {"type": "function", "function": {"name": "doc_search", "parameters": {"properties": {"query": {}}}}}
    ]
    assert reply(MESSAGES, other_search)["tool_calls"][0][0] == "doc_search"
    assert reply(MESSAGES, []) == {"content": ANSWER}


def test_it_is_an_agent_model_not_a_judge() -> None:
    assert model_problem("pastbench/sleep?latency_ms=5", ["sleep"]) is None
    with pytest.raises(ValueError, match="offline agent policy, not a judge"):
        check_judge_model("pastbench/sleep")


def test_a_run_on_it_counts_each_item_s_calls_in_its_record(pytester: pytest.Pytester) -> None:
    """Two calls a session (a search, then the answer), every session traced with its search;
    the records' model_calls add up to the run's ledger."""
    run = run_tiny_benchmark(pytester, "sleep", "pastbench/sleep?latency_ms=1")
    assert run.records and not [r for r in run.records if r.infra_blocked]
    traces = {path.name: path for path in run.traces_dir.rglob("*.jsonl")}
    assert len(traces) == len(run.records)
    for record in run.records:
        trace = traces[f"{record.episode}[{record.arm}-t{record.trial}].jsonl"]
        events = [json.loads(line) for line in trace.read_text().splitlines()]
        sessions = [e for e in events if e["kind"] == "session"]
        searches = [e for e in events if e["kind"] == "tool_call" and e["name"] == "memory_search"]
        assert sessions and len(searches) == len(sessions), record.nodeid
        assert record.model_calls == 2 * len(sessions), record.nodeid
    ledger = run.summary["run"]["model_calls"]["pastbench/sleep?latency_ms=1"]
    assert ledger["calls"] + ledger["cached"] == sum(r.model_calls for r in run.records)
