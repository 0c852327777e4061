"""The live status line of a benchmark run (``--pastbench-progress``, plugin ``pastbench_progress``).

One line on the controller (the ``-n 0`` process or the xdist controller): items done / total,
model calls, tokens, dollars so far (or "unpriced"), blocked items and an ETA. Item counts come
from the reports the controller receives; calls, tokens and dollars from the model ledger, read
at most once a second (under xdist that is one loopback request to the gateway).

The ETA is estimated from work done, not items finished: with 8 items in flight per process
(and the longest first), the first item ends when much of the work of many is done, and a count
of finished items put the ETA at 40 minutes for a two-minute run. Work is tokens: the ledger's
are live (they include the items in flight), and the finished items' records say how many an
item takes. Items of different protocols differ by far (an intervention item takes many PAST
items' tokens, and runs first), so the run expects, per protocol, ``mean tokens of its finished
items × its items``; while a protocol with items left has none finished, the ETA is ``--``
rather than a guess from another protocol's items.

- ``tty``: the line is redrawn in place on the row under pytest's own current line, and erased
  (the cursor put back where pytest left it) before pytest writes anything, so the screen pytest
  leaves is the screen it would leave without the line.
- ``plain``: a line on stderr at most every 30 s (CI logs); pytest's stdout is untouched. A CI log
  merges both streams, so the line is written only between pytest's lines: when pytest is in the
  middle of one (``fam.yaml oocc``), it waits for pytest's newline and follows it, a line of its own.
- ``auto`` (default): ``tty`` on a terminal, else ``plain``. ``off`` or ``-p no:pastbench_progress``
  turn it off.

Drawn only from pytest's hooks on the main thread: while an item runs, pytest captures the
process's stdout, and a write from another thread would land in that item's captured output.
"""

from __future__ import annotations

import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import pytest

from ..compat.pytest import set_writer_stream, writer_stream
from ..protocols.detect import family_format
from .run_handle import PAYLOAD_ATTR

PLUGIN_NAME = "pastbench_progress"
PLAIN_EVERY_S = 30.0  # CI logs: a line at most this often
LEDGER_EVERY_S = 1.0  # the ledger is read at most this often (a request to the gateway)
_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def register_progress(config: pytest.Config, mode: str, ledger: Callable[[], dict[str, Any]]) -> None:
    """Register the status line on the controller (a no-op when ``-p no:pastbench_progress``)."""
    if mode != "off" and not hasattr(config, "workerinput"):
        # A blocked name (``-p no:pastbench_progress``) makes register() a no-op that returns None.
        config.pluginmanager.register(ProgressLine(config, mode, ledger), PLUGIN_NAME)


