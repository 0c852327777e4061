"""A scripted, misbehaving OpenAI-compatible server on 127.0.0.1 for the provider-fault tests.

litellm reaches it as ``openai/<anything>`` with ``api_base=server.api_base`` and any api key.
Each ``POST /v1/chat/completions`` gets the next fault of the script; what the server received is
recorded so tests assert retry counts instead of timing. The server is bounded: it stops by
itself after ``max_requests`` requests or ``max_seconds`` seconds, whichever comes first, so a
test that goes wrong cannot leave it running. ``max_seconds`` is a hang guard only, far beyond any
run: a server that stopped after 50-300 s failed pytester runs that a loaded machine (load 20)
stretched past that, with "connection refused" in every item.

    with FaultServer(["429", "ok_text"]) as server:
        ...  # api_base=server.api_base
    assert server.count == 2
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHAT_PATH = "/v1/chat/completions"
HANG_GUARD_S = 3600.0  # see the module docstring: never a bound a slow run can reach
KINDS = ("429", "500", "503", "401", "timeout", "truncated", "bad_tool_args", "ok", "ok_text")


@dataclass(frozen=True)
class Fault:
    """One scripted answer. ``kind`` is one of ``KINDS``."""

    kind: str
    retry_after: float | None = 0.05  # 429 only; None sends no Retry-After header
    text: str = "All done."  # ok / ok_text: the assistant's text
    tool: str = "memory_search"  # ok / bad_tool_args: the tool the model calls
    arguments: dict[str, Any] = field(default_factory=lambda: {"query": "reports"})  # ok with a tool

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown fault {self.kind!r}; choose one of {', '.join(KINDS)}")


FaultLike = Fault | str
# A script is a list (request n gets item n, then ``then`` for every later request) or a function
# of (request body, request number) for servers that must answer by content, e.g. under xdist.
Script = Sequence[FaultLike] | Callable[[dict[str, Any], int], FaultLike]


@dataclass
class Received:
    index: int
    fault: str
    body: dict[str, Any]
    authorization: str


def _fault(value: FaultLike) -> Fault:
    return value if isinstance(value, Fault) else Fault(value)


class FaultServer:
    def __init__(
        self,
        script: Script = (),
        *,
        then: FaultLike = "ok_text",
        max_requests: int = 200,
        max_seconds: float = HANG_GUARD_S,
        hang_s: float = 5.0,
    ) -> None:
        self.script = script
        self.then = _fault(then)
        self.max_requests = max_requests
        self.max_seconds = max_seconds
        self.hang_s = hang_s  # how long a "timeout" answer stalls: longer than the client's timeout
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, name="faultserver", daemon=True)
        self._timer = threading.Timer(max_seconds, self.stop)
        self._timer.daemon = True

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.received)

    def faults(self) -> list[str]:
        with self._lock:
            return [r.fault for r in self.received]

    def start(self) -> FaultServer:
        self._thread.start()
        self._timer.start()
        return self

    def stop(self) -> None:
        if self._stopped.is_set():
            return
        self._stopped.set()  # also wakes any "timeout" answer that is still stalling
        self._timer.cancel()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self, body: dict[str, Any], authorization: str) -> tuple[Fault, bool]:
        """The fault for this request, and whether it was the last one the server will take."""
        with self._lock:
            index = len(self.received)
            if callable(self.script):
                fault = _fault(self.script(body, index))
            else:
                fault = _fault(self.script[index]) if index < len(self.script) else self.then
            self.received.append(Received(index, fault.kind, body, authorization))
            return fault, index + 1 >= self.max_requests


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, owner: FaultServer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.owner = owner


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.0"  # one request per connection: no stale keep-alive sockets

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return

    def _send(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> None:
        body = {"error": {"message": message, "type": kind, "code": str(status)}}
        self._send(status, json.dumps(body).encode(), headers)

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            body = {}
        if self.path != CHAT_PATH:
            self._error(404, f"no route {self.path}", "not_found")
            return
        fault, last = owner._next(body, self.headers.get("Authorization", ""))
        if last:
            # shutdown() waits for serve_forever, so it must not run on a thread it waits for.
            threading.Thread(target=owner.stop, daemon=True).start()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            # the client may have given up first (the point of a "timeout" fault)
            self._answer(fault, body)

    def _answer(self, fault: Fault, body: dict[str, Any]) -> None:
        owner = self.server.owner
        kind = fault.kind
        if kind == "429":
            headers = {} if fault.retry_after is None else {"Retry-After": str(fault.retry_after)}
            self._error(429, "rate limited (fault server)", "rate_limit_error", headers)
        elif kind in ("500", "503"):
            self._error(int(kind), "the fault server failed on purpose", "server_error")
        elif kind == "401":
            self._error(401, "invalid api key (fault server)", "invalid_request_error")
        elif kind == "timeout":
            owner._stopped.wait(owner.hang_s)  # bounded, and cut short when the server stops
            self._send(200, json.dumps(_completion(body, Fault("ok_text"))).encode())
        elif kind == "truncated":
            data = json.dumps(_completion(body, Fault("ok_text"))).encode()
            self._send(200, data[: len(data) // 2])  # a complete HTTP answer carrying half a JSON
        else:
            self._send(200, json.dumps(_completion(body, fault)).encode())


def _completion(body: dict[str, Any], fault: Fault) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": fault.text}
    finish = "stop"
    if fault.kind in ("ok", "bad_tool_args") and (fault.kind == "bad_tool_args" or body.get("tools")):
        arguments = '{"query": "reports"' if fault.kind == "bad_tool_args" else json.dumps(fault.arguments)
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{time.monotonic_ns()}",
                    "type": "function",
                    "function": {"name": fault.tool, "arguments": arguments},
                }
            ],
        }
        finish = "tool_calls"
    return {
        "id": f"chatcmpl-fault-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(body.get("model") or "fault"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }
