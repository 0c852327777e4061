"""The run's model service and its loopback gateway (docs/design.md §6: one seam for model traffic).

``ModelService`` owns litellm, the response cache, per-provider concurrency limits and the
token/cost ledger. The controller runs one per run. Under xdist it also serves it as an
OpenAI-compatible endpoint on 127.0.0.1, so workers never import litellm (measured: 16 workers
each importing it turn a 13 s run into 55 s on 2 cores), share one retry loop and one set of
rate limits, and one process writes the cache.

External agents (``agents/external/``) reach the model only through a gateway too, each session with its
own *scope*: a short-lived token bound to the item's model and trial, so the gateway counts that
session's tokens and cost and the program cannot pick another model or see the run's token.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import os
import secrets
import sys
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import CacheMiss, InfraError, ProviderExhausted
from .budget import RunBudget
from .cache import ResponseCache, request_key
from .client import DEFAULT_REQUEST_TIMEOUT_S, LiteLLMClient, ModelReply, RetryPolicy, resolve_model
from .rate_limit import ProviderLimits, Slot
from .wire_formats import (
    APIS,
    CHAT_PATH,
    MODELS_PATH,
    SERVED,
    Api,
    ApiRequest,
    ResponsesApi,
    error_body,
    input_items,
    models_body,
    new_response_id,
)

LEDGER_PATH = "/pastbench/ledger"
RATE_LIMITS_PATH = "/pastbench/rate-limits"
SCOPES_PATH = "/pastbench/scopes"
CLIENT_TIMEOUT_S = 900.0
# How an answer was fetched, not the answer: never cached.
TRANSPORT = frozenset({"retries", "waited_s"})
# A session's own gateway (an external agent run in-process) stops within this after the session.
SESSION_GATEWAY_POLL_S = 0.05
# Responses kept per session for ``previous_response_id`` (an agent chains a few, not thousands).
KEPT_RESPONSES = 256


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


@dataclasses.dataclass(frozen=True)
class ServiceSettings:
    """What a ``ModelService`` is built from: plain values, so the controller can hand them to
    the gateway's own process (``gateway_process``) as JSON."""

    cache_mode: str = "off"
    cache_path: str | None = None
    max_connections: int | None = None
    seed: int = 0
    retries: int = RetryPolicy.attempts
    retry_delay_s: float = RetryPolicy.base_delay_s
    request_timeout_s: float | None = DEFAULT_REQUEST_TIMEOUT_S
    model_aliases: str | None = None  # the user's alias file (``models.use_alias_file``)
    max_cost_usd: float | None = None  # the run-wide budget (``budget.RunBudget``)
    max_tokens: int | None = None

    def build_service(self) -> ModelService:
        cache = None
        if self.cache_mode != "off" and self.cache_path is not None:
            cache = ResponseCache(Path(self.cache_path), self.cache_mode)
        return ModelService(
            cache,
            self.max_connections,
            self.seed,
            retry=RetryPolicy(attempts=self.retries, base_delay_s=self.retry_delay_s),
            request_timeout_s=self.request_timeout_s,
            budget=RunBudget(self.max_cost_usd, self.max_tokens),
        )


