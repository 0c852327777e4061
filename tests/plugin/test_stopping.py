"""How a run stops: the Ctrl-C line, who writes it, when the heap is frozen, and the deadline a
stopping process exits by."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_pastbench.plugin import stopping


class Terminal:
    def __init__(self, open_line: int) -> None:
        writer = SimpleNamespace(width_of_current_line=open_line)
        self.config = SimpleNamespace(get_terminal_writer=lambda: writer)
        self.written: list[str] = []

    def write(self, text: str) -> None:
        self.written.append(text)

    def write_line(self, text: str, **markup: Any) -> None:
        self.written.append(text + "\n")


class Models:
    stopped = False

    def stop(self) -> None:
        self.stopped = True


def run(is_worker: bool, finished: int) -> SimpleNamespace:
    return SimpleNamespace(models=Models(), is_worker=is_worker, payloads=dict.fromkeys(range(finished)))


def test_the_line_says_what_is_kept() -> None:
    assert (
        stopping.interrupted_line(3) == "pastbench: interrupted: 3 finished items are kept; the rest stop now"
    )
    assert "nothing measured, nothing saved" in stopping.interrupted_line(0)


def test_the_controller_stops_its_models_and_writes_the_line_below_open_progress_letters() -> None:
    pastbench, terminal = run(is_worker=False, finished=2), Terminal(open_line=5)
    stopping.stop_the_run(pastbench, terminal, nested=True)
    assert pastbench.models.stopped
    assert terminal.written == ["\n", stopping.interrupted_line(2) + "\n"]
    terminal = Terminal(open_line=0)
    stopping.stop_the_run(run(is_worker=False, finished=2), terminal, nested=True)
    assert terminal.written == [stopping.interrupted_line(2) + "\n"]


def test_a_worker_stops_its_models_and_says_nothing() -> None:
    pastbench, terminal = run(is_worker=True, finished=2), Terminal(open_line=5)
    stopping.stop_the_run(pastbench, terminal, nested=True)
    assert pastbench.models.stopped and terminal.written == []
    stopping.stop_the_run(
        run(is_worker=False, finished=0), None, nested=True
    )  # no terminal: nothing to write


class Gc:
    """gc as stopping.py sees it, so the test process's own collector is left alone."""

    def __init__(self, freed: list[int]) -> None:
        self.freed, self.collections, self.frozen = freed, 0, False

    def collect(self) -> int:
        self.collections += 1
        return self.freed.pop(0) if self.freed else 0

    def freeze(self) -> None:
        self.frozen = True


def test_the_end_of_a_run_collects_until_nothing_is_freed_then_freezes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = Gc(freed=[40, 3, 0, 7])
    monkeypatch.setattr(stopping, "gc", fake)
    stopping.collect_then_freeze(nested=False)
    assert (fake.collections, fake.frozen) == (3, True)
    fake = Gc(freed=[1] * 9)
    monkeypatch.setattr(stopping, "gc", fake)
    stopping.collect_then_freeze(nested=False)
    assert (fake.collections, fake.frozen) == (5, True)  # at most pytest's own five passes


def test_a_nested_run_and_an_uninterrupted_one_leave_the_heap_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = Gc(freed=[5])
    monkeypatch.setattr(stopping, "gc", fake)
    stopping.collect_then_freeze(nested=True)
    stopping.freeze_after_interrupt(stopped=True, nested=True)
    stopping.freeze_after_interrupt(stopped=False, nested=False)
    assert (fake.collections, fake.frozen) == (0, False)
    stopping.freeze_after_interrupt(stopped=True, nested=False)
    assert fake.frozen


def test_a_run_is_nested_only_inside_another_run_of_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """A subprocess of a test inherits PYTEST_CURRENT_TEST and is a whole process of its own; a
    run in the test's own process (pytester in-process) is nested."""
    monkeypatch.setattr(stopping, "_open_runs", [])
    monkeypatch.setattr(stopping, "_TEST_VARIABLE_AT_IMPORT", True)
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "a test (call)")
    outer, inner = object(), object()
    assert stopping.open_run(outer) is False  # inherited: this process is the run's own
    assert stopping.open_run(inner) is True and stopping.nested_run()
    stopping.close_run(inner)
    stopping.close_run(outer)
    assert not stopping.nested_run()
    monkeypatch.setattr(stopping, "_TEST_VARIABLE_AT_IMPORT", False)
    assert stopping.nested_run()  # set by a test of this process after the plugin was imported
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    assert not stopping.nested_run()


STUCK = textwrap.dedent(
    """
    import sys, threading
    from pathlib import Path
    from pytest_pastbench.plugin import stopping

    waiter = threading.Event()
    # A thread the interpreter waits for at exit and that never ends: a stuck shutdown.
    threading.Thread(target=waiter.wait, name="stuck-at-exit").start()
    stopping.exit_by_deadline(Path(sys.argv[1]), deadline_s=0.5)
    print("main done", flush=True)
    """
)


def test_a_process_stuck_after_ctrl_c_exits_as_interrupted_with_its_stacks(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", STUCK, str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stderr
    assert "main done" in done.stdout
    stacks = tmp_path / stopping.STOPPING_STACKS
    assert (
        done.stderr.strip()
        == f"pastbench: still stopping 0.5 s after Ctrl-C; exiting now (what each thread was doing: {stacks})"
    )
    assert "in wait" in stacks.read_text()  # the stuck thread, where it stands


def test_a_process_that_ends_in_time_exits_with_its_own_code(tmp_path: Path) -> None:
    code = "from pytest_pastbench.plugin import stopping\nstopping.exit_by_deadline(None, 30)\nexit(7)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (7, "")


FROZEN_IMPORTER = textwrap.dedent(
    """
    import _imp, atexit, sys, threading
    from pytest_pastbench.plugin import stopping

    def import_at_exit():  # as litellm's exit handlers and its transports' __del__ do
        import xml.dom.minidom  # noqa: F401

    atexit.register(import_at_exit)
    if sys.argv[1] == "interrupted":
        stopping.end_of_process(nested=False, stopped=True, run_dir=None)
    held = threading.Event()

    def import_forever():  # an item thread in an import when Ctrl-C came (frozen, at finalizing)
        _imp.acquire_lock()
        held.set()
        threading.Event().wait()

    threading.Thread(target=import_forever, daemon=True).start()
    held.wait()
    print("files written", flush=True)
    """
)


def test_an_interrupted_run_ends_before_an_exit_handler_waits_on_a_thread_left_in_an_import() -> None:
    """The CI hang: an item thread left inside an import, and at exit code that imports (seen:
    a finalizer, waiting forever). An interrupted run's process ends as its exit handlers start,
    as interrupted; the same process not interrupted would wait (checked by hand: still alive
    after 20 s)."""
    done = subprocess.run(
        [sys.executable, "-c", FROZEN_IMPORTER, "interrupted"], capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, "files written\n", "")
