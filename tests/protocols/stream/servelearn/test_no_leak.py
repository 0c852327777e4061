"""``evaluator`` fields never reach an agent or a learner; the Oracle gets its window's bulletin.

Everything an agent receives (messages, tool schemas) and everything a learner receives (the
instruction it is asked for context on, the episode records) is captured over whole fixture
streams, and scanned for what only the evaluator and windows.json hold.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_pastbench.protocols.stream.servelearn.engine import Experience, Turn, run_scenario
from pytest_pastbench.protocols.stream.servelearn.rag import RagLearner
from pytest_pastbench.protocols.stream.servelearn.schema import Scenario

from .helpers import call, scenarios

SCENARIOS = scenarios()


class Recorder:
    """An agent that reads the first order or case it finds, then finishes; it keeps what it saw."""

    def __init__(self) -> None:
        self.received: list[str] = []

    def turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Turn:
        # both as JSON and as the raw message texts, so an escaped or a verbatim copy is caught
        self.received.append(json.dumps([messages, tools], ensure_ascii=False))
        self.received.extend(str(m.get("content")) for m in messages)
        if len(messages) == 2 and "#W" in messages[1]["content"]:
            order = "#W" + messages[1]["content"].split("#W", 1)[1][:7]
            return call("get_order_details", order_id=order)
        if len(messages) == 2 and "pitch" in json.dumps(tools):
            return call("finish", pitch="A fine product.")
        return call("finish")


class Learner:
    def __init__(self) -> None:
        self.contexts: list[str] = []
        self.records: list[str] = []

    def context(self, instruction: str) -> str:
        self.contexts.append(instruction)
        return "remembered: " + str(len(self.records))

    def update(self, experience: Experience) -> None:
        self.records.append(json.dumps(experience.__dict__, ensure_ascii=False))
        self.records.append(experience.record)


def evaluator_only(scenario: Scenario) -> set[str]:
    """Strings only the evaluator holds: families, customer keys, audit notes, the dumps themselves."""
    found = {"EVAL-SECRET-", "fully_specified", '"slice"', '"evaluator"'}
    for task in scenario.tasks():
        found.add(task.evaluator.family or "")
        found.add(json.dumps(task.evaluator.model_dump(), ensure_ascii=False))
        found.add(str(task.evaluator.metadata.get("customer_key") or task.evaluator.family))
    return {s for s in found if s}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("oracle", [False, True])
def test_nothing_of_the_evaluator_reaches_the_agent_or_the_learner(name: str, oracle: bool) -> None:
    scenario = SCENARIOS[name]
    agent, learner = Recorder(), Learner()
    outcomes = run_scenario(scenario, agent, learner=learner, oracle=oracle)
    assert len(outcomes) == len(scenario.tasks())
    seen = "\n".join([*agent.received, *learner.contexts, *learner.records])
    leaked = sorted(s for s in evaluator_only(scenario) if s in seen)
    assert leaked == []
    bulletins = [w.oracle_bulletin for w in scenario.environment.windows]
    if oracle:
        assert all(b in seen for b in bulletins)
    else:
        assert not any(b in seen for b in bulletins)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_oracle_sees_only_the_active_windows_bulletin(name: str) -> None:
    scenario = SCENARIOS[name]
    agent = Recorder()
    run_scenario(scenario, agent, oracle=True)
    by_window = {w.window: w.oracle_bulletin for w in scenario.environment.windows}
    dumps = [json.loads(r) for r in agent.received if r.startswith("[[")]
    firsts = [messages[0]["content"] for messages, _ in dumps if len(messages) == 2]
    order = [t.window for w in sorted(by_window) for t in scenario.test if t.window == w]  # no serving
    assert len(firsts) == len(order)
    for system, window in zip(firsts, order, strict=True):
        assert system.endswith(by_window[window])
        assert all(b not in system for w, b in by_window.items() if w != window)


def test_a_learner_hears_only_serving_tasks_and_only_the_score_line() -> None:
    scenario = SCENARIOS["retail_l1"]
    learner = Learner()
    run_scenario(scenario, Recorder(), learner=learner)
    records = learner.records[1::2]
    assert len(records) == len(scenario.serving)
    assert [r.splitlines()[-1] for r in records] == ["Score: 0/100."] * len(scenario.serving)
    test_instructions = [t.instruction for t in scenario.test]
    assert not any(i in r for i in test_instructions for r in records)
    # the learner was asked for context before every task, serving and test, in stream order
    assert len(learner.contexts) == len(scenario.tasks())


def test_the_scan_catches_an_evaluator_string_that_does_reach_the_agent() -> None:
    scenario = SCENARIOS["banking_l1"]
    family = scenario.serving[0].evaluator.family or ""
    environment = scenario.environment.model_copy(update={"system_prompt": f"hint: {family}"})
    leaky = scenario.model_copy(update={"environment": environment})
    agent = Recorder()
    run_scenario(leaky, agent)
    seen = "\n".join(agent.received)
    assert [s for s in evaluator_only(scenario) if s in seen] == [family]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_nor_through_the_rag_learners_past_cases(name: str) -> None:
    scenario = SCENARIOS[name]
    agent = Recorder()
    run_scenario(scenario, agent, learner=RagLearner(block=1))
    seen = "\n".join(agent.received)
    assert "# Past cases" in seen  # the learner did put cases in front of the agent
    assert sorted(s for s in evaluator_only(scenario) if s in seen) == []
