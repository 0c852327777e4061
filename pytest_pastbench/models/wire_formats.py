"""The gateway's wire formats: OpenAI chat completions, OpenAI Responses, Anthropic Messages.

Every API is translated to one chat-completions request (messages, tools, params) for
``ModelService.complete``, so tokens, cost, cache, retries, rate limits and session scopes are
the same whichever API an agent speaks. The Responses and Messages translations are litellm's own
(``LiteLLMCompletionResponsesConfig``, ``LiteLLMAnthropicMessagesAdapter``), in both directions.

Streams: the gateway asks the provider for a whole answer (one retry loop, one cache entry) and
streams it to the agent as the API's server-sent events. A cached answer therefore replays as the
same stream, and an answer that fails after the stream has started ends it with the API's error
event (the session records the failure, so its item is ``infra_blocked``).
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import time
from collections.abc import Iterator
from typing import Any

from ..compat.litellm import messages_adapter, responses_config
from ..errors import Unsupported
from .client import ModelReply, import_litellm

CHAT_PATH = "/v1/chat/completions"
RESPONSES_PATH = "/v1/responses"
MESSAGES_PATH = "/v1/messages"
MODELS_PATH = "/v1/models"
SERVED = f"POST {CHAT_PATH}, POST {RESPONSES_PATH}, POST {MESSAGES_PATH}, GET {MODELS_PATH}"
DELTA_CHARS = 32  # a streamed text or argument string goes out in pieces of this many characters
# Message fields a model sees; the rest (item ids, status, provider extras) would only make the
# cache key differ between two identical conversations.
MESSAGE_KEYS = ("role", "content", "name", "tool_calls", "tool_call_id")
Stream = Iterator[bytes]


@dataclasses.dataclass
class ApiRequest:
    """One agent request, translated: what ``ModelService.complete`` needs and how to answer."""

    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    params: dict[str, Any]
    stream: bool
    include_usage: bool = False
    raw: dict[str, Any] = dataclasses.field(default_factory=dict)  # as sent, for the way back
    store: bool = True  # Responses: keep it for a later ``previous_response_id``
    tool_names: dict[str, str] = dataclasses.field(default_factory=dict)  # Messages: shortened names


def sse(data: dict[str, Any] | str, event: str | None = None) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {event}\n" if event else "").encode() + f"data: {payload}\n\n".encode()


def error_body(message: str, kind: str) -> dict[str, Any]:
    """One error shape both SDKs read: OpenAI's ``error.message`` and Anthropic's ``type: error``."""
    return {"type": "error", "error": {"message": message, "type": kind}}


def models_body(model: str) -> dict[str, Any]:
    """``GET /v1/models`` for the OpenAI and the Anthropic SDK alike: the session's one model."""
    entry = {
        "id": model,
        "object": "model",
        "created": 0,
        "owned_by": "pastbench",
        "type": "model",
        "display_name": model,
        "created_at": "1970-01-01T00:00:00Z",
    }
    return {"object": "list", "data": [entry], "has_more": False, "first_id": model, "last_id": model}


def _event(kind: str, **fields: Any) -> bytes:
    """An Anthropic event: its name is also its ``type``."""
    return sse({"type": kind, **fields}, kind)


def _pieces(text: str) -> list[str]:
    return [text[i : i + DELTA_CHARS] for i in range(0, len(text), DELTA_CHARS)] or [""]


def _clean_messages(messages: list[Any]) -> list[dict[str, Any]]:
    cleaned = []
    for message in messages:
        message = dict(message)
        kept = {k: message[k] for k in MESSAGE_KEYS if message.get(k) is not None}
        if kept.get("tool_calls"):
            kept["tool_calls"] = [
                {"id": c["id"], "type": "function", "function": dict(c["function"])}
                for c in kept["tool_calls"]
            ]
        if "content" not in kept and message.get("role") == "assistant":
            kept["content"] = None
        cleaned.append(kept)
    return cleaned


def _check_request(
    path: str,
    body: dict[str, Any],
    supported: tuple[str, ...],
    tool_types: tuple[str | None, ...],
    required: tuple[str, ...],
) -> None:
    for key in sorted(body):
        if key not in supported and body[key] not in (None, [], {}, False):
            raise Unsupported(path, f"parameter {key!r}", supported)
    for tool in body.get("tools") or []:
        if tool.get("type") not in tool_types:
            names = [str(t) if t else "(no type: name, input_schema)" for t in tool_types]
            raise Unsupported(path, f"tool type {tool.get('type')!r}", names)
    missing = [key for key in required if key not in body]
    if missing:
        raise ValueError(f"{', '.join(map(repr, missing))} required")


# Keys of a translated request that are not model parameters.
_TRANSLATION_ONLY = ("model", "messages", "tools", "stream", "metadata", "custom_llm_provider", "user")


