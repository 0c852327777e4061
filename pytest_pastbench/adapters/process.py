"""The subprocess adapter: the agent is a local program speaking ``pastbench-agent/1`` on stdio.

The program runs in its own process group (killed as a whole when the session ends or its
wall-clock budget runs out) with a small environment: the gateway settings, a few harmless
variables (``PATH``, ``HOME``, locale, ``PYTHONPATH``, ``VIRTUAL_ENV``), what the profile sets in
``env`` and the variables it names in ``pass_env``. Provider keys are not passed: the program
reaches the model only through the gateway, which counts its tokens.
"""

from __future__ import annotations

import collections
import contextlib
import os
import signal
import subprocess
import threading
from pathlib import Path
from typing import IO

from ..agent import SessionContext
from ..gateway import AgentScope
from ..models import InfraError
from .driver import STDERR_TAIL_BYTES, ExternalAgent, LineChannel, agent_environment

PASSED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV")


def base_environment(pass_env: list[str], defaults: tuple[str, ...] = PASSED_ENV) -> dict[str, str]:
    """The host variables an external agent may see: ``defaults`` and those the profile names."""
    return {name: os.environ[name] for name in (*defaults, *pass_env) if name in os.environ}


class SubprocessAgent(ExternalAgent):
    def __init__(
        self,
        name: str,
        command: list[str],
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        pass_env: list[str] | None = None,
        mechanisms: list[str] | None = None,
    ) -> None:
        super().__init__(name, mechanisms)
        self.command = list(command)
        self.cwd = cwd
        self.env = dict(env or {})
        self.pass_env = list(pass_env or [])

    def launch(self, ctx: SessionContext, scope: AgentScope) -> LocalProcess:
        base_url = f"{scope.url}/v1"
        env = {**base_environment(self.pass_env), **self.env, **agent_environment(scope, base_url)}
        try:
            popen = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                env=env,
                start_new_session=True,  # its own process group: one kill ends it and its children
            )
        except OSError as exc:
            raise InfraError(f"cannot start agent command {self.command[0]!r}: {exc}") from None
        return LocalProcess(popen, base_url)


class LocalProcess:
    def __init__(self, popen: subprocess.Popen[bytes], base_url: str) -> None:
        assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
        self.popen = popen
        self.base_url = base_url
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
