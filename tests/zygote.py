"""Child pytest runs forked from a warm interpreter, for the project's own tests.

Some 200 tests start a whole pytest run in a subprocess (``pytester.runpytest_subprocess``). Each
such process spent about 4 s of CPU importing litellm before its first item, most of a small run
and, summed, minutes of the suite. Here one helper process per test process imports litellm (and
the other third-party libraries every run loads) once and stays single-threaded; each child run is
``fork()``-ed from it. The child is still a process of its own: pytest starts in it from scratch
with the test's argv, working directory, environment and output files, loads its plugins (this
package included, which the helper never imports, so pytest's assertion rewriting sees it fresh),
and exits through the interpreter's normal shutdown. What it skips is only the third-party
import, whose result the fork copies.

A test that must see a cold interpreter (what a run imports at start) asks for it with the
``fresh_interpreter`` marker; ``pytester.popen`` calls with options of their own (a new session,
a pipe) always get a real subprocess. ``PASTBENCH_TEST_CHILDREN=cold`` turns the forking off for a
whole test run (to compare, or to rule it out).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from typing import IO, Any

# What every child run imports before its first item and that does not depend on the test:
# litellm is the bulk (with openai, httpx, pydantic and aiohttp under it).
PRELOADED = ("litellm", "yaml", "pydantic", "pytest", "tabulate", "jinja2")

_HELPER = r"""
import json, os, socket, sys
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # as the harness imports it
for name in sys.argv[2:]:
    __import__(name)
# A pytest plugin's package imported here (anyio, under httpx) would make every child's pytest warn
# that it cannot rewrite its asserts; it would have rewritten none of them that any run executes.
from importlib.metadata import distributions
for dist in distributions():
    plugins = [e.value.split(".")[0] for e in dist.entry_points if e.group == "pytest11"]
    if plugins:
        for top in {*plugins, *(dist.read_text("top_level.txt") or "").split()}:
            module = sys.modules.get(top)
            if module is not None:
                module.__doc__ = (module.__doc__ or "") + " PYTEST_DONT_REWRITE"
channel = socket.socket(fileno=int(sys.argv[1]))

def serve():
    while True:
        message, fds, _, _ = socket.recv_fds(channel, 1 << 20, 2)
        if not message:
            return None
        request = json.loads(message)
        pid = os.fork()
        if pid == 0:
            channel.close()
            return request, fds
        for fd in fds:
            os.close(fd)
        channel.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        _, status = os.waitpid(pid, 0)
        channel.sendall(json.dumps({"status": os.waitstatus_to_exitcode(status)}).encode() + b"\n")

job = serve()
if job is None:
    raise SystemExit(0)
request, (out, err) = job
null = os.open(os.devnull, os.O_RDONLY)
os.dup2(null, 0)
os.dup2(out, 1)
os.dup2(err, 2)
for fd in (null, out, err):
    os.close(fd)
os.chdir(request["cwd"])
os.environ.clear()
os.environ.update(request["env"])
# What `python -m pytest` would have put first on sys.path: the working directory, then PYTHONPATH.
extra = [request["cwd"], *filter(None, request["env"].get("PYTHONPATH", "").split(os.pathsep))]
sys.path[:0] = [p for p in extra if p not in sys.path]
sys.argv = ["pytest", *request["args"]]
import runpy
runpy.run_module("pytest", run_name="__main__", alter_sys=True)  # exactly `python -m pytest`
"""


class _Helper:
    """The warm interpreter of this test process, and the one channel to it."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        self.channel = ours
        self.reader = ours.makefile("rb")
        self.process = subprocess.Popen(
            [sys.executable, "-c", _HELPER, str(theirs.fileno()), *PRELOADED],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            cwd="/",  # each child changes to its own
        )
        theirs.close()
        self.lock = threading.Lock()

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        """At the test process's exit: the helper ends when its channel closes; reap it."""
        self.channel.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


class ForkedRun:
    """The part of ``subprocess.Popen`` that ``Pytester.run`` uses, for one forked child run."""

    stdin = None

    def __init__(self, helper: _Helper, args: list[str], cwd: str, env: dict[str, str], out: IO, err: IO):
        self._helper = helper
        helper.lock.acquire()  # one child at a time per channel; released when it is reaped
        request = json.dumps({"args": args, "cwd": cwd, "env": env}).encode()
        socket.send_fds(helper.channel, [request], [out.fileno(), err.fileno()])
        self.pid: int = json.loads(helper.reader.readline())["pid"]
        self.returncode: int | None = None

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is not None:
            return self.returncode
        self._helper.channel.settimeout(timeout)
        try:
            line = self._helper.reader.readline()
        except TimeoutError:
            raise subprocess.TimeoutExpired(["pytest"], timeout) from None
        finally:
            self._helper.channel.settimeout(None)
        self.returncode = json.loads(line)["status"]
        self._helper.lock.release()
        return self.returncode

    def poll(self) -> int | None:
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


_helper: _Helper | None = None
_start = threading.Lock()


def helper() -> _Helper:
    global _helper
    with _start:
        if _helper is None or not _helper.alive():
            _helper = _Helper()
            atexit.register(_helper.close)
        return _helper


def forked_popen(original: Any) -> Any:
    """``Pytester.popen`` that forks ``python -mpytest`` runs with plain output files from the warm
    interpreter, and hands every other command to ``original``."""

    def popen(
        cmdargs: Any,
        stdout: Any = subprocess.PIPE,
        stderr: Any = subprocess.PIPE,
        stdin: Any = None,
        **kw: Any,
    ):
        args = [os.fspath(a) for a in cmdargs]
        plain_files = all(hasattr(s, "fileno") for s in (stdout, stderr))
        if args[:2] != [sys.executable, "-mpytest"] or kw or not plain_files or not _closed_stdin(stdin):
            return original(
                cmdargs, stdout=stdout, stderr=stderr, **({"stdin": stdin} if stdin is not None else {}), **kw
            )
        env = os.environ.copy()
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), env.get("PYTHONPATH", "")]))
        stdout.flush()
        stderr.flush()
        return ForkedRun(helper(), args[2:], os.getcwd(), env, stdout, stderr)

    return popen


def _closed_stdin(stdin: Any) -> bool:
    from _pytest.pytester import Pytester

    return stdin is None or stdin is Pytester.CLOSE_STDIN
