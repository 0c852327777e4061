"""One session's tool box as an MCP server (official ``mcp`` SDK), so an agent takes its tools
from MCP instead of relaying ``tool_call`` messages.

Streamable HTTP on 127.0.0.1 (random port), with the session's gateway token as bearer token;
``mcp_stdio.py`` bridges it to stdio for agents that start their MCP servers as programs. Every
call goes through ``SessionTools``, the same path as a ``pastbench-agent/1`` tool call: traced,
counted against the session's tool-call budget, scored (r_e, checks, Mech) exactly alike. When
the session ends the server refuses every request, then stops listening.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import socket
import threading
from collections.abc import Callable
from typing import Any

from ..base import SessionContext

MCP_PATH = "/mcp"
BUDGET_MESSAGE = "tool-call budget exhausted: this session ends"


class SessionTools:
    """A session's tool calls from both channels (``tool_call`` lines and MCP), one at a time."""

    def __init__(self, ctx: SessionContext) -> None:
        self.ctx = ctx
        self.over_budget = False
        self._lock = threading.Lock()

    def call(self, name: Any, arguments: Any) -> tuple[bool, str] | None:
        """(ok, text the agent reads), or None once the tool-call budget is spent."""
        with self._lock:
            if len(self.ctx.tools.calls) >= self.ctx.budgets.tool_calls:
                self.over_budget = True
                return None
            record, output = self.ctx.run_tool(name, arguments)
            return record.ok, output


class McpToolServer:
    """``start()`` → serving on ``url``; ``stop()`` refuses, then closes (idempotent)."""

    def __init__(self, tools: SessionTools, token: str) -> None:
        self.tools = tools
        self.token = token
        self.open = False
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{MCP_PATH}"

    def start(self) -> McpToolServer:
        import uvicorn  # lazy: mcp, anyio and uvicorn, only when a tool server runs

        app = _guarded(_mcp_app(self.tools), self)
        config = uvicorn.Config(app, log_level="error", lifespan="on", access_log=False)
        self._server = uvicorn.Server(config)
        self._server.install_signal_handlers = lambda: None  # a thread, not the main program
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, name="pastbench-mcp", daemon=True
        )
        self.open = True
        self._thread.start()
        ready = threading.Event()
        while not self._server.started and self._thread.is_alive() and not ready.wait(0.01):
            pass
        if not self._server.started:
            self.stop()
            raise RuntimeError("the session's MCP server did not start")
        return self

    def stop(self) -> None:
        """Refuse from now on; the server winds down in its own thread (uvicorn takes ~0.2 s, which
        no session should wait for)."""
        self.open = False  # every request is refused from here on, also on a kept-alive connection
        if self._server is not None:
            self._server.should_exit = True
        elif not self._socket._closed:  # type: ignore[attr-defined]
            with contextlib.suppress(OSError):
                self._socket.close()


def _mcp_app(tools: SessionTools) -> Any:
    # lazy: mcp, anyio and uvicorn, only when a tool server runs
    from mcp import types
    from mcp.server.lowlevel import Server

    specs = tools.ctx.tools.specs()

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=spec["function"]["name"],
                    description=spec["function"].get("description", ""),
                    input_schema=spec["function"].get("parameters") or {"type": "object"},
                )
                for spec in specs
            ]
        )

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        import anyio  # lazy: mcp, anyio and uvicorn, only when a tool server runs

        # The tool box is synchronous (store, world, trace): off the event loop, one at a time.
        outcome = await anyio.to_thread.run_sync(tools.call, params.name, params.arguments or {})
        ok, text = outcome if outcome is not None else (False, json.dumps({"error": BUDGET_MESSAGE}))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=not ok)

    server = Server("pastbench-tools", on_list_tools=list_tools, on_call_tool=call_tool)
    # Stateless and JSON: one request, one answer; nothing of a session outlives its server.
    return server.streamable_http_app(streamable_http_path=MCP_PATH, stateless_http=True, json_response=True)


def _guarded(app: Callable[..., Any], owner: McpToolServer) -> Callable[..., Any]:
    """The MCP app behind the session's bearer token, and closed once the session has ended."""

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)  # lifespan
            return
        headers = dict(scope.get("headers") or [])
        given = headers.get(b"authorization", b"").decode("latin-1")
        if not owner.open:
            await _refuse(send, 410, "this pastbench session has ended; its MCP server is closed")
        elif not secrets.compare_digest(given, f"Bearer {owner.token}"):
            await _refuse(send, 401, "missing or wrong session token (send Authorization: Bearer <token>)")
        else:
            await app(scope, receive, send)

    return guarded


async def _refuse(send: Any, status: int, message: str) -> None:
    body = json.dumps({"error": {"message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
