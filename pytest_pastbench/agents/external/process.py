"""The subprocess adapter: the agent is a local program speaking ``pastbench-agent/1`` on stdio.

Every session starts the program afresh with nothing of earlier sessions but the store:

- a fresh, empty ``HOME``, ``TMPDIR``, ``XDG_*`` folders and working directory, removed when the
  session ends, so state a framework keeps on disk by itself (``~/.mem0``, ``~/.cache``, a
  SQLite checkpointer in the working directory) can never carry memory from the on arm into the
  off arm, or from one episode into the next;
- in the project's bubblewrap sandbox (``sandbox.py``): no network but its own loopback, where
  the shim (``shim.py``) relays one port to the session's gateway; a read-only view of the
  system, the run's Python, the program's own installation (its venv), its agent file's folder and
  the store; the session's folders the only writable ones. ``--pastbench-no-agent-sandbox`` turns
  the sandbox off for debugging, loudly (the fresh folders stay);
- in its own process group (killed as a whole when the session ends or its wall-clock budget
  runs out) with a small environment: the gateway settings, ``PATH``, locale, ``PYTHONPATH``,
  ``VIRTUAL_ENV``, what the agent file sets in ``env`` and the variables it names in ``pass_env``.
  Provider keys are not passed: the program reaches the model only through the gateway.

A relative argument that names a file in the agent file's folder is made absolute (the program no
longer starts in that folder).
"""

from __future__ import annotations

import collections
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

from pytest_pastbench.core import sandbox
from pytest_pastbench.errors import InfraError
from pytest_pastbench.models.gateway import AgentScope
from pytest_pastbench.resources import package_dir

from ..base import SessionContext
from . import shim
from .driver import STDERR_TAIL_BYTES, ExternalAgent, LineChannel, agent_environment, mcp_environment
from .mcp_server import MCP_PATH, McpToolServer
from .mcp_stdio import URL_ENV as MCP_URL_ENV

PASSED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH", "VIRTUAL_ENV")
SANDBOX_GATEWAY_PORT = 8080  # inside the sandbox's own network namespace: no clash with the host
SANDBOX_MCP_PORT = 8081
XDG_DIRS = {
    "XDG_CONFIG_HOME": ".config",
    "XDG_CACHE_HOME": ".cache",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
}


def base_environment(pass_env: list[str], defaults: tuple[str, ...] = PASSED_ENV) -> dict[str, str]:
    """The host variables an external agent may see: ``defaults`` and those the agent file names."""
    return {name: os.environ[name] for name in (*defaults, *pass_env) if name in os.environ}


class SessionFolders:
    """One session's own, empty ``HOME``, ``TMPDIR``, XDG folders and working directory."""

    def __init__(self) -> None:
        # Short: the gateway's unix socket lives here (a socket path is at most 107 bytes).
        self.root = Path(tempfile.mkdtemp(prefix="pb-session-")).resolve()
        self.home, self.work, self.tmp = self.root / "home", self.root / "work", self.root / "tmp"
        for folder in (self.home, self.work, self.tmp, *(self.home / d for d in XDG_DIRS.values())):
            folder.mkdir(parents=True, exist_ok=True)

    def environment(self) -> dict[str, str]:
        return {
            "HOME": str(self.home),
            "TMPDIR": str(self.tmp),
            **{name: str(self.home / sub) for name, sub in XDG_DIRS.items()},
            "XDG_RUNTIME_DIR": str(self.tmp),
        }

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


