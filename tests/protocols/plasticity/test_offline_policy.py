"""The plasticity reference behaviour (offline/plasticity_policy.py), decision by decision: it
sees only messages and tools; blind proposes nothing, recall keeps feedback verbatim, curator
turns stated rules into checked tools and runs them."""

from __future__ import annotations

import json
from typing import Any

from pytest_pastbench.protocols.past.offline_policy import POLICIES
from pytest_pastbench.protocols.plasticity.offline_policy import (
    CHESS_TOOL,
    chess_learned,
    chess_tool_code,
    decide,
    handles,
)

ACTING = {"memory_search", "memory_read", "skill_search", "skill_read", "tool_list", "tool_read", "tool_run"}
REFLECTION = ACTING | {"propose_note", "propose_skill", "propose_tool"}
REQUEST = (
    "What shipping charge applies to a 10 kg parcel sent 200 km?\nReply with the figure asked for (a number)."
)
PROMPT = (
    "Reflection after train batch 0. ...\n\n### Episode train000\nRequest: "
    + REQUEST
    + "\nYour answer: My estimate: 10\nFeedback: Score: 0/100. Expected answer: 21.50. "
    "Rule (shipping charges): answer = 3.5 + 0.8 * weight + 0.05 * distance, "
    "with weight, distance given in this order in the request."
)


def conversation(user: str, *steps: tuple[str, dict[str, Any], Any]) -> list[dict[str, Any]]:
    """A user turn followed by tool calls and their results, as the agent loop builds it."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": user}]
    for i, (name, args, result) in enumerate(steps):
        call = {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": json.dumps(result)})
    return messages


def test_routing_is_by_the_artifact_tools() -> None:
    assert handles(ACTING) and not handles({"memory_search", "notes_list"})


def test_blind_never_touches_the_inventory() -> None:
    assert decide(POLICIES["blind"], conversation(PROMPT), REFLECTION) == {"content": "No changes."}
    assert decide(POLICIES["blind"], conversation(REQUEST), ACTING) == {"content": "My estimate: 10"}


def test_recall_keeps_feedback_verbatim_and_answers_from_it() -> None:
    calls = decide(POLICIES["recall"], conversation(PROMPT), REFLECTION)["tool_calls"]
    assert [name for name, _ in calls] == ["propose_note"] and "Expected answer: 21.50" in calls[0][1]["text"]
    note = {"id": "m0001", "text": calls[0][1]["text"], "tags": []}
    answer = decide(POLICIES["recall"], conversation(REQUEST, ("memory_search", {}, [note])), ACTING)
    assert answer == {"content": "From my notes: 21.50"}  # the old answer, not the rule


def test_curator_turns_the_rule_into_a_checked_tool_and_runs_it() -> None:
    curator = POLICIES["curator"]
    assert decide(curator, conversation(PROMPT), REFLECTION)["tool_calls"] == [("tool_list", {})]
    messages = conversation(PROMPT, ("tool_list", {}, []))
    assert decide(curator, messages, REFLECTION)["tool_calls"][0][0] == "propose_note"
    messages = conversation(PROMPT, ("tool_list", {}, []), ("propose_note", {}, {"accepted": "note:m0001"}))
    name, args = decide(curator, messages, REFLECTION)["tool_calls"][0]
    assert (name, args["name"]) == ("propose_tool", "shipping_charges")
    assert json.loads(args["examples"]) == [{"input": REQUEST, "expected": "21.50"}]
    namespace: dict[str, Any] = {}
    exec(args["code"], namespace)  # noqa: S102 - the policy's own generated code, checked here
    assert namespace["run"]("a 2 kg parcel sent 100 km") == "10.10"
    tools = [{"name": "shipping_charges", "description": args["description"]}]
    step = decide(curator, conversation(REQUEST, ("tool_list", {}, tools)), ACTING)
    assert step["tool_calls"] == [("tool_run", {"name": "shipping_charges", "input": REQUEST})]
    done = conversation(REQUEST, ("tool_list", {}, tools), ("tool_run", {}, {"output": "21.50"}))
    assert decide(curator, done, ACTING) == {"content": "Using my shipping_charges tool: 21.50"}


AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
CHESS_FEEDBACK = (
    "Reflection after train batch 0.\n\n### Episode train000\nOpening: e4 e5\nMoves: e2e4 e7e5 a2a3\n"
    "Feedback: Chess game train000 (you: white, opponent: 1 nodes/move): loss: adjudicated -400 cp ≤ −300 "
    f"after 16 plies; score 0/100.\n- FEN {AFTER_E4_E5}: you played a2a3 (lost 120 centipawns); "
    "the engine preferred d2d4."
)


def test_curator_keeps_the_move_picker_that_agrees_with_the_engines_feedback() -> None:
    messages = conversation(CHESS_FEEDBACK, ("tool_list", {}, []))
    (name, args), (note_call, note) = decide(POLICIES["curator"], messages, REFLECTION)["tool_calls"]
    assert (name, args["name"], note_call) == ("propose_tool", CHESS_TOOL, "propose_note")
    # of the plain picker and its one-step extensions only centre control plays d2d4 here
    config, lessons = chess_learned(args["code"])
    assert config == {"centre": True, "depth": 1, "quiesce": False}
    assert lessons == [(AFTER_E4_E5, "a2a3", "d2d4")]  # the picker carries what it was checked against
    assert json.loads(args["examples"]) == [{"input": AFTER_E4_E5}]
    assert "for 2 points in the 1 positions" in note["text"] and note["tags"] == ["chess"]
    namespace: dict[str, Any] = {}
    exec(args["code"], namespace)  # noqa: S102 - the policy's own generated code, checked here
    assert namespace["run"](f"FEN: {AFTER_E4_E5}") == "d2d4"


def test_curator_reads_its_picker_back_and_changes_nothing_that_does_not_help() -> None:
    code = chess_tool_code({"centre": True, "depth": 1, "quiesce": False}, [(AFTER_E4_E5, "a2a3", "d2d4")])
    tools = [{"name": CHESS_TOOL, "description": "…"}]
    messages = conversation(
        CHESS_FEEDBACK, ("tool_list", {}, tools), ("tool_read", {"name": CHESS_TOOL}, {"code": code})
    )
    assert decide(POLICIES["curator"], messages, REFLECTION) == {"content": "Proposed: nothing new"}
    step = decide(POLICIES["curator"], conversation(CHESS_FEEDBACK, ("tool_list", {}, tools)), REFLECTION)
    assert step["tool_calls"] == [("tool_read", {"name": CHESS_TOOL})]  # what it learned lives in the tool


def test_curator_writes_a_chess_tool_after_its_first_games() -> None:
    prompt = "Reflection after train batch 0.\n\n### Episode train000\nFeedback: Chess game train000: loss"
    messages = conversation(prompt, ("tool_list", {}, []))
    name, args = decide(POLICIES["curator"], messages, REFLECTION)["tool_calls"][0]
    assert (name, args["name"]) == ("propose_tool", CHESS_TOOL) and "import chess" in args["code"]
