"""pastbench-agent/1 messages: what the agent may send, validated strictly."""

from __future__ import annotations

import json

import pytest

from pytest_pastbench.agents.external.protocol import (
    AnswerMessage,
    SessionStart,
    ToolCallMessage,
    encode,
    parse_agent_line,
)
from pytest_pastbench.errors import ProtocolViolation


def line(value: object) -> bytes:
    return json.dumps(value).encode() + b"\n"


def test_valid_agent_messages_parse() -> None:
    call = parse_agent_line(line({"type": "tool_call", "id": "c1", "name": "notes_list"}), 1)
    assert call == ToolCallMessage(type="tool_call", id="c1", name="notes_list", arguments={})
    as_text = parse_agent_line(
        line({"type": "tool_call", "id": "c2", "name": "x", "arguments": '{"a": 1}'}), 2
    )
    assert as_text.arguments == '{"a": 1}'  # a JSON string, as OpenAI tool calls carry it
    assert parse_agent_line(line({"type": "answer", "content": "ok"}), 3) == AnswerMessage(
        type="answer", content="ok"
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"hello\n", "line 4 is not JSON"),
        (b"\xff\xfe\n", "line 4 is not JSON"),
        (line([1, 2]), "line 4 breaks pastbench-agent/1"),
        (line({"type": "answer"}), "answer.content: Field required"),
        (
            line({"type": "answer", "content": "a", "extra": 1}),
            "answer.extra: Extra inputs are not permitted",
        ),
        (line({"type": "tool_call", "id": "", "name": "x"}), "tool_call.id: String should have at least 1"),
        (line({"type": "tool_call", "id": "c", "name": "x", "arguments": 3}), "tool_call.arguments"),
        (line({"type": "shutdown"}), "does not match any of the expected tags"),
    ],
)
def test_anything_else_is_a_protocol_violation_that_says_what(raw: bytes, expected: str) -> None:
    with pytest.raises(ProtocolViolation, match=expected):
        parse_agent_line(raw, 4)


def test_harness_messages_are_one_json_line_with_the_version() -> None:
    start = SessionStart.model_validate(
        {
            "session": {"index": 0, "stage": "learn", "turns": 1},
            "model": {
                "base_url": "http://127.0.0.1:1/v1",
                "anthropic_base_url": "http://127.0.0.1:1",
                "api_key": "k",
                "name": "m",
            },
            "tools": [],
            "budgets": {"tool_calls": 50, "wall_s": 300, "max_output_tokens": 8192, "temperature": 0},
            "store_dir": "/s",
        }
    )
    data = encode(start)
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert json.loads(data)["protocol"] == "pastbench-agent/1" and json.loads(data)["type"] == "session_start"
