"""One published task's message sequence, as an agent of the project lives it in a session,
compared item by item with what the authors' protocol specifies (their docs/protocol.md and the
runner's messages, servelearnbench/agent.py): the system message, the user message, reasoning
passed back, raw observations, the corrective and length messages, the per-call output cap."""

from __future__ import annotations

import json
from typing import Any

from pytest_pastbench.agents.base import Budgets, HermesAgent
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.protocols.stream.servelearn.engine import episode_record
from pytest_pastbench.protocols.stream.servelearn.episode import toolbox
from pytest_pastbench.protocols.stream.servelearn.pitch import JudgeChecklist, ReferenceJudge
from pytest_pastbench.protocols.stream.servelearn.session import SessionTasks

from .helpers import scenarios

RETAIL = scenarios()["retail_l1"]
TASK = next(t for t in RETAIL.serving if t.task_id == "rfx_s1")  # cancel a gift-card order, window 0
ORDER = {"order_id": "#W1000002"}
# The published protocol's own words (servelearnbench/agent.py MSG_NO_ACTION, MSG_NO_ACTION_LENGTH,
# MSG_MULTI; the retail tools' neutral reason error).
NO_CALL = "No tool call was received. Act with exactly ONE tool call (call `finish` to end the episode)."
LENGTH = (
    "Your reply was cut off by the output limit before a tool call was produced. "
    "Act with exactly ONE tool call."
)
MULTI = (
    "not executed: 2 tool calls were received in one turn; only ONE call per turn is allowed. "
    "Nothing was executed — re-issue the calls one per turn."
)


def reply(
    *calls: tuple[str, dict[str, Any]], text: str = "", reasoning: str = "", cut: bool = False
) -> ModelReply:
    tool_calls = [{"id": f"{n}-{i}", "name": n, "arguments": json.dumps(a)} for i, (n, a) in enumerate(calls)]
    return ModelReply(
        content=text or None,
        tool_calls=tool_calls,
        completion_tokens=7,
        reasoning=reasoning or None,
        finish_reason="length" if cut else ("tool_calls" if calls else "stop"),
    )


SCRIPT = [
    reply(("get_order_details", ORDER), reasoning="Look the order up first."),
    reply(text="Let me think about the refund", cut=True),
    reply(("cancel_pending_order", {**ORDER, "reason": "changed my mind"}), text="Cancelling."),
    reply(text="Done, I think."),
    reply(("get_order_details", ORDER), ("finish", {})),
    reply(("cancel_pending_order", {**ORDER, "reason": "no longer needed"})),
    reply(("finish", {})),
]


class Recorder:
    model = "scripted"

    def __init__(self) -> None:
        self.script = list(SCRIPT)
        self.requests: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        self.requests.append((json.loads(json.dumps(messages)), dict(params)))
        return self.script.pop(0) if self.script else reply(text="OK")  # e.g. told its score


def test_a_published_task_is_lived_as_the_authors_protocol_specifies() -> None:
    model = Recorder()
    tasks = SessionTasks(RETAIL, HermesAgent(), model, Budgets(), JudgeChecklist(ReferenceJudge()))
    bulletin = RETAIL.window(TASK.window).oracle_bulletin
    episode, outcome = tasks.run_task(TASK, bulletin)
    assert len(model.requests) == len(SCRIPT) and outcome.reward == 1.0
    first, _ = model.requests[0]
    # the system message: the scenario's prompt, then what the method adds; the user message: the task
    assert first == [
        {"role": "system", "content": f"{RETAIL.environment.system_prompt}\n\n{bulletin}"},
        {"role": "user", "content": TASK.instruction},
    ]
    final, _ = model.requests[-1]
    lookup = toolbox(RETAIL, TASK).call("get_order_details", ORDER)
    assert final[2] == {
        "role": "assistant",
        "content": None,
        "reasoning_content": "Look the order up first.",  # reasoning passed back on later turns
        "tool_calls": [
            {"id": "get_order_details-0", "type": "function",
             "function": {"name": "get_order_details", "arguments": json.dumps(ORDER)}},
        ],
    }  # fmt: skip
    assert final[3] == {"role": "tool", "tool_call_id": "get_order_details-0", "content": lookup}  # raw
    assert final[5] == {"role": "user", "content": LENGTH}  # the reply cut at the output limit
    assert final[7]["content"] == "Error: invalid reason"  # neutral: no list of valid reasons
    assert final[9] == {"role": "user", "content": NO_CALL}
    assert [m["content"] for m in final[11:13]] == [MULTI, MULTI]
    assert [m["role"] for m in final] == [
        "system", "user", "assistant", "tool", "assistant", "user", "assistant", "tool",
        "assistant", "user", "assistant", "tool", "tool", "assistant", "tool",
    ]  # fmt: skip
    # every call with the published per-call cap and the provider's own temperature
    assert all(
        params.get("max_tokens") == 65_536 and "temperature" not in params for _, params in model.requests
    )
    # the learner's record keeps each step's thought and reply beside its action and observation
    record = episode_record(TASK, episode, outcome.reward)
    assert "[step 1]\n  thought: Look the order up first.\n  action: get_order_details(" in record
    assert "  replied: Let me think about the refund\n  action: NONE [no_call]" in record
    assert "  replied: Cancelling.\n  action: cancel_pending_order(" in record
    assert "  observation: Error: invalid reason\n" in record and record.endswith("Score: 100/100.")


def test_an_agent_without_a_system_message_reads_it_at_the_head_of_its_first_turn() -> None:
    class Plain(HermesAgent):
        takes_system_prompt = False

    model = Recorder()
    model.script = [reply(("finish", {}))]
    SessionTasks(RETAIL, Plain(), model, Budgets(), JudgeChecklist(ReferenceJudge())).run_task(TASK, "")
    messages, _ = model.requests[0]
    assert messages[0]["content"].startswith("You are Hermes")
    assert messages[1]["content"] == f"{RETAIL.environment.system_prompt}\n\n{TASK.instruction}"


def test_a_reply_cut_at_the_limit_runs_none_of_its_calls_not_even_a_memory_write() -> None:
    from pytest_pastbench.protocols.stream.servelearn.session import store_folder

    model = Recorder()
    model.script = [reply(("memory_write", {"text": "half a thought"}), cut=True), reply(("finish", {}))]
    with store_folder(True) as root:
        tasks = SessionTasks(RETAIL, HermesAgent(), model, Budgets(), JudgeChecklist(ReferenceJudge()), root)
        tasks.run_task(TASK, "")
        assert tasks.store is not None and tasks.store.snapshot() == []
    answered = model.requests[1][0][-1]
    assert answered["role"] == "tool" and answered["content"] == f"not executed: {LENGTH}"
