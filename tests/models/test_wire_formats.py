"""The gateway's chat-completions wire format, without a server: what is refused, the answer's
body, and a stream that reassembles to that body. (The Responses and Messages formats go through
litellm's translations; tests/models/test_gateway_apis.py drives all three over HTTP.)"""

from __future__ import annotations

import json

import pytest

from pytest_pastbench.errors import Unsupported
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.models.wire_formats import (
    DELTA_CHARS,
    ChatApi,
    error_body,
    models_body,
    new_response_id,
    sse,
)

MESSAGES = [{"role": "user", "content": "hi"}]
CALL = {"id": "call_1", "name": "memory_write", "arguments": json.dumps({"text": "x" * (3 * DELTA_CHARS)})}


def chunks(stream: list[bytes]) -> list[dict | str]:
    out: list[dict | str] = []
    for event in stream:
        assert event.startswith(b"data: ") and event.endswith(b"\n\n"), event
        data = event[len(b"data: ") : -2].decode()
        out.append(data if data == "[DONE]" else json.loads(data))
    return out


def test_parameters_a_single_text_answer_cannot_honour_are_refused() -> None:
    with pytest.raises(Unsupported, match="POST /v1/chat/completions does not support parameter 'n'=2"):
        ChatApi().parse({"model": "m", "messages": MESSAGES, "n": 2})
    request = ChatApi().parse(
        {"model": "m", "messages": MESSAGES, "n": 1, "temperature": 0, "stream": True,
         "stream_options": {"include_usage": True}}
    )  # fmt: skip
    assert (request.model, request.stream, request.include_usage) == ("m", True, True)
    assert request.params == {"n": 1, "temperature": 0}


def test_the_body_carries_the_answer_usage_and_the_ledger() -> None:
    request = ChatApi().parse({"model": "m", "messages": MESSAGES})
    reply = ModelReply(content=None, tool_calls=[CALL], prompt_tokens=7, completion_tokens=3, cost_usd=None)
    body = ChatApi().body(request, reply, cached=True, response_id="chatcmpl-1")
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    assert body["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "memory_write"
    assert body["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    assert body["pastbench"] == {"cost_usd": None, "cached": True, "waited_s": 0.0}
    cut = ChatApi().body(request, ModelReply(content="a", finish_reason="length"), False, "chatcmpl-2")
    assert cut["choices"][0]["finish_reason"] == "length"  # the provider's own reason is kept


@pytest.mark.parametrize("include_usage", [False, True])
def test_a_stream_reassembles_to_the_body(include_usage: bool) -> None:
    body_in = {"model": "m", "messages": MESSAGES, "stream": True}
    if include_usage:
        body_in["stream_options"] = {"include_usage": True}
    request = ChatApi().parse(body_in)
    reply = ModelReply(
        content="t" * (DELTA_CHARS + 5), tool_calls=[CALL], prompt_tokens=2, completion_tokens=1
    )
    final = ChatApi().body(request, reply, cached=False, response_id="chatcmpl-3")
    events = chunks(list(ChatApi().events(request, final)))
    assert events[-1] == "[DONE]"
    content, arguments, finish = "", "", None
    for event in events[:-1]:
        assert isinstance(event, dict) and event["id"] == "chatcmpl-3"
        for choice in event["choices"]:
            delta = choice["delta"]
            content += delta.get("content") or ""
            for call in delta.get("tool_calls", []):
                arguments += call["function"]["arguments"]
            finish = choice["finish_reason"] or finish
    message = final["choices"][0]["message"]
    assert content == message["content"]
    assert arguments == message["tool_calls"][0]["function"]["arguments"]
    assert finish == "tool_calls"
    usage = [event for event in events[:-1] if isinstance(event, dict) and "usage" in event]
    assert [event["usage"] for event in usage] == ([final["usage"]] if include_usage else [])


def test_small_bodies_and_events() -> None:
    assert sse({"a": 1}, "ping") == b'event: ping\ndata: {"a": 1}\n\n'
    assert error_body("down", "infra_blocked") == {
        "type": "error",
        "error": {"message": "down", "type": "infra_blocked"},
    }
    assert [m["id"] for m in models_body("pastbench/curator")["data"]] == ["pastbench/curator"]
    first, second = new_response_id("/v1/chat/completions"), new_response_id("/v1/chat/completions")
    assert first != second and first.startswith("chatcmpl-")
    assert new_response_id("/v1/messages").startswith("msg_")