class ModelService:
    """Cache → litellm (with its one retry loop; each attempt under the run's budget and its
    provider's adaptive limit, ``rate_limit``) → ledger."""

    def __init__(
        self,
        cache: ResponseCache | None = None,
        max_connections: int | None = None,
        seed: int = 0,
        retry: RetryPolicy | None = None,
        request_timeout_s: float | None = DEFAULT_REQUEST_TIMEOUT_S,
        budget: RunBudget | None = None,
    ):
        self.cache = cache
        self.budget = budget or RunBudget()
        self.max_connections = max_connections
        self.seed = seed
        self.retry = retry or RetryPolicy()
        self.request_timeout_s = request_timeout_s
        self.ledger: dict[str, LedgerEntry] = defaultdict(LedgerEntry)
        self._clients: dict[str, LiteLLMClient] = {}
        # A provider is given up on (rate_limit.ProviderExhausted) after a lone call met as many
        # 429s in a row as one item may attempt.
        self.limits = (
            ProviderLimits(max_connections, give_up_after=self.retry.attempts) if max_connections else None
        )
        self._lock = threading.Lock()

    def complete(
        self,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        params: dict[str, Any],
        trial: int = 0,
    ) -> tuple[ModelReply, bool]:
        # The key hashes the whole conversation: only when there is a cache to ask.
        key = request_key(model, messages, tools, params, trial) if self.cache else ""
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
            self.budget.check()  # before waiting for a connection; ``_gate`` again once it is ours
            reply = self._client(model).complete(messages, tools, **params)
        except InfraError as exc:
            self._record_failure(model, exc.retries)
            raise
        if self.cache:
            # The retry count is how this answer was fetched, not part of the answer.
            self.cache.put(key, {k: v for k, v in dataclasses.asdict(reply).items() if k not in TRANSPORT})
        self.budget.spend(reply.prompt_tokens + reply.completion_tokens, reply.cost_usd)
        self._record(model, reply, cached=False)
        return reply, False

    def ledger_json(self) -> dict[str, Any]:
        with self._lock:
            return {model: dataclasses.asdict(entry) for model, entry in sorted(self.ledger.items())}

    def rate_limits_json(self) -> dict[str, Any]:
        """The providers that answered 429 and what their limits went through (``run.rate_limits``)."""
        return self.limits.stats_json() if self.limits else {}

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
                    model,
                    self.retry,
                    seed=self.seed,
                    timeout_s=self.request_timeout_s,
                    gate=lambda: self._gate(model),
                )
            return self._clients[model]

    @contextmanager
    def _gate(self, model: str) -> Iterator[Slot]:
        """Around every attempt (retries too): a place under the provider's limit, then the run's
        budget (``InfraError`` with its reason), so no request starts once it is spent. A provider
        that answered only 429 refuses the attempt at once, also an ``InfraError``."""
        provider = resolve_model(model).model.split("/", 1)[0]
        place = self.limits.of(provider).slot() if self.limits else nullcontext(Slot())
        with ExitStack() as stack:
            try:
                slot = stack.enter_context(place)
            except ProviderExhausted as exc:
                raise InfraError(f"{model}: gave up: {exc}") from None
            self.budget.check()
            yield slot


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


def reply_from_openai(body: dict[str, Any]) -> ModelReply:
    choice = body["choices"][0]
    message = choice["message"]
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
        waited_s=float((body.get("pastbench") or {}).get("waited_s") or 0.0),
        reasoning=message.get("reasoning_content") or None,
        finish_reason=choice.get("finish_reason"),
    )


@dataclasses.dataclass
class Scope:
    """One external-agent session's access to the gateway: its model, trial and output cap."""

    id: str
    token: str
    model: str
    trial: int
    max_tokens: int | None
    # One entry per answered request, as an in-process agent counts them (cached ones too), with
    # what the harness made it wait (``waited_s``: left out of the session's wall budget).
    replies: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    failures: list[str] = dataclasses.field(default_factory=list)
    in_flight: int = 0  # requests the gateway is still answering (their waits are not in yet)
    # Responses API: response id -> the input and output items of that response.
    conversations: dict[str, list[dict[str, Any]]] = dataclasses.field(default_factory=dict)

    def usage_json(self) -> dict[str, Any]:
        return {"replies": list(self.replies), "failures": list(self.failures)}

    def waits_json(self) -> dict[str, Any]:
        """What the session has waited on the harness so far (``SessionWaits``)."""
        return {"waited_s": sum(r["waited_s"] for r in self.replies), "in_flight": self.in_flight}


class ScopeRegistry:
    """The open scopes of one gateway, by token (thread-safe: the server is threaded)."""

    def __init__(self) -> None:
        self._by_token: dict[str, Scope] = {}
        self._lock = threading.Lock()

    def open(self, model: str, trial: int = 0, max_tokens: int | None = None) -> Scope:
        scope = Scope(secrets.token_hex(8), secrets.token_urlsafe(24), model, trial, max_tokens)
        with self._lock:
            self._by_token[scope.token] = scope
        return scope

    def close(self, scope_id: str) -> dict[str, Any] | None:
        """Revoke a scope; its usage, or None when no open scope has this id."""
        with self._lock:
            for token, scope in self._by_token.items():
                if scope.id == scope_id:
                    del self._by_token[token]
                    return scope.usage_json()
        return None

    def keep(self, scope: Scope, response_id: str, items: list[dict[str, Any]]) -> None:
        """Remember a response's items so a later request can continue it (``previous_response_id``)."""
        with self._lock:
            scope.conversations[response_id] = items
            while len(scope.conversations) > KEPT_RESPONSES:
                del scope.conversations[next(iter(scope.conversations))]

    def continued(self, scope: Scope, response_id: str, new_input: Any) -> list[dict[str, Any]]:
        """The items of response ``response_id`` followed by the new input (instructions are the
        new request's own, as in the Responses API)."""
        with self._lock:
            earlier = scope.conversations.get(response_id)
        if earlier is None:
            raise ValueError(f"previous_response_id {response_id!r} is not a stored response of this session")
        return earlier + input_items(new_input)

    def waits(self, scope_id: str) -> dict[str, Any] | None:
        """``Scope.waits_json`` of an open scope, None when no open scope has this id."""
        with self._lock:
            scope = next((s for s in self._by_token.values() if s.id == scope_id), None)
            return None if scope is None else scope.waits_json()

    @contextmanager
    def answering(self, scope: Scope | None) -> Iterator[None]:
        """Around one request of ``scope``: counted in flight until its answer (or failure) is in."""
        if scope is None:
            yield
            return
        with self._lock:
            scope.in_flight += 1
        try:
            yield
        finally:
            with self._lock:
                scope.in_flight -= 1

    def find(self, token: str) -> Scope | None:
        with self._lock:
            for known, scope in self._by_token.items():
                if secrets.compare_digest(known, token):
                    return scope
        return None

    def record(self, scope: Scope, reply: ModelReply | None = None, failure: str | None = None) -> None:
        with self._lock:
            if reply is not None:
                scope.replies.append(
                    {
                        "prompt_tokens": reply.prompt_tokens,
                        "completion_tokens": reply.completion_tokens,
                        "cost_usd": reply.cost_usd,
                        "waited_s": reply.waited_s,
                    }
                )
            if failure is not None:
                scope.failures.append(failure)


