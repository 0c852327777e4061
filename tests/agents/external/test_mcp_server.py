"""Tools over MCP: a subprocess agent takes the session's tool box from the harness's MCP server
(official ``mcp`` SDK on both sides), over streamable HTTP and over the stdio bridge, in the
sandbox; calls are traced, budgeted and scored like ``tool_call`` messages."""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import anyio

from pytest_pastbench.agents.base import Budgets, SessionContext
from pytest_pastbench.agents.external.mcp_server import BUDGET_MESSAGE, McpToolServer, SessionTools
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.trace import TraceRecorder
from pytest_pastbench.protocols.past.schema import WorldSeed
from pytest_pastbench.protocols.past.toolbox import ToolBox
from pytest_pastbench.protocols.past.world import World
from tests.agents.external.test_process import run, script_agent

CLIENT = """
import asyncio, os
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

def server(kind):
    if kind == "http":
        http = create_mcp_http_client(headers=start["mcp"]["headers"])
        return streamable_http_client(os.environ["PASTBENCH_MCP_URL"], http_client=http)
    command = start["mcp"]["stdio_command"]
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))

async def use(kind, calls):
    async with Client(server(kind)) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        results = []
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            results.append([result.is_error, result.content[0].text])
        return names, results
"""


def test_an_agent_uses_the_session_tools_over_mcp_http_in_the_sandbox(tmp_path: Path) -> None:
    body = (
        CLIENT
        + """
calls = [
    ("memory_write", {"text": "The Brightwater reports go to @mira.k every Monday."}),
    ("memory_nuke", {}),
    ("memory_search", {"bad": 1}),
    ("memory_search", {"query": "brightwater"}),
]
names, results = asyncio.run(use("http", calls))
found = {"names": names, "results": results, "url": start["mcp"]["url"]}
send({"type": "answer", "content": json.dumps(found)})
"""
    )
    session, events = run(script_agent(tmp_path, body), tmp_path)
    assert session.agent_error is None, session.agent_error
    found = json.loads(session.answer)
    assert {"memory_search", "memory_write"} <= set(found["names"])
    assert found["url"] == "http://127.0.0.1:8081/mcp"  # the sandbox's own loopback, relayed
    (wrote, unknown, bad, searched) = found["results"]
    assert wrote[0] is False and json.loads(wrote[1]) == {"id": "m0001"}
    assert unknown == [True, json.dumps({"error": "unknown tool 'memory_nuke'"})]  # a tool error it reads
    assert bad[0] is True and "has no argument(s) 'bad'" in bad[1]
    assert searched[0] is False and "@mira.k" in searched[1]
    # Exactly as pastbench-agent/1 tool calls: in the session record (r_e), the trace and the store.
    assert [(c.name, c.ok) for c in session.tool_calls] == [
        ("memory_write", True),
        ("memory_nuke", False),
        ("memory_search", False),
        ("memory_search", True),
    ]
    assert [e["name"] for e in events if e["kind"] == "tool_call"] == [c.name for c in session.tool_calls]
    assert any("@mira.k" in entry.text for entry in session.store_after)


def test_the_stdio_bridge_serves_the_same_tools(tmp_path: Path) -> None:
    body = (
        CLIENT
        + """
names, results = asyncio.run(use("stdio", [("memory_write", {"text": "Kestrel invoices use OPS-BILLING."})]))
send({"type": "answer", "content": json.dumps([len(names), results])})
"""
    )
    session, _ = run(script_agent(tmp_path, body), tmp_path)
    assert session.agent_error is None, session.agent_error
    count, [[error, text]] = json.loads(session.answer)
    assert count == len(ToolBox.specs()) and error is False and json.loads(text) == {"id": "m0001"}
    assert [c.name for c in session.tool_calls] == ["memory_write"]


def test_mcp_calls_count_against_the_tool_call_budget(tmp_path: Path) -> None:
    body = (
        CLIENT
        + """
calls = [("memory_search", {"query": "x"})] * 3
names, results = asyncio.run(use("http", calls))
send({"type": "answer", "content": json.dumps(results[-1])})
"""
    )
    session, _ = run(script_agent(tmp_path, body), tmp_path, budgets=Budgets(tool_calls=2))
    assert session.budget_exceeded == "tool_calls" and len(session.tool_calls) == 2


def context(tmp_path: Path, budgets: Budgets) -> SessionContext:
    return SessionContext(
        ["x"], ToolBox(Store(tmp_path / "s"), World(WorldSeed())), None, budgets, TraceRecorder()
    )


def test_a_call_over_the_budget_is_a_tool_error_saying_so(tmp_path: Path) -> None:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    ctx = context(tmp_path, Budgets(tool_calls=1))
    tools = SessionTools(ctx)
    server = McpToolServer(tools, "t").start()

    async def two_calls() -> list[tuple[bool, str]]:
        http = create_mcp_http_client(headers={"Authorization": "Bearer t"})
        async with Client(streamable_http_client(server.url, http_client=http)) as client:
            results = [await client.call_tool("memory_search", {"query": "x"}) for _ in range(2)]
        return [(r.is_error, r.content[0].text) for r in results]

    try:
        first, second = anyio.run(two_calls)
    finally:
        server.stop()
    assert first[0] is False and second == (True, json.dumps({"error": BUDGET_MESSAGE}))
    assert tools.over_budget and len(ctx.tools.calls) == 1


def _post(port: int, token: str) -> int | str:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        headers = {
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        connection.request("POST", "/mcp", json.dumps(body), headers)
        return connection.getresponse().status
    except ConnectionRefusedError:
        return "refused"


def test_a_wrong_token_and_a_session_that_ended_are_refused(tmp_path: Path) -> None:
    ctx = context(tmp_path, Budgets())
    server = McpToolServer(SessionTools(ctx), "the-token").start()
    try:
        assert _post(server.port, "guess") == 401
        assert _post(server.port, "the-token") == 200
    finally:
        server.stop()
    assert _post(server.port, "the-token") in (410, "refused")  # ended: never served again
    assert ctx.tools.calls == []
