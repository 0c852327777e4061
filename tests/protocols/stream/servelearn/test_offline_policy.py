"""The offline ``pastbench/<policy>`` models on a published scenario: they follow the turn rules
(one call per turn, ``finish``), so no task spins to the turn budget, and what they submit
follows the rules in view, so the Oracle setting scores above Blind where the rules can be read
without a language model (Pitch's tastes)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_pastbench.agents.base import Budgets, HermesAgent
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.protocols.stream.protocol import StreamOfflinePolicy
from pytest_pastbench.protocols.stream.servelearn import engine
from pytest_pastbench.protocols.stream.servelearn.offline_policy import compose, decide
from pytest_pastbench.protocols.stream.servelearn.pitch import JudgeChecklist, ReferenceJudge
from pytest_pastbench.protocols.stream.servelearn.rag import RagLearner
from pytest_pastbench.protocols.stream.servelearn.scoring import Row, setting_scores
from pytest_pastbench.protocols.stream.servelearn.session import SessionTasks, store_folder

from .helpers import scenarios

SCENARIOS = scenarios()


class OfflineModel:
    """The offline policy as the litellm provider asks it (the protocols' dispatch), in process."""

    model = "pastbench/recall"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        self.calls += 1
        policy = StreamOfflinePolicy()
        assert policy.handles(messages, tools or [])
        decision = policy.decide(None, messages, tools or [])
        if "tool_calls" in decision:
            calls = [
                {"id": f"c{len(messages)}-{i}", "name": n, "arguments": json.dumps(a)}
                for i, (n, a) in enumerate(decision["tool_calls"])
            ]
            return ModelReply(content=None, tool_calls=calls, completion_tokens=5)
        return ModelReply(content=decision["content"], completion_tokens=1)


def run(name: str, harness: str) -> tuple[OfflineModel, SessionTasks, list[Any], dict[str, Any]]:
    scenario, model = SCENARIOS[name], OfflineModel()
    with store_folder(harness == "own") as root:
        tasks = SessionTasks(
            scenario, HermesAgent(), model, Budgets(), JudgeChecklist(ReferenceJudge()), root
        )
        outcomes = engine.run(
            scenario,
            tasks.run_task,
            learner=RagLearner() if harness == "rag" else None,
            oracle=harness == "oracle",
            serving=harness in ("own", "rag"),
        )
    rows = [Row(o.scenario, o.split, o.category, o.reward) for o in outcomes]
    return model, tasks, outcomes, setting_scores(rows)[name]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("harness", ["blind", "oracle", "own", "rag"])
def test_every_task_ends_by_finish_in_one_turn(name: str, harness: str) -> None:
    model, tasks, outcomes, _ = run(name, harness)
    assert all(o.detail.get("ended_by", "finish") == "finish" for o in outcomes)
    # one model call per task (its finish), and under "own" one more: "OK" to the score line
    serving = sum(1 for o in outcomes if o.split == "serving")
    assert model.calls == len(outcomes) + (serving if harness == "own" else 0)


def test_the_oracle_setting_scores_well_above_blind_on_pitch() -> None:
    blind, oracle = run("pitch_l1", "blind")[3], run("pitch_l1", "oracle")[3]
    assert oracle["hidden"] >= blind["hidden"] + 20, (blind, oracle)
    # RAG's retrieved cases quote earlier pitches: records, not rules, so it pitches as Blind does
    assert run("pitch_l1", "rag")[3] == blind


def test_a_text_finish_says_what_the_rules_want_and_never_what_they_rule_out() -> None:
    # A made-up domain, not the published wording: the rule is generic.
    request = "Describe the room.\n- sea view\n- noisy street\n- free breakfast\n- tiny bathroom"
    rules = "Guests value a sea view and a free breakfast.\nNever mention a noisy street."
    assert compose(request, rules) == "Sea view. Free breakfast."
    assert compose(request, "") == "Sea view. Noisy street. Free breakfast. Tiny bathroom."  # Blind says all
    assert compose(request, "Avoid: tiny bathroom.") == "Sea view. Noisy street. Free breakfast."


def test_a_finish_without_text_arguments_is_submitted_empty_and_after_it_the_reply_is_text() -> None:
    tools = [
        {
            "type": "function",
            "function": {"name": "finish", "parameters": {"type": "object", "properties": {}}},
        }
    ]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "do it"},
    ]
    assert decide(messages, tools) == {"tool_calls": [("finish", {})]}
    done = [*messages, {"role": "tool", "tool_call_id": "x", "content": '{"accepted": true}'}]
    assert decide([*done, {"role": "user", "content": "Score: 0/100."}], tools) == {"content": "OK"}