def scoped_request(scope: Scope, request: dict[str, Any]) -> dict[str, Any]:
    """The model parameters a scoped request may use: its own, with the session's output cap."""
    if request.get("model") != scope.model:
        raise ValueError(f"this session may only use model {scope.model!r}, not {request.get('model')!r}")
    params = {k: v for k, v in request.items() if k not in ("model", "messages", "tools", "stream")}
    params.pop("pastbench_trial", None)  # the scope fixes the trial
    if scope.max_tokens is not None:
        for key in ("max_tokens", "max_completion_tokens"):
            if key in params:
                params[key] = min(int(params[key]), scope.max_tokens)
        if "max_completion_tokens" not in params:
            params["max_tokens"] = min(int(params.get("max_tokens") or scope.max_tokens), scope.max_tokens)
    return params


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

    def _error(self, status: int, message: str, kind: str) -> None:
        self._send(status, error_body(message, kind))

    def _no_route(self) -> None:
        self._error(404, f"no route {self.command} {self.path}: this gateway serves {SERVED}", "not_found")

    def _caller(self) -> Scope | bool:
        """True for the run's token, the ``Scope`` for a session token; False (401 sent) otherwise.

        The token comes as ``Authorization: Bearer`` (OpenAI SDK) or ``x-api-key`` (Anthropic SDK).
        """
        header = self.headers.get("Authorization", "")
        if secrets.compare_digest(header, f"Bearer {self.server.token}"):
            return True
        scheme, _, token = header.partition(" ")
        if scheme != "Bearer" or not token:
            token = self.headers.get("x-api-key", "")
        scope = self.server.scopes.find(token) if token else None
        if scope is not None:
            return scope
        self._error(401, "missing or wrong gateway token", "unauthorized")
        return False

    def _read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length))

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        caller = self._caller()
        if caller is False:
            return
        path = self.path.split("?", 1)[0]
        if isinstance(caller, Scope) and path in (MODELS_PATH, f"{MODELS_PATH}/{caller.model}"):
            listing = models_body(caller.model)
            self._send(200, listing if path == MODELS_PATH else listing["data"][0])
        elif path == LEDGER_PATH and caller is True:
            self._send(200, self.server.service.ledger_json())
        elif path == RATE_LIMITS_PATH and caller is True:
            self._send(200, self.server.service.rate_limits_json())
        elif path.startswith(SCOPES_PATH + "/") and caller is True:
            waits = self.server.scopes.waits(path.removeprefix(SCOPES_PATH + "/"))
            if waits is None:
                self._error(404, "no open scope with this id", "not_found")
            else:
                self._send(200, waits)
        else:
            self._no_route()

    def do_DELETE(self) -> None:  # noqa: N802 - stdlib name
        caller = self._caller()
        if caller is False:
            return
        if caller is not True or not self.path.startswith(SCOPES_PATH + "/"):
            self._no_route()
            return
        usage = self.server.scopes.close(self.path.removeprefix(SCOPES_PATH + "/"))
        if usage is None:
            self._error(404, "no open scope with this id", "not_found")
        else:
            self._send(200, usage)

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        caller = self._caller()
        if caller is False:
            return
        path = self.path.split("?", 1)[0]  # the Anthropic SDK may add ?beta=true
        if path == SCOPES_PATH and caller is True:
            self._open_scope()
        elif path in APIS:
            self._answer(APIS[path], caller if isinstance(caller, Scope) else None)
        else:
            self._no_route()

    def _open_scope(self) -> None:
        try:
            body = self._read_json()
            max_tokens = body.get("max_tokens")
            scope = self.server.scopes.open(
                str(body["model"]), int(body.get("trial", 0)), None if max_tokens is None else int(max_tokens)
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            self._error(400, f"bad request: {exc}", "invalid_request_error")
            return
        self._send(200, {"id": scope.id, "token": scope.token})

    def _parse(self, api: Api, scope: Scope | None) -> tuple[ApiRequest, int]:
        """The translated request and its trial; ``ValueError`` (and kin) for a 400."""
        body = self._read_json()
        if not isinstance(body, dict):
            raise ValueError(f"expected a JSON object, got {type(body).__name__}")
        trial = int(body.pop("pastbench_trial", 0))
        if scope is None:
            if body.get("previous_response_id") is not None:
                raise ValueError("previous_response_id needs a session token")
            if "model" not in body:
                raise KeyError("model")
            return api.parse(body), trial
        scoped_request(scope, {"model": body.get("model")})  # another model: refused before translating
        if isinstance(api, ResponsesApi) and body.get("previous_response_id") is not None:
            body["input"] = self.server.scopes.continued(
                scope, body["previous_response_id"], body.get("input", [])
            )
        request = api.parse(body)
        request.params = scoped_request(scope, {"model": request.model, **request.params})
        return request, scope.trial

    def _answer(self, api: Api, scope: Scope | None) -> None:
        try:
            request, trial = self._parse(api, scope)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            self._error(400, f"bad request: {exc}", "invalid_request_error")
            return
        if request.stream:
            self._open_stream()
        try:
            with self.server.scopes.answering(scope):
                reply, cached = self.server.service.complete(
                    request.model, request.messages, request.tools, request.params, trial
                )
                if scope is not None:
                    self.server.scopes.record(scope, reply)  # its wait is in before it leaves flight
        except InfraError as exc:
            if scope is not None:
                self.server.scopes.record(scope, failure=str(exc))
            if request.stream:
                self._stream_chunk(api.stream_error(str(exc)))
                self._stream_chunk(b"")
            else:
                self._error(502, str(exc), "infra_blocked")
            return
        body = api.body(request, reply, cached, new_response_id(api.path))
        if scope is not None and isinstance(api, ResponsesApi) and request.store:
            items = input_items(request.raw["input"]) + body["output"]
            self.server.scopes.keep(scope, body["id"], items)
        if not request.stream:
            self._send(200, body)
            return
        for event in api.events(request, body):
            self._stream_chunk(event)
        self._stream_chunk(b"")

    def _open_stream(self) -> None:
        # Chunked transfer: the connection stays alive for the client's next request.
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

    def _stream_chunk(self, data: bytes) -> None:
        """One chunk of the event stream; ``b""`` ends it."""
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


class _GatewayHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # Every session thread of every worker opens its own keep-alive connection, all at the start
    # of the run; socketserver's listen backlog of 5 reset some of them (measured: -n 2 with
    # --pastbench-concurrency=32, 41 of 408 items infra_blocked by "Connection reset by peer").
    request_queue_size = 1024

    def __init__(self, service: ModelService, token: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.service = service
        self.token = token
        self.scopes = ScopeRegistry()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up (an agent killed mid-request, a stream it stopped reading) is
        # routine here; anything else is still printed.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Gateway:
    """A ``ModelService`` served on a random loopback port, with a per-run bearer token."""

    def __init__(self, service: ModelService) -> None:
        self.service = service
        self.token = secrets.token_urlsafe(24)
        self._server = _GatewayHTTPServer(service, self.token)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def scopes(self) -> ScopeRegistry:
        return self._server.scopes

    def start(self, poll_interval_s: float = 0.5) -> Gateway:
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            args=(poll_interval_s,),
            name="pastbench-gateway",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def write_address(self, path: Path) -> None:
        """Hand the address and token to workers through a file only this user can read."""
        write_private_json(path, {"url": self.url, "token": self.token})


def write_private_json(path: Path, value: dict[str, Any]) -> None:
    """Write a file only this user can read, atomically (readers poll for it)."""
    tmp = path.with_suffix(".tmp")
    tmp.touch(mode=0o600)
    tmp.write_text(json.dumps(value))
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
        if "error" in address:
            raise InfraError(str(address["error"]))
        return cls(address["url"], address["token"], model, trial)

    def _connection(self) -> http.client.HTTPConnection:
        if getattr(self._local, "connection", None) is None:
            self._local.connection = http.client.HTTPConnection(
                self._url.hostname, self._url.port, timeout=CLIENT_TIMEOUT_S
            )
        return self._local.connection

    @property
    def url(self) -> str:
        return f"{self._url.scheme}://{self._url.netloc}"

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **params: Any
    ) -> ModelReply:
        body = {"model": self.model, "messages": messages, "pastbench_trial": self.trial, **params}
        if tools:
            body["tools"] = tools
        return reply_from_openai(self._request("POST", CHAT_PATH, body))

    def open_scope(self, max_tokens: int | None = None) -> dict[str, str]:
        """A session scope for an external agent: ``{"id": ..., "token": ...}``."""
        body = {"model": self.model, "trial": self.trial, "max_tokens": max_tokens}
        return self._request("POST", SCOPES_PATH, body)

    def scope_waits(self, scope_id: str) -> dict[str, Any]:
        """What the open scope's session has waited on the harness so far (``Scope.waits_json``)."""
        return self._request("GET", f"{SCOPES_PATH}/{scope_id}", None)

    def close_scope(self, scope_id: str) -> dict[str, Any]:
        """Revoke the scope; what its session used (see ``Scope.usage_json``)."""
        return self._request("DELETE", f"{SCOPES_PATH}/{scope_id}", None)

    def ledger(self) -> dict[str, Any]:
        """The gateway's token/cost ledger by model (needs the run's token, not a scope's)."""
        return self._request("GET", LEDGER_PATH, None)

    def rate_limits(self) -> dict[str, Any]:
        """The gateway's ``ModelService.rate_limits_json`` (the run's token, like ``ledger``)."""
        return self._request("GET", RATE_LIMITS_PATH, None)

    def _request(self, method: str, path: str, body: dict[str, Any] | None) -> Any:
        # bytes: http.client sends headers and body in one write
        payload = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self._token}"}
        for attempt in (1, 2):  # one reconnect: a kept-alive connection may have been closed
            try:
                connection = self._connection()
                connection.request(method, path, payload, headers)
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
        return data


