"""The session's MCP tools over stdio: a bridge an agent starts as its MCP server program.

    python -m pytest_pastbench.agents.external.mcp_stdio     # PASTBENCH_MCP_URL, PASTBENCH_MCP_TOKEN set

``session_start.mcp.stdio_command`` is this command. It serves MCP on its stdin and stdout and
forwards every ``tools/list`` and ``tools/call`` to the session's streamable HTTP server, so a
call made through it is the same call (traced, budgeted, scored) as any other.
"""

from __future__ import annotations

import os
import sys
from typing import Any

URL_ENV = "PASTBENCH_MCP_URL"
TOKEN_ENV = "PASTBENCH_MCP_TOKEN"


async def bridge(url: str, token: str) -> None:
    # lazy: mcp and anyio, only when the stdio bridge runs
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with Client(streamable_http_client(url, http_client=http)) as remote:

        async def list_tools(_ctx: Any, _params: Any) -> Any:
            return await remote.list_tools()

        async def call_tool(_ctx: Any, params: Any) -> Any:
            return await remote.call_tool(params.name, params.arguments or {})

        server = Server("pastbench-tools", on_list_tools=list_tools, on_call_tool=call_tool)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())


def main() -> int:
    url, token = os.environ.get(URL_ENV), os.environ.get(TOKEN_ENV)
    if not url or not token:
        print(f"pastbench mcp_stdio: {URL_ENV} and {TOKEN_ENV} must be set", file=sys.stderr)
        return 2
    import anyio  # lazy: mcp and anyio, only when the stdio bridge runs

    anyio.run(bridge, url, token)
    return 0


if __name__ == "__main__":
    sys.exit(main())
