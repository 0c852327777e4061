"""Runs inside an agent's container as its entry point (stdlib only: it is mounted, not installed).

The container has no network (``network_mode="none"``), only its own loopback. The harness
mounts a folder holding two unix sockets it listens on:

- ``agent.sock``: the protocol channel. The shim connects and hands the socket to the agent
  program as its stdin and stdout, so the program speaks ``pastbench-agent/1`` on stdio exactly
  as it does under the subprocess adapter.
- ``gateway.sock``: the model gateway. The shim listens on ``127.0.0.1:$PASTBENCH_GATEWAY_PORT``
  inside the container and relays each connection to it, so an ordinary OpenAI client with
  ``OPENAI_BASE_URL=http://127.0.0.1:PORT/v1`` works unchanged.

``relay`` is also what the harness uses on its side (unix socket → the gateway's TCP port).

    python3 shim.py AGENT-COMMAND...      # exits with the agent's exit code
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable

RUN_DIR_ENV = "PASTBENCH_RUN_DIR"
PORT_ENV = "PASTBENCH_GATEWAY_PORT"
# Set by the subprocess adapter's sandbox: the program keeps the shim's own stdin and stdout
# (bubblewrap passes the harness's pipes through); only the gateway is relayed.
STDIO_ENV = "PASTBENCH_SHIM_STDIO"
MCP_PORT_ENV = "PASTBENCH_MCP_PORT"  # when set: that port is relayed to the session's MCP server
MCP_SOCKET = "mcp.sock"
AGENT_SOCKET = "agent.sock"
GATEWAY_SOCKET = "gateway.sock"


def _pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass  # either side went away: the connection is over
    finally:
        for end in (source, target):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()


def relay(listener: socket.socket, connect: Callable[[], socket.socket]) -> None:
    """Accept on ``listener`` until it is closed; pipe each connection to a fresh ``connect()``."""
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return  # the listener was closed: stop relaying
        try:
            upstream = connect()
        except OSError:
            client.close()
            continue
        for source, target in ((client, upstream), (upstream, client)):
            threading.Thread(target=_pump, args=(source, target), daemon=True).start()


def unix_connector(path: str) -> Callable[[], socket.socket]:
    def connect() -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        return sock

    return connect


def main(argv: list[str]) -> int:
    if not argv:
        print("pastbench shim: no agent command given", file=sys.stderr)
        return 2
    run_dir = os.environ.get(RUN_DIR_ENV, "/pastbench/run")
    listener = socket.create_server(("127.0.0.1", int(os.environ.get(PORT_ENV, "8080"))))
    gateway = unix_connector(os.path.join(run_dir, GATEWAY_SOCKET))
    threading.Thread(target=relay, args=(listener, gateway), daemon=True).start()
    if os.environ.get(MCP_PORT_ENV):
        tools = socket.create_server(("127.0.0.1", int(os.environ[MCP_PORT_ENV])))
        mcp = unix_connector(os.path.join(run_dir, MCP_SOCKET))
        threading.Thread(target=relay, args=(tools, mcp), daemon=True).start()
    if os.environ.get(STDIO_ENV) == "1":
        try:
            return subprocess.call(argv)
        except OSError as exc:
            print(f"pastbench shim: cannot start {argv[0]!r}: {exc}", file=sys.stderr)
            return 127
    channel = unix_connector(os.path.join(run_dir, AGENT_SOCKET))()
    try:
        child = subprocess.Popen(argv, stdin=channel.fileno(), stdout=channel.fileno())
    except OSError as exc:
        print(f"pastbench shim: cannot start {argv[0]!r}: {exc}", file=sys.stderr)
        return 127
    channel.close()  # the child holds the socket now; its exit closes the channel
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