@dataclasses.dataclass
class AgentScope:
    """What an external agent's session gets: where the gateway is, its token, its model.

    ``usage`` (one dict per answered request) and ``failures`` (gateway errors, e.g. a provider
    down after retries) are filled in when the ``agent_scope`` block ends; ``waits`` asks the
    gateway, while the session runs, what it has waited on the harness (``Scope.waits_json``).
    """

    url: str
    token: str
    model: str
    waits: Callable[[], dict[str, Any]] = lambda: {"waited_s": 0.0, "in_flight": 0}
    usage: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    failures: list[str] = dataclasses.field(default_factory=list)

    def finish(self, usage: dict[str, Any]) -> None:
        self.usage = list(usage.get("replies") or [])
        self.failures = list(usage.get("failures") or [])


@contextmanager
def agent_scope(client: Any, max_tokens: int | None = None) -> Iterator[AgentScope]:
    """Open a gateway scope for one external-agent session on the run's model client.

    From an xdist worker the client is a ``GatewayClient`` (the controller's gateway); in-process
    (``-n 0``, or a user's own test) it is a ``ServiceClient`` and the session gets its own
    loopback gateway on the same ``ModelService`` (same cache, limits and ledger).
    """
    while hasattr(client, "metered"):  # the wrappers around the run's client (the session's meter, …)
        client = client.metered
    if isinstance(client, GatewayClient):
        opened = client.open_scope(max_tokens)
        scope = AgentScope(
            client.url, opened["token"], client.model, lambda: client.scope_waits(opened["id"])
        )
        try:
            yield scope
        finally:
            scope.finish(client.close_scope(opened["id"]))
    elif isinstance(client, ServiceClient):
        gateway = Gateway(client.service).start(SESSION_GATEWAY_POLL_S)
        try:
            own = gateway.scopes.open(client.model, client.trial, max_tokens)
            waits = gateway.scopes.waits
            scope = AgentScope(gateway.url, own.token, client.model, lambda: waits(own.id) or {})
            try:
                yield scope
            finally:
                scope.finish(gateway.scopes.close(own.id) or {})
        finally:
            gateway.stop()
    else:
        raise InfraError(
            f"an external agent needs the run's model gateway; {type(client).__name__} is not one"
        )