class SubprocessAgent(ExternalAgent):
    serves_mcp = True

    def __init__(
        self,
        name: str,
        command: list[str],
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        pass_env: list[str] | None = None,
        mechanisms: list[str] | None = None,
        read_only: list[Path] | None = None,
        sandboxed: bool = True,
    ) -> None:
        super().__init__(name, mechanisms)
        self.cwd = cwd
        self.command = _absolute_arguments(list(command), cwd)
        self.env = dict(env or {})
        self.pass_env = list(pass_env or [])
        self.read_only = list(read_only or [])
        self.sandboxed = sandboxed
        self._hidden_said = False  # the one warning about files the sandbox cannot read

    def launch(
        self, ctx: SessionContext, scope: AgentScope, mcp: McpToolServer | None = None
    ) -> LocalProcess:
        folders = SessionFolders()
        relays: list[socket.socket] = []
        try:
            base_url, mcp_url = f"{scope.url}/v1", mcp.url if mcp else None
            if self.sandboxed:
                relays.append(_relay_to(scope.url, folders.root / shim.GATEWAY_SOCKET))
                base_url = f"http://127.0.0.1:{SANDBOX_GATEWAY_PORT}/v1"
                if mcp is not None:
                    relays.append(_relay_to(f"http://127.0.0.1:{mcp.port}", folders.root / shim.MCP_SOCKET))
                    mcp_url = f"http://127.0.0.1:{SANDBOX_MCP_PORT}{MCP_PATH}"
            env = {
                **base_environment(self.pass_env),
                **self.env,
                **agent_environment(scope, base_url),
                **mcp_environment(scope, mcp_url),
                **folders.environment(),
            }
            if shutil.which(self.command[0], path=env.get("PATH")) is None:
                raise OSError(f"no such program (PATH={env.get('PATH', '')})")
            command = self._sandboxed(ctx, folders, env) if self.sandboxed else self.command
            popen = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=folders.work,
                env=env,
                start_new_session=True,  # its own process group: one kill ends it and its children
            )
        except sandbox.SandboxUnavailable as exc:
            _close(relays, folders)
            hint = "--pastbench-no-agent-sandbox runs it unsandboxed, for debugging"
            raise InfraError(f"cannot sandbox agent {self.name!r}: {exc} ({hint})") from None
        except (OSError, ValueError) as exc:
            _close(relays, folders)
            raise InfraError(f"cannot start agent command {self.command[0]!r}: {exc}") from None
        return LocalProcess(popen, base_url, mcp_url, on_stop=lambda: _close(relays, folders))

    def _sandboxed(self, ctx: SessionContext, folders: SessionFolders, env: dict[str, str]) -> list[str]:
        """The sandbox's command line: the shim (gateway relay) running the program."""
        env |= {shim.RUN_DIR_ENV: str(folders.root), shim.PORT_ENV: str(SANDBOX_GATEWAY_PORT)}
        env[shim.STDIO_ENV] = "1"
        if MCP_URL_ENV in env:
            env[shim.MCP_PORT_ENV] = str(SANDBOX_MCP_PORT)
        relay = Path(shim.__file__).resolve()
        stores = [Path(ctx.tools.store.root).resolve()] if ctx.tools.store is not None else []
        for store in sandbox.unreadable_in_sandbox(stores):
            store.chmod(0o755)  # the harness's own (0700) temp folder: as root, the sandbox's uid reads it
        package = package_dir()  # mcp_stdio, the stdio bridge, runs from it
        readable = [relay, *stores, package, *self._program_paths(env), *self.read_only]
        # As root the program runs as another uid: a closed (0700) project folder is bound entry
        # by entry, never opened to all users; what stays unreadable is said once.
        ro_paths, hidden = sandbox.readable_binds(sorted({p.resolve() for p in readable if p.exists()}))
        if hidden and not self._hidden_said:
            import pytest  # lazy: pytest, only for this one warning's class

            self._hidden_said = True
            warnings.warn(
                pytest.PytestWarning(
                    f"pastbench: agent {self.name!r}: the sandbox (uid {sandbox.SANDBOX_UID}) cannot read "
                    f"{len(hidden)} file(s) of its program, e.g. {hidden[0]} (mode "
                    f"{hidden[0].stat().st_mode & 0o777:o}); the program runs without them"
                ),
                stacklevel=1,
            )
        sandbox.hand_to_sandbox(folders.root)
        return sandbox.sandbox_command(
            [sys.executable, str(relay), *self.command],
            folders.root,
            cwd=folders.work,
            env=env,
            ro_paths=ro_paths,
        )

    def _program_paths(self, env: dict[str, str]) -> list[Path]:
        """What the program needs to read: its agent file's folder, its scripts' folders, the
        installation of each program it runs through (``env``, a script's ``#!`` line, symlinks:
        the folder above ``bin/``, a venv, /usr, a pyenv), and the venv and PYTHONPATH it is given."""
        paths = [self.cwd] if self.cwd else []
        for program in program_chain(self.command, env.get("PATH")):
            paths += [p.parent.parent for p in {program, program.resolve()} if p.parent.name == "bin"]
        paths += [Path(arg).parent for arg in self.command[1:] if os.path.isabs(arg) and Path(arg).is_file()]
        given = [env.get("VIRTUAL_ENV", ""), *env.get("PYTHONPATH", "").split(os.pathsep)]
        paths += [Path(p) for p in given if p and os.path.isabs(p)]
        return [p for p in paths if p != Path("/")]  # /bin/sh: the system is there already