def _from_chat(body: dict[str, Any], chat: dict[str, Any], **fields: Any) -> ApiRequest:
    """The ``ApiRequest`` for a request ``body`` that litellm translated to ``chat``."""
    return ApiRequest(
        model=body.get("model", ""),
        messages=_clean_messages(chat["messages"]),
        tools=chat.get("tools"),
        params={k: v for k, v in chat.items() if k not in _TRANSLATION_ONLY},
        stream=bool(body.get("stream")),
        raw=body,
        **fields,
    )


class ChatApi:
    path = CHAT_PATH
    # Parameters a single-choice, text-and-tools answer cannot honour.
    refused = ("n", "logprobs", "top_logprobs", "audio", "modalities", "prediction")

    def parse(self, body: dict[str, Any]) -> ApiRequest:
        for key in self.refused:
            if key in body and body[key] not in (None, False, 1, 0):
                supported = ("text and function tools, one choice", "stream", "stream_options.include_usage")
                raise Unsupported(self.path, f"parameter {key!r}={body[key]!r}", supported)
        options = body.get("stream_options") or {}
        params = {k: v for k, v in body.items() if k not in ("model", "messages", "tools", "stream")}
        params.pop("stream_options", None)
        return ApiRequest(
            model=body.get("model", ""),
            messages=body["messages"],
            tools=body.get("tools"),
            params=params,
            stream=bool(body.get("stream")),
            include_usage=bool(options.get("include_usage")),
            raw=body,
        )

    def body(self, request: ApiRequest, reply: ModelReply, cached: bool, response_id: str) -> dict[str, Any]:
        return {
            "id": response_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.model,
            "choices": [{"index": 0, "message": reply.as_message(), "finish_reason": _finish(reply)}],
            "usage": _usage(reply),
            "pastbench": {"cost_usd": reply.cost_usd, "cached": cached, "waited_s": reply.waited_s},
        }

    def events(self, request: ApiRequest, final: dict[str, Any]) -> Stream:
        head = {k: final[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            return sse({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

        choice = final["choices"][0]
        message = choice["message"]
        yield chunk({"role": "assistant", "content": ""})
        for piece in _pieces(message["content"]) if message["content"] else ():
            yield chunk({"content": piece})
        for index, call in enumerate(message.get("tool_calls") or []):
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            opening = {"index": index, "id": call["id"], "type": "function"}
            yield chunk({"tool_calls": [{**opening, "function": {"name": name, "arguments": ""}}]})
            for piece in _pieces(arguments):
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        yield chunk({}, choice["finish_reason"])
        if request.include_usage:
            yield sse({**head, "choices": [], "usage": final["usage"], "pastbench": final["pastbench"]})
        yield sse("[DONE]")

    def stream_error(self, message: str) -> bytes:
        return sse({"error": {"message": message, "type": "infra_blocked"}})


def _finish(reply: ModelReply) -> str:
    """The provider's own reason when it gave one ("length": cut at the output limit)."""
    return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")


def _usage(reply: ModelReply) -> dict[str, int]:
    return {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }


def _model_response(request: ApiRequest, reply: ModelReply, response_id: str) -> Any:
    litellm = import_litellm()
    return litellm.ModelResponse(
        id=response_id,
        model=request.model,
        choices=[{"index": 0, "message": reply.as_message(), "finish_reason": _finish(reply)}],
        usage=_usage(reply),
    )


class ResponsesApi:
    path = RESPONSES_PATH
    supported = (
        "model",
        "input",
        "instructions",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "temperature",
        "top_p",
        "max_output_tokens",
        "stream",
        "stream_options",
        "store",
        "metadata",
        "previous_response_id",
        "user",
        "text",
        "reasoning",
        "truncation",
        "include",
        "service_tier",
        "prompt_cache_key",
        "safety_identifier",
    )

    def parse(self, body: dict[str, Any]) -> ApiRequest:
        _check_request(self.path, body, self.supported, ("function",), ("input",))
        if body.get("truncation") not in (None, "disabled"):
            raise Unsupported(self.path, f"truncation={body['truncation']!r}", ["disabled"])
        import_litellm()  # first: it keeps litellm's import off the network
        options = {k: v for k, v in body.items() if k not in ("model", "input", "previous_response_id")}
        chat = responses_config().transform_responses_api_request_to_chat_completion_request(
            model=body.get("model", ""), input=body["input"], responses_api_request=options, stream=False
        )
        return _from_chat(body, chat, store=body.get("store") is not False)

    def body(self, request: ApiRequest, reply: ModelReply, cached: bool, response_id: str) -> dict[str, Any]:
        options = {k: v for k, v in request.raw.items() if k not in ("model", "input")}
        response = responses_config().transform_chat_completion_response_to_responses_api_response(
            request.raw["input"], options, _model_response(request, reply, response_id)
        )
        body = response.model_dump(mode="json", exclude_none=True)
        body["id"] = response_id
        body["pastbench"] = {"cost_usd": reply.cost_usd, "cached": cached, "waited_s": reply.waited_s}
        return body

    def events(self, request: ApiRequest, final: dict[str, Any]) -> Stream:
        number = iter(range(1_000_000))

        def event(kind: str, **fields: Any) -> bytes:
            return sse({"type": kind, "sequence_number": next(number), **fields}, kind)

        opening = {**final, "status": "in_progress", "output": []}
        opening.pop("usage", None)
        yield event("response.created", response=opening)
        yield event("response.in_progress", response=opening)
        for index, item in enumerate(final["output"]):
            where = {"output_index": index, "item_id": item.get("id", "")}
            if item["type"] == "message":
                yield event("response.output_item.added", output_index=index, item={**item, "content": []})
                for part_index, part in enumerate(item.get("content") or []):
                    at = {**where, "content_index": part_index}
                    text = part.get("text", "")
                    yield event("response.content_part.added", **at, part={**part, "text": ""})
                    for piece in _pieces(text):
                        yield event("response.output_text.delta", **at, delta=piece, logprobs=[])
                    yield event("response.output_text.done", **at, text=text, logprobs=[])
                    yield event("response.content_part.done", **at, part=part)
            elif item["type"] == "function_call":
                opened = {**item, "arguments": "", "status": "in_progress"}
                yield event("response.output_item.added", output_index=index, item=opened)
                for piece in _pieces(item["arguments"]):
                    yield event("response.function_call_arguments.delta", **where, delta=piece)
                done = {"arguments": item["arguments"], "name": item["name"]}
                yield event("response.function_call_arguments.done", **where, **done)
            yield event("response.output_item.done", output_index=index, item=item)
        yield event("response.completed", response=final)

    def stream_error(self, message: str) -> bytes:
        # ``error`` is what the openai SDK raises on; ``code``/``message`` are the Responses event.
        fields = {"type": "error", "code": "infra_blocked", "message": message, "param": None}
        return sse({**fields, "error": {"message": message, "type": "infra_blocked"}}, "error")


class MessagesApi:
    path = MESSAGES_PATH
    supported = (
        "model",
        "messages",
        "system",
        "max_tokens",
        "tools",
        "tool_choice",
        "temperature",
        "top_p",
        "top_k",
        "stop_sequences",
        "stream",
        "metadata",
        "service_tier",
    )

    def parse(self, body: dict[str, Any]) -> ApiRequest:
        _check_request(self.path, body, self.supported, (None, "custom"), ("messages", "max_tokens"))
        import_litellm()  # first: it keeps litellm's import off the network
        request = {k: v for k, v in body.items() if k not in ("stream", "metadata", "service_tier")}
        chat, names = messages_adapter().translate_anthropic_to_openai(request)
        return _from_chat(body, dict(chat), tool_names=dict(names or {}))

    def body(self, request: ApiRequest, reply: ModelReply, cached: bool, response_id: str) -> dict[str, Any]:
        message = messages_adapter().translate_openai_response_to_anthropic(
            _model_response(request, reply, response_id), request.tool_names or None
        )
        body = json.loads(json.dumps(message, default=str))
        body["id"] = response_id
        body["pastbench"] = {"cost_usd": reply.cost_usd, "cached": cached, "waited_s": reply.waited_s}
        return body

    def events(self, request: ApiRequest, final: dict[str, Any]) -> Stream:
        usage = final.get("usage") or {}
        opening = {**final, "content": [], "stop_reason": None, "stop_sequence": None}
        opening["usage"] = {"input_tokens": usage.get("input_tokens", 0), "output_tokens": 0}
        yield _event("message_start", message=opening)
        for index, block in enumerate(final.get("content") or []):
            if block["type"] == "text":
                start, deltas = (
                    {"type": "text", "text": ""},
                    [{"type": "text_delta", "text": piece} for piece in _pieces(block["text"])],
                )
            else:
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                arguments = json.dumps(block.get("input") or {})
                deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in _pieces(arguments)]
            yield _event("content_block_start", index=index, content_block=start)
            for delta in deltas:
                yield _event("content_block_delta", index=index, delta=delta)
            yield _event("content_block_stop", index=index)
        stop = {"stop_reason": final.get("stop_reason"), "stop_sequence": final.get("stop_sequence")}
        out = {"input_tokens": usage.get("input_tokens", 0), "output_tokens": usage.get("output_tokens", 0)}
        yield _event("message_delta", delta=stop, usage=out)
        yield _event("message_stop")

    def stream_error(self, message: str) -> bytes:
        return sse(error_body(message, "api_error"), "error")


Api = ChatApi | ResponsesApi | MessagesApi
APIS: dict[str, Api] = {
    CHAT_PATH: ChatApi(),
    RESPONSES_PATH: ResponsesApi(),
    MESSAGES_PATH: MessagesApi(),
}
ID_PREFIX = {CHAT_PATH: "chatcmpl-", RESPONSES_PATH: "resp_", MESSAGES_PATH: "msg_"}


def input_items(value: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A Responses ``input`` as a list of items (a bare string is one user message)."""
    return [{"role": "user", "content": value}] if isinstance(value, str) else list(value)


def new_response_id(path: str) -> str:
    return ID_PREFIX[path] + secrets.token_hex(12)
