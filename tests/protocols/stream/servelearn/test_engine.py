"""The published turn rules and budgets."""

from __future__ import annotations

from pytest_pastbench.protocols.stream.servelearn.engine import (
    MSG_NO_CALL,
    TOOL_BUDGET,
    TURN_BUDGET,
    ToolCall,
    Turn,
    run_episode,
)
from pytest_pastbench.protocols.stream.servelearn.grading import grade
from pytest_pastbench.protocols.stream.servelearn.pitch import JudgeChecklist, ReferenceJudge

from .helpers import ScriptedAgent, call, scenarios

SCENARIOS = scenarios()
RETAIL, BANKING = SCENARIOS["retail_l1"], SCENARIOS["banking_l1"]
CANCEL = next(t for t in RETAIL.serving if t.task_id == "rfx_s1")
REFUSE = next(t for t in RETAIL.serving if t.task_id == "rfx_s2")
CHECKLIST = JudgeChecklist(ReferenceJudge())
CANCEL_ARGS = {"order_id": "#W1000002", "reason": "no longer needed"}


def reward(agent: ScriptedAgent, task=CANCEL, scenario=RETAIL) -> float:
    return grade(scenario, task, run_episode(agent, scenario, task), CHECKLIST).reward


def test_the_agent_gets_the_system_prompt_the_instruction_and_the_published_tools() -> None:
    agent = ScriptedAgent(call("cancel_pending_order", **CANCEL_ARGS), call("finish"))
    assert reward(agent) == 1.0
    messages, tools = agent.seen[0]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == RETAIL.environment.system_prompt
    assert messages[1]["content"] == CANCEL.instruction
    assert tools == RETAIL.environment.tools


def test_a_turn_with_several_calls_executes_none_of_them() -> None:
    both = Turn(calls=(ToolCall("a", "cancel_pending_order", '{"order_id": "#W1000002", "reason": "x"}'),
                       ToolCall("b", "finish", "{}")))  # fmt: skip
    agent = ScriptedAgent(both)
    episode = run_episode(agent, RETAIL, CANCEL)
    assert episode.steps[0]["kind"] == "multi_call"
    replies = [m for m in agent.seen[1][0] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in replies] == ["a", "b"]
    assert all("Nothing was executed" in m["content"] for m in replies)
    assert episode.world["orders"]["#W1000002"]["status"] == "pending"
    assert episode.finish == {}  # the scripted agent's next turn was a lone finish


def test_a_turn_without_a_call_gets_the_corrective_message() -> None:
    agent = ScriptedAgent(Turn(text="I think I will cancel it."))
    run_episode(agent, RETAIL, CANCEL)
    assert agent.seen[1][0][-1] == {"role": "user", "content": MSG_NO_CALL}


def test_finish_ends_the_episode_and_a_bad_finish_is_a_tool_error() -> None:
    refuse = call("finish", decision="refuse", reason="invalid_status")
    agent = ScriptedAgent(call("finish", decision="maybe"), refuse)
    episode = run_episode(agent, RETAIL, REFUSE)
    assert "must be one of ['refuse']" in episode.steps[0]["obs"]
    assert episode.finish == {"decision": "refuse", "reason": "invalid_status"} and len(agent.seen) == 2
    assert grade(RETAIL, REFUSE, episode, CHECKLIST).reward == 1.0


def test_the_tool_budget_answers_every_call_after_fifty_with_an_error() -> None:
    lookups = [call("get_order_details", order_id="#W1000002") for _ in range(TOOL_BUDGET + 1)]
    agent = ScriptedAgent(*lookups)
    episode = run_episode(agent, RETAIL, CANCEL)
    assert episode.tool_calls == TOOL_BUDGET
    assert episode.steps[TOOL_BUDGET]["obs"].startswith("Error: tool-call budget (50) exhausted")
    assert episode.finish == {}  # finish is exempt from the tool budget


def test_the_turn_budget_ends_an_episode_without_finish_and_it_scores_zero() -> None:
    agent = ScriptedAgent(*[Turn(text="thinking") for _ in range(TURN_BUDGET)])
    episode = run_episode(agent, RETAIL, CANCEL)
    assert (episode.turns, episode.ended_by, episode.finish) == (TURN_BUDGET, "turn_budget", None)
    assert grade(RETAIL, CANCEL, episode, CHECKLIST).reward == 0.0


def test_the_output_token_budget_ends_the_episode() -> None:
    agent = ScriptedAgent(*[Turn(text="long thoughts", output_tokens=100_000) for _ in range(5)])
    episode = run_episode(agent, RETAIL, CANCEL)
    assert (episode.turns, episode.ended_by, episode.finish) == (3, "token_budget", None)