def program_chain(command: list[str], path_variable: str | None) -> list[Path]:
    """The programs a command runs, found as the kernel and ``env`` would: through ``env``'s
    options and ``NAME=VALUE`` words (``env MODE=x /venv/bin/python agent.py``), then a script's
    ``#!`` interpreter (``#!/usr/bin/env python3`` looked up on PATH), at most a few deep."""
    chain: list[Path] = []
    words = list(command)
    for _ in range(4):  # env -> a script -> its interpreter: deep enough, never a loop
        if not words:
            break
        found = shutil.which(words[0], path=path_variable)
        if found is None:
            break
        program = Path(found)
        chain.append(program)
        if program.name == "env" or program.resolve().name == "env":
            words = _after_env(words[1:])
            continue
        words = _shebang(program)
    return chain


def _after_env(words: list[str]) -> list[str]:
    """``env``'s command: what follows its options and ``NAME=VALUE`` assignments."""
    takes_value = {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}
    rest = list(words)
    while rest:
        word = rest[0]
        if word == "--":
            return rest[1:]
        if word in ("-S", "--split-string") and len(rest) > 1:
            return rest[1].split() + rest[2:]
        if word in takes_value:
            rest = rest[2:]
        elif word.startswith("-") or ("=" in word and not word.startswith("/")):
            rest = rest[1:]
        else:
            return rest
    return []


def _shebang(program: Path) -> list[str]:
    """A script's ``#!`` line as words (``/usr/bin/env python3``), or nothing for a binary."""
    try:
        with program.open("rb") as handle:
            head = handle.read(256)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    return head[2:].split(b"\n", 1)[0].decode("utf-8", errors="replace").split()


def _absolute_arguments(command: list[str], base: Path | None) -> list[str]:
    if base is None:
        return command

    def absolute(arg: str) -> str:
        return str(base / arg) if not os.path.isabs(arg) and (base / arg).is_file() else arg

    return [command[0], *map(absolute, command[1:])]


def _relay_to(gateway_url: str, socket_path: Path) -> socket.socket:
    """A unix socket in the session's folder relaying to the gateway (the shim's other end)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(socket_path))
    os.chmod(socket_path, 0o666)  # the sandbox's uid (as root, another one) connects to it
    listener.listen(16)
    address = urlsplit(gateway_url)
    gateway = (address.hostname or "127.0.0.1", address.port or 80)
    threading.Thread(
        target=shim.relay,
        args=(listener, lambda: socket.create_connection(gateway)),
        name="pastbench-gateway-relay",
        daemon=True,
    ).start()
    return listener


def _close(relays: list[socket.socket], folders: SessionFolders) -> None:
    for relay in relays:
        with contextlib.suppress(OSError):
            relay.close()
    folders.remove()


class LocalProcess:
    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        base_url: str,
        mcp_url: str | None = None,
        on_stop: Callable[[], None] | None = None,
    ) -> None:
        assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
        self.popen = popen
        self.base_url = base_url
        self.mcp_url = mcp_url
        self._on_stop = on_stop
        self._stdin = popen.stdin
        self.channel = LineChannel(popen.stdout, self._write)
        self._stderr: collections.deque[bytes] = collections.deque()
        self._stderr_reader = threading.Thread(
            target=self._drain, args=(popen.stderr,), name="pastbench-agent-stderr", daemon=True
        )
        self._stderr_reader.start()

    def _write(self, data: bytes) -> None:
        self._stdin.write(data)
        self._stdin.flush()

    def _drain(self, stream: IO[bytes]) -> None:
        """Keep the last few kB of stderr (reading it all, so the program never blocks on it)."""
        size = 0
        while chunk := stream.read1(65536):  # type: ignore[attr-defined]
            self._stderr.append(chunk)
            size += len(chunk)
            while size - len(self._stderr[0]) >= STDERR_TAIL_BYTES:
                size -= len(self._stderr.popleft())

    def connect(self, deadline: float) -> None:
        return None  # the pipes are up once the process exists

    def exit_code(self, timeout_s: float) -> int | None:
        try:
            return self.popen.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def stderr_tail(self) -> str:
        if self.popen.poll() is not None:
            self._stderr_reader.join(timeout=1.0)  # an exited program's last words are in the pipe
        return b"".join(self._stderr).decode("utf-8", "replace")

    def stop(self) -> None:
        # The whole group: also children the program left behind (gone already: nothing to do).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait()
        for stream in (self._stdin, self.popen.stdout, self.popen.stderr):
            # A broken pipe on close: the program is gone, which is what we want.
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]
        self._stderr_reader.join(timeout=1.0)
        if self._on_stop is not None:
            on_stop, self._on_stop = self._on_stop, None
            on_stop()  # the session's folders and gateway relay go with the program
