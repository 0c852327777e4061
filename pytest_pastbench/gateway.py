"""The run's model service and its loopback gateway (DESIGN §6: one seam for model traffic).

``ModelService`` owns litellm, the response cache, per-provider concurrency limits and the
token/cost ledger. The controller runs one per run. Under xdist it also serves it as an
OpenAI-compatible endpoint on 127.0.0.1, so workers never import litellm (measured: 16 workers
each importing it turn a 13 s run into 55 s on 2 cores), share one retry loop and one set of
rate limits, and one process writes the cache.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import os
import secrets
import threading
from collections import defaultdict
from contextlib import AbstractContextManager, nullcontext
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .cache import CacheMiss, ResponseCache, request_key
from .models import (
    DEFAULT_REQUEST_TIMEOUT_S,
    InfraError,
    LiteLLMClient,
    ModelReply,
    RetryPolicy,
    resolve_model,
)

CHAT_PATH = "/v1/chat/completions"
LEDGER_PATH = "/pastbench/ledger"
CLIENT_TIMEOUT_S = 900.0


@dataclasses.dataclass
class LedgerEntry:
    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0
    retries: int = 0  # transient provider errors that were retried
    failed: int = 0  # requests that ended in InfraError (the item is infra_blocked)

    def add(self, reply: ModelReply, cached: bool) -> None:
        if cached:
            self.cached += 1
            return  # a cached answer costs nothing and is not a call
        self.calls += 1
        self.retries += reply.retries
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        if self.cost_usd is not None:
            self.cost_usd = None if reply.cost_usd is None else self.cost_usd + reply.cost_usd


class ModelService:
    """Cache → per-provider limit → litellm (with its one retry loop) → ledger."""

    def __init__(
        self,
        cache: ResponseCache | None = None,
        max_connections: int | None = None,
        seed: int = 0,
        retry: RetryPolicy | None = None,
        request_timeout_s: float | None = DEFAULT_REQUEST_TIMEOUT_S,
    ):
        self.cache = cache
        self.max_connections = max_connections
        self.seed = seed
        self.retry = retry or RetryPolicy()
        self.request_timeout_s = request_timeout_s
        self.ledger: dict[str, LedgerEntry] = defaultdict(LedgerEntry)
        self._clients: dict[str, LiteLLMClient] = {}
        self._limits: dict[str, threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()

    def complete(
        self,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        params: dict[str, Any],
        trial: int = 0,
    ) -> tuple[ModelReply, bool]:
        key = request_key(model, messages, tools, params, trial)
        try:
            stored = self.cache.get(key) if self.cache else None
        except CacheMiss as exc:
            self._record_failure(model, 0)
            raise InfraError(str(exc)) from None
        if stored is not None:
            reply = ModelReply(**stored)
            self._record(model, reply, cached=True)
            return reply, True
        try:
            with self._limit(model):
                reply = self._client(model).complete(messages, tools, **params)
        except InfraError as exc:
            self._record_failure(model, exc.retries)
            raise
        if self.cache:
            # The retry count is how this answer was fetched, not part of the answer.
            self.cache.put(key, {k: v for k, v in dataclasses.asdict(reply).items() if k != "retries"})
        self._record(model, reply, cached=False)
        return reply, False

    def ledger_json(self) -> dict[str, Any]:
        with self._lock:
            return {model: dataclasses.asdict(entry) for model, entry in sorted(self.ledger.items())}

    def _record(self, model: str, reply: ModelReply, cached: bool) -> None:
        with self._lock:
            self.ledger[model].add(reply, cached)

    def _record_failure(self, model: str, retries: int) -> None:
        with self._lock:
            entry = self.ledger[model]
            entry.failed += 1
            entry.retries += retries

    def _client(self, model: str) -> LiteLLMClient:
        with self._lock:
            if model not in self._clients:
                self._clients[model] = LiteLLMClient(
                    model, self.retry, seed=self.seed, timeout_s=self.request_timeout_s
                )
            return self._clients[model]

    def _limit(self, model: str) -> AbstractContextManager[Any]:
        if not self.max_connections:
            return nullcontext()
        provider = resolve_model(model).model.split("/", 1)[0]
        with self._lock:
            if provider not in self._limits:
                self._limits[provider] = threading.BoundedSemaphore(self.max_connections)
            return self._limits[provider]


class ServiceClient:
    """In-process ``ModelClient`` bound to one model and trial (no gateway, no HTTP)."""

    def __init__(self, service: ModelService, model: str, trial: int = 0) -> None:
        self.service = service
        self.model = model
        self.trial = trial

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **params: Any
    ) -> ModelReply:
        return self.service.complete(self.model, messages, tools, params, self.trial)[0]


def reply_to_openai(model: str, reply: ModelReply, cached: bool) -> dict[str, Any]:
    return {
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": reply.as_message(),
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
        "pastbench": {"cost_usd": reply.cost_usd, "cached": cached},
    }


def reply_from_openai(body: dict[str, Any]) -> ModelReply:
    message = body["choices"][0]["message"]
    usage = body.get("usage") or {}
    return ModelReply(
        content=message.get("content"),
        tool_calls=[
            {
                "id": c["id"],
                "name": c["function"]["name"],
                "arguments": c["function"].get("arguments") or "{}",
            }
            for c in message.get("tool_calls") or []
        ],
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        cost_usd=(body.get("pastbench") or {}).get("cost_usd"),
    )


class _Handler(BaseHTTPRequestHandler):
    server: _GatewayHTTPServer
    protocol_version = "HTTP/1.1"  # keep-alive: one connection per worker thread
    # Headers and body go out in two writes; with Nagle on, the client's delayed ACK stalls
    # every response by ~40 ms (measured: 80 ms per call instead of 1).
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return  # requests carry prompts; never echo them to stderr

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorised(self) -> bool:
        expected = f"Bearer {self.server.token}"
        if secrets.compare_digest(self.headers.get("Authorization", ""), expected):
            return True
        self._send(401, {"error": {"message": "missing or wrong gateway token", "type": "unauthorized"}})
        return False

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if not self._authorised():
            return
        if self.path == LEDGER_PATH:
            self._send(200, self.server.service.ledger_json())
        else:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        if not self._authorised():
            return
        if self.path != CHAT_PATH:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length))
            model = request.pop("model")
            messages = request.pop("messages")
            tools = request.pop("tools", None)
            trial = int(request.pop("pastbench_trial", 0))
        except (ValueError, KeyError, TypeError) as exc:
            self._send(400, {"error": {"message": f"bad request: {exc}", "type": "invalid_request_error"}})
            return
        try:
            reply, cached = self.server.service.complete(model, messages, tools, request, trial)
        except InfraError as exc:
            self._send(502, {"error": {"message": str(exc), "type": "infra_blocked"}})
            return
        self._send(200, reply_to_openai(model, reply, cached))


class _GatewayHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, service: ModelService, token: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.service = service
        self.token = token


class Gateway:
    """A ``ModelService`` served on a random loopback port, with a per-run bearer token."""

    def __init__(self, service: ModelService) -> None:
        self.service = service
        self.token = secrets.token_urlsafe(24)
        self._server = _GatewayHTTPServer(service, self.token)
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="pastbench-gateway", daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> Gateway:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def write_address(self, path: Path) -> None:
        """Hand the address and token to workers through a file only this user can read."""
        tmp = path.with_suffix(".tmp")
        tmp.touch(mode=0o600)
        tmp.write_text(json.dumps({"url": self.url, "token": self.token}))
        os.replace(tmp, path)


class GatewayClient:
    """A worker's ``ModelClient``: stdlib HTTP to the controller's gateway (no litellm here)."""

    def __init__(self, url: str, token: str, model: str, trial: int = 0) -> None:
        self.model = model
        self.trial = trial
        self._url = urlsplit(url)
        self._token = token
        self._local = threading.local()

    @classmethod
    def from_file(cls, path: Path, model: str, trial: int = 0) -> GatewayClient:
        try:
            address = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise InfraError(f"model gateway address not available ({path}): {exc}") from None
        return cls(address["url"], address["token"], model, trial)

    def _connection(self) -> http.client.HTTPConnection:
        if getattr(self._local, "connection", None) is None:
            self._local.connection = http.client.HTTPConnection(
                self._url.hostname, self._url.port, timeout=CLIENT_TIMEOUT_S
            )
        return self._local.connection

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **params: Any
    ) -> ModelReply:
        body = {"model": self.model, "messages": messages, "pastbench_trial": self.trial, **params}
        if tools:
            body["tools"] = tools
        payload = json.dumps(body).encode()  # bytes: http.client sends headers and body in one write
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self._token}"}
        for attempt in (1, 2):  # one reconnect: a kept-alive connection may have been closed
            try:
                connection = self._connection()
                connection.request("POST", CHAT_PATH, payload, headers)
                response = connection.getresponse()
                data = json.loads(response.read() or b"{}")
                break
            except (OSError, http.client.HTTPException, json.JSONDecodeError) as exc:
                self._local.connection = None
                if attempt == 2:
                    raise InfraError(f"{self.model}: model gateway unreachable: {exc}") from None
        if response.status != 200:
            message = (data.get("error") or {}).get("message") or f"HTTP {response.status}"
            raise InfraError(message)
        return reply_from_openai(data)
