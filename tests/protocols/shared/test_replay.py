"""What the offline policies build on: the turn read from the conversation alone, and the replay of
a fixed plan over the results of the calls already made (Emit for the ones still to make)."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_pastbench.agents.mechanisms import E1_HELD, E3_OFFER, E4_SEND_BACK, E5_CLOSE, RUNTIME_PREFIX
from pytest_pastbench.protocols.shared.replay import (
    POLICIES,
    Emit,
    Replay,
    Turn,
    current_turn,
    is_held,
    note_entries,
    offered_tools,
    runtime_reply,
)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def calls(*named: tuple[str, str]) -> dict[str, Any]:
    """An assistant message calling tools: (call id, tool name) each."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": i, "function": {"name": n, "arguments": "{}"}} for i, n in named],
    }


def result(call_id: str, content: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def test_the_three_policies_differ_in_store_use_and_curation() -> None:
    assert [(p.uses_store, p.curates) for p in POLICIES.values()] == [
        (False, False),
        (True, False),
        (True, True),
    ]
    assert all(name == policy.name for name, policy in POLICIES.items())


def test_offered_tools_reads_names_and_parameters_of_the_request() -> None:
    tools = [
        {
            "type": "function",
            "function": {"name": "memory_write", "parameters": {"properties": {"text": {}}}},
        },
        {"type": "function", "function": {"name": "ping"}},  # no parameters
        {"type": "function", "function": {"name": 7}},  # not a name: skipped
        "garbage",
    ]
    offered = offered_tools(tools)
    assert offered.names == {"memory_write", "ping"}
    assert offered.accepts("memory_write", "text") and not offered.accepts("memory_write", "body")
    assert not offered.accepts("absent", "text")
    bare = offered_tools({"memory_write"})
    assert bare.names == {"memory_write"} and not bare.accepts("memory_write", "text")
    assert offered_tools(None).names == frozenset()


def test_the_replay_feeds_done_results_in_order_then_emits_the_rest() -> None:
    replay = Replay([("search", {"hits": 1}), ("read", "body")], {"search", "read", "write"})
    assert replay.call("search", {"q": "x"}) == {"hits": 1}
    assert replay.call("absent", {}) is None  # not offered: no call, no result
    with pytest.raises(Emit) as emitted:
        replay.batch([("read", {"id": 1}), ("write", {"text": "t"})])
    # The read already ran: only the write is still to make.
    assert emitted.value.calls == [("write", {"text": "t"})]
    assert replay.cursor == 1  # an emit consumes nothing


def test_a_batch_of_calls_not_offered_is_empty_and_a_fresh_turn_emits_all() -> None:
    replay = Replay([], {"write"})
    assert replay.batch([("read", {})]) == [] and not replay.has("read") and replay.has("write")
    with pytest.raises(Emit) as emitted:
        replay.batch([("read", {}), ("write", {"a": 1}), ("write", {"a": 2})])
    assert emitted.value.calls == [("write", {"a": 1}), ("write", {"a": 2})]


def test_the_turn_is_the_last_user_request_and_the_calls_after_it() -> None:
    messages = [
        {"role": "system", "content": "be brief"},
        user("first question"),
        calls(("a", "memory_search")),
        result("a", '["old"]'),
        {"role": "assistant", "content": "answer one"},
        user("second question"),
        calls(("b", "memory_search"), ("c", "memory_read")),
        result("c", "not json"),
        result("b", '{"hits": []}'),
        calls(("d", "memory_write")),  # no result yet
    ]
    turn = current_turn(messages)
    assert turn.user_text == "second question"
    assert turn.session_user_texts == ["first question", "second question"]
    assert turn.done == [("memory_search", {"hits": []}), ("memory_read", "not json"), ("memory_write", None)]
    assert not (turn.gated or turn.closing) and turn.offered_skills is None
    assert runtime_reply(turn) is None


def test_tool_calls_as_objects_read_like_dicts() -> None:
    call = SimpleNamespace(id="x", function=SimpleNamespace(name="memory_search", arguments="{}"))
    messages = [user("q"), {"role": "assistant", "tool_calls": [call]}, result("x", "[1, 2]")]
    assert current_turn(messages).done == [("memory_search", [1, 2])]


def test_runtime_messages_are_not_the_users_and_e4_e5_start_a_new_round() -> None:
    messages = [
        user("what is the code?"),
        calls(("a", "memory_search")),
        result("a", "[]"),
        {"role": "assistant", "content": "it is 41"},
        user(f"{E4_SEND_BACK} check your memory first"),
        calls(("b", "memory_read")),
        result("b", '{"text": "the code is 42"}'),
    ]
    turn = current_turn(messages)
    assert turn.user_text == "what is the code?" and len(turn.session_user_texts) == 1
    assert turn.gated and turn.draft == "it is 41"
    assert turn.done == [("memory_read", {"text": "the code is 42"})]  # only the calls after E4
    assert runtime_reply(turn) == "it is 41"
    closing = current_turn([*messages, {"role": "assistant", "content": "x"}, user(f"{E5_CLOSE} over")])
    assert closing.closing and closing.done == [] and runtime_reply(closing) == "DONE"


def test_e3_offered_skills_are_read_from_the_runtimes_system_message() -> None:
    skills = [{"id": "s1", "text": "how to deploy"}, {"id": "s2"}, "loose"]
    offer = {"role": "system", "content": f"{E3_OFFER} (apply them if they fit):\n{json.dumps(skills)}"}
    assert current_turn([user("deploy it"), offer]).offered_skills == [{"id": "s1", "text": "how to deploy"}]
    unreadable = {"role": "system", "content": f"{E3_OFFER}:\nnot json"}
    assert current_turn([user("q"), unreadable]).offered_skills == []


def test_an_empty_conversation_is_an_empty_turn() -> None:
    turn = current_turn([])
    assert (turn.user_text, turn.done, turn.session_user_texts) == ("", [], [])
    only_runtime = current_turn([user(f"{RUNTIME_PREFIX} note")])
    assert only_runtime.user_text == "" and only_runtime.session_user_texts == []


def test_note_entries_and_held_calls() -> None:
    assert note_entries([{"text": "a"}, {"id": 1}, 3]) == [{"text": "a"}]
    assert note_entries({"text": "a"}) == [] and note_entries(None) == []
    assert is_held({"held": E1_HELD, "entries": []})
    assert not is_held({"held": "something else"}) and not is_held([E1_HELD])


def test_an_ordinary_turn_gets_no_runtime_reply() -> None:
    assert runtime_reply(Turn(user_text="q", done=[], session_user_texts=["q"], draft="unused")) is None