class ProgressLine:
    """The hooks that keep the counts and draw the line (see the module docstring)."""

    def __init__(
        self,
        config: pytest.Config,
        mode: str,
        ledger: Callable[[], dict[str, Any]],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.mode = mode
        self.total = 0
        self.done = 0
        self.blocked = 0
        self._ledger_source = ledger
        self._ledger: dict[str, Any] = {}
        self._ledger_read_at = -float("inf")
        self._clock = clock
        self._started: float | None = None
        self._plain_at = -float("inf")
        self._writer: Any = None
        self._screen: StatusScreen | None = None
        self._tap: _LineTap | None = None  # plain: where pytest's current line stands
        self._pending = False  # plain: a line waiting for pytest's newline (composed when written)
        # Per kind of item (its family file's protocol): items, finished items, their tokens.
        self.total_by: Counter[str] = Counter()
        self.done_by: Counter[str] = Counter()
        self.tokens_by: Counter[str] = Counter()
        self._kinds: dict[str, str] = {}

    def pytest_sessionstart(self) -> None:
        # Here, not at configure: the terminal reporter is configured after this plugin.
        if self.config.pluginmanager.get_plugin("terminalreporter") is None:
            self.mode = "off"  # -p no:terminal
            return
        self._writer = self.config.get_terminal_writer()
        if self.mode == "auto":
            isatty = getattr(writer_stream(self._writer), "isatty", None)
            self.mode = "tty" if isatty and isatty() else "plain"
        if self.mode == "tty":
            self._screen = StatusScreen(self._writer)
        elif self.mode == "plain":
            self._tap = _LineTap(self._writer, self._after_pytest_writes)

    # -- counts ---------------------------------------------------------------------------------

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._count_items(
            [item.nodeid for item in session.items if getattr(item, "is_pastbench_item", False)]
        )

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        # Every worker collects the same items (load scheduling): one node's count is the total.
        items = [nodeid for nodeid in ids if ".yaml::" in nodeid or ".yml::" in nodeid]
        if len(items) > self.total:
            self._count_items(items)

    def _count_items(self, nodeids: list[str]) -> None:
        self.total = len(nodeids)
        self.total_by = Counter(self._kind(nodeid) for nodeid in nodeids)

    def _kind(self, nodeid: str) -> str:
        """The protocol (format tag) of an item's family file, read once per file."""
        file = nodeid.split("::", 1)[0]
        if file not in self._kinds:
            root = getattr(self.config, "rootpath", None)  # node ids are relative to it
            self._kinds[file] = family_format(Path(file) if root is None else root / file) or file
        return self._kinds[file]

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logstart(self) -> None:
        self.update()  # a long first item: the line is there while it runs

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        payload = getattr(report, PAYLOAD_ATTR, None)
        if payload:  # one report per benchmark item carries its payload (call, or a failed setup)
            record = payload.get("record", {})
            self.done += 1
            self.blocked += bool(record.get("infra_blocked"))
            kind = self._kind(report.nodeid)
            self.done_by[kind] += 1
            self.tokens_by[kind] += _record_tokens(record)
        self.update()

    @pytest.hookimpl(tryfirst=True)
    def pytest_unconfigure(self) -> None:
        if self._screen is not None:
            self._screen.detach()
        if self._tap is not None:
            self._tap.detach()

    # -- the line -------------------------------------------------------------------------------

    def update(self) -> None:
        if not self.total or self._writer is None:
            return  # no benchmark items in this run: nothing to say
        now = self._clock()
        if self._started is None:
            self._started = now
            self._plain_at = now  # the first plain line after PLAIN_EVERY_S: a short run prints none
        if self.mode == "plain" and now - self._plain_at < PLAIN_EVERY_S:
            return
        if now - self._ledger_read_at >= LEDGER_EVERY_S:
            self._ledger = self._ledger_source()
            self._ledger_read_at = now
        if self._screen is not None:
            self._screen.show(self._text(now))
            return
        self._plain_at = now
        if self._tap is not None and self._tap.mid_line:
            self._pending = True  # after pytest's newline
            return
        self._write_plain()

    def _text(self, now: float) -> str:
        started = self._started if self._started is not None else now
        work, unknown = self.expected_work()
        return status_text(self.done, self.total, self.blocked, self._ledger, now - started, work, unknown)

    def expected_work(self) -> tuple[float | None, bool]:
        """(the run's expected tokens, or None without a measure of work; whether a kind of item
        with items left has none finished yet, so its size is unknown)."""
        if not any(self.tokens_by.values()):
            return None, False  # offline items that use no tokens: finished items per second
        work = 0.0
        for kind, items in self.total_by.items():
            finished = self.done_by[kind]
            if not finished:
                return None, True
            work += self.tokens_by[kind] / finished * items
        return work, False

    def _write_plain(self) -> None:
        # Composed now, not when it was due: a line held back by pytest's progress letters said
        # "0/2 items" under a finished "[100%]".
        self._pending = False
        self._writer.flush()  # pytest's own output first, in a log that merges both streams
        _stderr().write(self._text(self._clock()) + "\n")
        _stderr().flush()

    def _after_pytest_writes(self) -> None:
        if self._pending and self._tap is not None and not self._tap.mid_line:
            self._write_plain()


def _stderr() -> TextIO:
    return sys.stderr  # looked up each time: pytester and capture replace it


def _record_tokens(record: dict[str, Any]) -> int:
    """The tokens an item's record says it took (0 when it says nothing: not every protocol does)."""
    total = 0
    for key in ("prompt_tokens", "completion_tokens"):
        value = record.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            total += value
    return total


def eta_seconds(
    done: int,
    total: int,
    elapsed_s: float,
    tokens_now: int,
    work_tokens: float | None,
    unknown: bool = False,
) -> float | None:
    """Seconds left, from work done: ``work_tokens`` is the run's expected work, the ledger's
    ``tokens_now`` (items in flight included) what is done of it, at the rate so far. Without a
    measure of work (no finished item recorded tokens, offline items that use none): finished items
    per second. None: nothing to go on yet, or (``unknown``) items of a kind none of which finished."""
    if done >= total:
        return 0.0
    if unknown:
        return None
    if work_tokens and tokens_now > 0:
        left = work_tokens - tokens_now
        if left > 0:
            return elapsed_s * left / tokens_now
        # More work done than the estimate expects: it was too low; fall back to items.
    if done:
        return elapsed_s / done * (total - done)
    return None


def status_text(
    done: int,
    total: int,
    blocked: int,
    ledger: dict[str, Any],
    elapsed_s: float,
    work_tokens: float | None = None,
    unknown: bool = False,
) -> str:
    """``pastbench 12/40 items · 310 calls · 1.2M tokens · $0.42 · 1 blocked · ETA 2m05s``"""
    from ..models.budget import ledger_spent  # lazy: the budget code, only when spend is shown

    calls = sum(int(entry.get("calls", 0)) for entry in ledger.values())
    tokens, cost_usd = ledger_spent(ledger)
    dollars = "unpriced" if cost_usd is None else f"${cost_usd:.2f}"
    left = eta_seconds(done, total, elapsed_s, tokens, work_tokens, unknown)
    eta = "--" if left is None else _duration(left)
    return (
        f"pastbench {done}/{total} items · {calls:,} calls · {_count(tokens)} tokens · {dollars} · "
        f"{blocked} blocked · ETA {eta}"
    )


def _count(n: int) -> str:
    """``950``, ``88.5k``, ``1.2M``: the line must fit an 80-column terminal."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class StatusScreen:
    """One status line on the terminal pytest writes to, out of pytest's way.

    The line goes on the row under pytest's current line (or on that row when pytest's line is
    empty). Every write of pytest's terminal writer first erases it and puts the cursor back at
    the end of pytest's line, so pytest's output is where it would be without the line.
    """

    def __init__(self, writer: Any) -> None:
        self._writer = writer
        # Put a guard in front of the stream pytest's TerminalWriter writes to that erases the
        # line first (a private member: compat/pytest.py).
        self._file: TextIO = writer_stream(writer)
        set_writer_stream(writer, _Guard(self, self._file))
        self._tail = ""  # what pytest wrote since its last newline
        self._below: bool | None = None  # None: not shown; True: on the row under pytest's line
        self._column = 0  # the end of pytest's line, and the terminal width then
        self._width = 80
        self._shown = ""

    def show(self, text: str) -> None:
        width = self._writer.fullwidth
        text = text[: max(0, width - 1)]  # never wraps: one row to erase
        if self._below is not None:
            if text == self._shown:
                return
            self._file.write("\r\x1b[2K" + text)
        else:
            visible = _ESCAPE.sub("", self._tail).rsplit("\r", 1)[-1]
            self._column, self._width = len(visible), width
            if self._column and self._column % width == 0:
                return  # pytest's line ends at the right edge: where the cursor sits is the terminal's call
            self._below = self._column > 0
            self._file.write(("\n" if self._below else "\r") + text)
        self._shown = text
        self._file.flush()

    def erase(self) -> None:
        if self._below is None:
            return
        # Up to the last row of pytest's line (a long line wraps) and to its end on that row.
        back = f"\x1b[1A\x1b[{self._column % self._width + 1}G" if self._below else ""
        self._file.write("\r\x1b[2K" + back)
        self._below = None

    def before_pytest_writes(self, text: str) -> None:
        self.erase()
        self._tail = (self._tail + text).rsplit("\n", 1)[-1]

    def detach(self) -> None:
        self.erase()
        self._file.flush()
        if isinstance(writer_stream(self._writer), _Guard):
            set_writer_stream(self._writer, self._file)


class _LineTap:
    """Plain mode's watch on pytest's stream: whether pytest is in the middle of a line, and a call
    after each of its writes (the writer's stream, as ``StatusScreen`` uses it)."""

    def __init__(self, writer: Any, after_write: Callable[[], None]) -> None:
        self._writer = writer
        self._stream: TextIO = writer_stream(writer)
        self._after_write = after_write
        self.mid_line = False
        set_writer_stream(writer, self)

    def write(self, text: str) -> int:
        written = self._stream.write(text)
        if text:
            self.mid_line = not text.endswith("\n")
            self._after_write()
        return written

    def detach(self) -> None:
        if writer_stream(self._writer) is self:
            set_writer_stream(self._writer, self._stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Guard:
    """Stands in for the terminal writer's stream: erases the status line before each write."""

    def __init__(self, screen: StatusScreen, stream: TextIO) -> None:
        self._screen = screen
        self._stream = stream

    def write(self, text: str) -> int:
        self._screen.before_pytest_writes(text)
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
