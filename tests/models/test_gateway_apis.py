"""The gateway's three APIs through the official SDKs (``openai``, ``anthropic``), plain and
streaming, against a session scope on 127.0.0.1 with the offline ``pastbench/recall`` model."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path

import anthropic
import openai
import pytest

from pytest_pastbench.models.cache import ResponseCache
from pytest_pastbench.models.gateway import Gateway, ModelService, Scope
from pytest_pastbench.protocols.past.toolbox import ToolBox

MODEL = "pastbench/recall"
QUESTION = "Who approves Halvorsen refunds?"
MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": QUESTION}]
# The memory tools only: with nothing recalled, the offline policies look a question up in the
# world's tools next; these tests need the turn after one empty search to be the final answer.
CHAT_TOOLS = [spec for spec in ToolBox.specs() if spec["function"]["name"].startswith("memory_")]
RESPONSES_TOOLS = [{"type": "function", **spec["function"]} for spec in CHAT_TOOLS]
ANTHROPIC_TOOLS = [
    {"name": f["name"], "description": f["description"], "input_schema": f["parameters"]}
    for f in (spec["function"] for spec in CHAT_TOOLS)
]


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[Gateway]:
    running = Gateway(ModelService(ResponseCache(tmp_path / "cache.sqlite", "rw"))).start()
    yield running
    running.stop()


@pytest.fixture
def scope(gateway: Gateway) -> Scope:
    return gateway.scopes.open(MODEL, max_tokens=200)


def openai_client(gateway: Gateway, scope: Scope) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=scope.token, max_retries=0)


def anthropic_client(gateway: Gateway, scope: Scope) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=gateway.url, api_key=scope.token, max_retries=0)


def ledger(gateway: Gateway) -> tuple[int, int]:
    entry = gateway.service.ledger_json()[MODEL]
    return entry["calls"], entry["cached"]


# -- chat completions ---------------------------------------------------------------------------


def test_chat_stream_carries_tool_call_deltas_and_usage_in_the_last_chunk(gateway, scope) -> None:
    client = openai_client(gateway, scope)
    plain = client.chat.completions.create(model=MODEL, messages=MESSAGES, tools=CHAT_TOOLS)
    chunks = list(
        client.chat.completions.create(
            model=MODEL,
            messages=MESSAGES,
            tools=CHAT_TOOLS,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    call = plain.choices[0].message.tool_calls[0]
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    streamed = [d.tool_calls[0] for d in deltas if d.tool_calls]
    assert streamed[0].id == call.id and streamed[0].function.name == call.function.name == "memory_search"
    assert "".join(t.function.arguments or "" for t in streamed) == call.function.arguments
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    assert chunks[-1].choices == [] and chunks[-1].usage.prompt_tokens == plain.usage.prompt_tokens > 0
    assert ledger(gateway) == (1, 1)  # the stream replayed the cached answer: no second call
    assert len(gateway.scopes.close(scope.id)["replies"]) == 2  # the session counts both, as in-process


def test_chat_stream_without_include_usage_has_no_usage_chunk(gateway, scope) -> None:
    chunks = list(
        openai_client(gateway, scope).chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
    )
    assert all(c.usage is None and c.choices for c in chunks)


def test_a_cached_stream_replays_the_same_text(gateway, scope) -> None:
    client = openai_client(gateway, scope)
    turns = [*MESSAGES, {"role": "assistant", "content": None}, {"role": "user", "content": "thanks"}]
    turns = MESSAGES[:1] + [{"role": "user", "content": "Say hello."}]
    texts = [
        "".join(
            c.choices[0].delta.content or ""
            for c in client.chat.completions.create(model=MODEL, messages=turns, stream=True)
        )
        for _ in range(2)
    ]
    assert texts[0] == texts[1] != "" and ledger(gateway) == (1, 1)


# -- Responses ----------------------------------------------------------------------------------


def test_responses_plain_and_streamed_give_the_same_function_call(gateway, scope) -> None:
    client = openai_client(gateway, scope)
    plain = client.responses.create(model=MODEL, instructions="s", input=QUESTION, tools=RESPONSES_TOOLS)
    with client.responses.stream(
        model=MODEL, instructions="s", input=QUESTION, tools=RESPONSES_TOOLS
    ) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_response()
    assert plain.output[0].type == final.output[0].type == "function_call"
    assert plain.output[0].name == final.output[0].name == "memory_search"
    assert plain.output[0].arguments == final.output[0].arguments
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert "response.function_call_arguments.delta" in kinds
    assert final.usage.input_tokens == plain.usage.input_tokens > 0
    assert ledger(gateway) == (1, 1)


def test_responses_previous_response_id_continues_the_conversation(gateway, scope) -> None:
    client = openai_client(gateway, scope)
    first = client.responses.create(model=MODEL, instructions="s", input=QUESTION, tools=RESPONSES_TOOLS)
    call = first.output[0]
    output = {"type": "function_call_output", "call_id": call.call_id, "output": '{"results": []}'}
    chained = client.responses.create(
        model=MODEL, instructions="s", input=[output], previous_response_id=first.id, tools=RESPONSES_TOOLS
    )
    # The same answer as sending the whole conversation again (and so the same cache entry).
    whole = client.responses.create(
        model=MODEL,
        instructions="s",
        input=[{"role": "user", "content": QUESTION}, call.model_dump(exclude_none=True), output],
        tools=RESPONSES_TOOLS,
    )
    assert chained.output_text == whole.output_text != ""
    assert ledger(gateway) == (2, 1)
    with pytest.raises(openai.BadRequestError, match="not a stored response of this session"):
        client.responses.create(model=MODEL, input="x", previous_response_id="resp_nope")


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"tools": [{"type": "web_search"}]}, "tool type 'web_search' (supported: function)"),
        ({"background": True}, "parameter 'background'"),
        ({"truncation": "auto"}, "truncation='auto'"),
    ],
)
def test_responses_refuse_what_they_cannot_serve_naming_it(gateway, scope, extra, named) -> None:
    client = openai_client(gateway, scope)
    with pytest.raises(openai.BadRequestError) as error:
        client.responses.create(model=MODEL, input="x", **extra)
    assert "POST /v1/responses does not support" in str(error.value) and named in str(error.value)


# -- Anthropic Messages -------------------------------------------------------------------------


def test_messages_plain_and_streamed_give_the_same_tool_use(gateway, scope) -> None:
    client = anthropic_client(gateway, scope)
    request = {
        "model": MODEL,
        "max_tokens": 100,
        "system": "s",
        "messages": [{"role": "user", "content": QUESTION}],
        "tools": ANTHROPIC_TOOLS,
    }
    plain = client.messages.create(**request)
    with client.messages.stream(**request) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_message()
    assert plain.stop_reason == final.stop_reason == "tool_use"
    assert plain.content[0].name == final.content[0].name == "memory_search"
    assert plain.content[0].input == final.content[0].input and plain.content[0].input["query"]
    assert final.usage.input_tokens == plain.usage.input_tokens > 0 and final.usage.output_tokens > 0
    assert kinds[0] == "message_start" and "input_json" in kinds and kinds[-1] == "message_stop"
    # A tool result goes back as Anthropic sends it; the model answers in text.
    answer = client.messages.create(
        **{
            **request,
            "messages": [
                *request["messages"],
                {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in plain.content]},
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": plain.content[0].id, "content": "[]"}],
                },
            ],
        }
    )
    assert answer.stop_reason == "end_turn" and answer.content[0].text
    assert ledger(gateway) == (2, 1)


def test_messages_refuse_server_tools(gateway, scope) -> None:
    with pytest.raises(anthropic.BadRequestError, match="POST /v1/messages does not support tool type"):
        anthropic_client(gateway, scope).messages.create(
            model=MODEL,
            max_tokens=10,
            messages=[{"role": "user", "content": "x"}],
            tools=[{"type": "web_search_20250305", "name": "web_search"}],
        )


# -- every API ----------------------------------------------------------------------------------


def test_models_lists_the_sessions_model_to_both_sdks(gateway, scope) -> None:
    assert [m.id for m in openai_client(gateway, scope).models.list()] == [MODEL]
    assert [m.id for m in anthropic_client(gateway, scope).models.list()] == [MODEL]


def test_another_model_is_refused_on_every_api(gateway, scope) -> None:
    other = "pastbench/curator"
    client = openai_client(gateway, scope)
    with pytest.raises(openai.BadRequestError, match="may only use model 'pastbench/recall'"):
        client.chat.completions.create(model=other, messages=MESSAGES, stream=True)
    with pytest.raises(openai.BadRequestError, match="may only use model 'pastbench/recall'"):
        client.responses.create(model=other, input="x", stream=True)
    with pytest.raises(anthropic.BadRequestError, match="may only use model 'pastbench/recall'"):
        anthropic_client(gateway, scope).messages.create(
            model=other, max_tokens=10, messages=[{"role": "user", "content": "x"}]
        )


def raw_post(gateway: Gateway, token: str, path: str, data: bytes) -> tuple[int, dict]:
    host, port = gateway.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.request("POST", path, data, {"Authorization": f"Bearer {token}"})
    response = connection.getresponse()
    return response.status, json.loads(response.read())


def test_an_unknown_endpoint_names_what_is_served(gateway, scope) -> None:
    status, body = raw_post(gateway, scope.token, "/v1/completions", b"{}")
    assert status == 404 and "no route POST /v1/completions" in body["error"]["message"]
    assert (
        "POST /v1/responses" in body["error"]["message"] and "POST /v1/messages" in body["error"]["message"]
    )


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/v1/chat/completions", b'{"stream": true, "model": "pastbench/recall", "messages": '),
        ("/v1/chat/completions", b'["stream", true]'),
        ("/v1/responses", b'{"stream": true, "model": "pastbench/recall"}'),
        ("/v1/messages", b'{"stream": true, "model": "pastbench/recall", "messages": []}'),
    ],
)
def test_a_malformed_streaming_request_is_a_400_not_a_stream(gateway, scope, path, data) -> None:
    status, body = raw_post(gateway, scope.token, path, data)
    assert status == 400 and body["error"]["message"].startswith("bad request:")


def test_a_provider_failure_mid_stream_ends_it_with_an_error_the_session_records(gateway) -> None:
    scope = gateway.scopes.open("pastbench/oracle")  # no such offline model: the provider fails
    client = openai_client(gateway, scope)
    with pytest.raises(openai.APIError, match="unknown offline model"):
        list(client.chat.completions.create(model="pastbench/oracle", messages=MESSAGES, stream=True))
    with (
        pytest.raises(openai.APIError, match="unknown offline model"),
        client.responses.stream(model="pastbench/oracle", input="x") as stream,
    ):
        list(stream)
    with pytest.raises(anthropic.APIStatusError, match="unknown offline model"):
        list(
            anthropic_client(gateway, scope).messages.create(
                model="pastbench/oracle",
                max_tokens=10,
                messages=[{"role": "user", "content": "x"}],
                stream=True,
            )
        )
    usage = gateway.scopes.close(scope.id)
    assert usage["replies"] == [] and len(usage["failures"]) == 3
