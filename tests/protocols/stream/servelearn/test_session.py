"""The session path: the project's Hermes agent, driven by the session runner, serves the fixture
scenarios under the published turn rules; nothing of the ``evaluator`` reaches it (messages,
tool schemas, tool results, its store, the session traces)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.agents.base import Budgets, HermesAgent
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.protocols.stream.servelearn import engine
from pytest_pastbench.protocols.stream.servelearn.engine import MSG_NO_CALL, TURN_BUDGET
from pytest_pastbench.protocols.stream.servelearn.pitch import JudgeChecklist, ReferenceJudge
from pytest_pastbench.protocols.stream.servelearn.rag import RagLearner
from pytest_pastbench.protocols.stream.servelearn.session import SessionTasks, store_folder

from .helpers import scenarios
from .test_no_leak import evaluator_only

SCENARIOS = scenarios()
RETAIL = SCENARIOS["retail_l1"]
CANCEL = next(t for t in RETAIL.serving if t.task_id == "rfx_s1")
Policy = Callable[[list[dict[str, Any]], list[dict[str, Any]]], ModelReply]


def calls(*pairs: tuple[str, dict[str, Any]]) -> ModelReply:
    tool_calls = [{"id": f"c{i}", "name": n, "arguments": json.dumps(a)} for i, (n, a) in enumerate(pairs)]
    return ModelReply(content=None, tool_calls=tool_calls, prompt_tokens=10, completion_tokens=5)


class ScriptedModel:
    """A ``ModelClient`` that answers by ``policy`` and keeps every request it got."""

    model = "scripted"

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.requests: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]] = []

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **params: Any
    ) -> ModelReply:
        self.requests.append((json.loads(json.dumps(messages)), list(tools or [])))
        return self.policy(messages, list(tools or []))

    def users(self) -> list[str]:
        return [str(m[-1]["content"]) for m, _ in self.requests if m[-1]["role"] == "user"]


def learner_policy(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
    """Looks the order up, finishes; told its score, stores it; reads its memory on a new task."""
    last = messages[-1]
    names = {t["function"]["name"] for t in tools}
    if last["role"] == "user" and str(last["content"]).startswith("Score: "):
        return calls(("memory_write", {"text": f"last task: {last['content']}"}))
    if last["role"] == "tool" and "memory_write" in json.dumps(messages[-2]):
        return ModelReply(content="Noted.")
    steps = sum(m["role"] == "tool" for m in messages)
    if steps == 0 and "memory_search" in names:
        return calls(("memory_search", {"query": "last task"}))
    text = next(str(m["content"]) for m in messages if m["role"] == "user")
    if "#W" in text and steps <= 1:
        return calls(("get_order_details", {"order_id": "#W" + text.split("#W", 1)[1][:7]}))
    finish = {"pitch": "A fine product."} if "pitch" in json.dumps(tools) else {}
    return calls(("finish", finish))


def run(
    scenario: Any, policy: Policy, harness: str, tmp: Path | None = None
) -> tuple[ScriptedModel, SessionTasks, list[Any]]:
    model = ScriptedModel(policy)
    checklist = JudgeChecklist(ReferenceJudge())
    with store_folder(harness == "own") as root:
        tasks = SessionTasks(scenario, HermesAgent(), model, Budgets(), checklist, root)
        outcomes = engine.run(
            scenario,
            tasks.run_task,
            learner=RagLearner(block=1) if harness == "rag" else None,
            oracle=harness == "oracle",
            serving=harness in ("own", "rag"),
        )
        store = tasks.store.snapshot() if tasks.store is not None else []
        if tmp is not None:
            (tmp / "store.json").write_text(json.dumps([e.model_dump() for e in store]))
    return model, tasks, outcomes


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("harness", ["blind", "oracle", "own", "rag"])
def test_nothing_of_the_evaluator_reaches_a_session_agent(name: str, harness: str, tmp_path: Path) -> None:
    scenario = SCENARIOS[name]
    model, tasks, outcomes = run(scenario, learner_policy, harness, tmp_path)
    learns = harness in ("own", "rag")
    assert len(outcomes) == len(scenario.tasks() if learns else scenario.test)
    results = [c.model_dump_json() for s in tasks.sessions for c in s.tool_calls]
    assert any('"get_order_details"' in r or '"finish"' in r for r in results)  # tools did run
    seen = "\n".join(
        [
            json.dumps(model.requests, ensure_ascii=False),  # escaped, and each text verbatim
            *(str(m.get("content")) for messages, _ in model.requests for m in messages),
            *results,
            (tmp_path / "store.json").read_text(),
        ]
    )
    assert sorted(s for s in evaluator_only(scenario) if s in seen) == []
    tested = {t.window for t in scenario.test}
    bulletins = [w.oracle_bulletin for w in scenario.environment.windows if w.window in tested]
    assert all(b in seen for b in bulletins) == (harness == "oracle")
    assert any(b in seen for b in bulletins) == (harness == "oracle")


def test_the_score_line_is_all_the_own_harness_hears_and_test_tasks_leave_the_store_alone() -> None:
    model, tasks, outcomes = run(RETAIL, learner_policy, "own")
    scores = [u for u in model.users() if u.startswith("Score: ")]
    assert scores == [f"Score: {o.reward * 100:g}/100." for o in outcomes if o.split == "serving"]
    assert tasks.store is not None
    entries = tasks.store.snapshot()
    assert len(entries) == len(RETAIL.serving)  # one note per serving task; the test tasks' dropped
    assert {s.stage for s in tasks.sessions} == {"serving", "test"}


def test_a_turn_with_several_calls_executes_none_and_a_turn_without_one_is_corrected() -> None:
    script = iter(
        [
            calls(
                ("cancel_pending_order", {"order_id": "#W1000002", "reason": "no longer needed"}),
                ("finish", {}),
            ),
            ModelReply(content="I would cancel it."),
            calls(("cancel_pending_order", {"order_id": "#W1000002", "reason": "no longer needed"})),
            calls(("finish", {})),
        ]
    )
    model = ScriptedModel(lambda messages, tools: next(script))
    tasks = SessionTasks(RETAIL, HermesAgent(), model, Budgets(), JudgeChecklist(ReferenceJudge()))
    episode, outcome = tasks.run_task(CANCEL, "")
    first = tasks.sessions[0].tool_calls[:2]
    assert [c.ok for c in first] == [False, False] and all(
        "Nothing was executed" in (c.error or "") for c in first
    )
    assert model.requests[2][0][-1] == {"role": "user", "content": MSG_NO_CALL}
    assert (episode.turns, episode.finish, outcome.reward) == (4, {}, 1.0)
    assert len(model.requests) == 4  # after finish the session ends without another model call


def test_the_turn_budget_ends_a_session_that_never_finishes() -> None:
    model = ScriptedModel(lambda messages, tools: ModelReply(content="thinking"))
    tasks = SessionTasks(RETAIL, HermesAgent(), model, Budgets(), JudgeChecklist(ReferenceJudge()))
    episode, outcome = tasks.run_task(CANCEL, "")
    assert (episode.turns, episode.ended_by, outcome.reward) == (TURN_BUDGET, "turn_budget", 0.0)
    assert len(model.requests) == TURN_BUDGET
