"""The container's entry point: it relays connections to the harness's sockets and exits with
the agent's exit code. (tests/agents/external/test_docker.py runs it inside a container.)"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from pytest_pastbench.agents.external import shim

HANG_GUARD_S = 120  # only against a hang: no assertion depends on how long anything takes


def echo_server(path: str) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen()

    def serve() -> None:
        with server.accept()[0] as conn:
            while data := conn.recv(1024):
                conn.sendall(data.upper())

    threading.Thread(target=serve, daemon=True).start()
    return server


def test_relay_pipes_a_tcp_connection_to_the_unix_socket_both_ways() -> None:
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:  # a unix socket path must stay short
        upstream = echo_server(os.path.join(folder, shim.GATEWAY_SOCKET))
        listener = socket.create_server(("127.0.0.1", 0))
        relaying = threading.Thread(
            target=shim.relay, args=(listener, shim.unix_connector(upstream.getsockname())), daemon=True
        )
        relaying.start()
        with socket.create_connection(listener.getsockname(), timeout=HANG_GUARD_S) as client:
            # No half-close: either side's end closes the relayed pair (HTTP keeps both open).
            client.sendall(b"hello gateway")
            received = b""
            while len(received) < len(b"hello gateway") and (data := client.recv(1024)):
                received += data
        assert received == b"HELLO GATEWAY"
        listener.close()
        upstream.close()


def run_shim(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, shim.RUN_DIR_ENV: str(tmp_path), shim.PORT_ENV: "0", shim.STDIO_ENV: "1"}
    return subprocess.run(
        [sys.executable, shim.__file__, *argv], env=env, capture_output=True, text=True, timeout=HANG_GUARD_S
    )


@pytest.mark.parametrize("code", [0, 7])
def test_the_shim_exits_with_the_agents_exit_code(tmp_path: Path, code: int) -> None:
    assert run_shim(tmp_path, sys.executable, "-c", f"raise SystemExit({code})").returncode == code


def test_no_command_or_a_missing_program_is_said_with_its_own_exit_code(tmp_path: Path) -> None:
    empty = run_shim(tmp_path)
    assert (empty.returncode, empty.stderr.strip()) == (2, "pastbench shim: no agent command given")
    missing = run_shim(tmp_path, str(tmp_path / "no-such-agent"))
    assert missing.returncode == 127
    assert "cannot start" in missing.stderr and "no-such-agent" in missing.stderr
