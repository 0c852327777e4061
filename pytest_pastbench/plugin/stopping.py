"""How a pastbench run stops: Ctrl-C (issue 30, item 1) and the end of the process.

Ctrl-C answers at once with one line and stops the sessions still in flight at their next model
call; the files are written and the command that finishes the run is printed after, as the last
line (plugin/finish.py). At the end pytest runs five full garbage collections (to surface
unraisable exceptions); each walks every object still alive, so the heap is frozen first.

After a Ctrl-C the item threads left behind may be inside an import (litellm's takes seconds).
Once Python starts finalizing it freezes them where they stand, holding the import lock, and a
finalizer that imports (litellm's aiohttp transport's ``__del__`` does) then waits forever:
measured, a run still alive 120 s after Ctrl-C. So the process of an interrupted run ends at the
start of its exit handlers (``end_without_finalizing``), and has a deadline to exit by
(``exit_by_deadline``) for whatever else waits on those threads.
"""

from __future__ import annotations

import atexit
import contextlib
import faulthandler
import functools
import gc
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


# After a Ctrl-C, once the run's files are written: what pytest, litellm's exit handlers and the
# interpreter still do gets this long, then the process exits as interrupted (exit code 2).
EXIT_DEADLINE_S = 15.0
# The backstop, in C, for a shutdown that has already stopped Python threads: it prints every
# thread's stack and exits (code 1).
BACKSTOP_S = 30.0
# In the run's folder, when the deadline is reached: every thread's stack, for a bug report.
STOPPING_STACKS = "stopping-stacks.txt"

# Set when this module is first imported: a pytest run in a subprocess of a test inherits the
# test's PYTEST_CURRENT_TEST, a run in the test's own process (pytester in-process) does not.
_TEST_VARIABLE_AT_IMPORT = "PYTEST_CURRENT_TEST" in os.environ
_open_runs: list[object] = []


def nested_run() -> bool:
    """True when a run starting now is nested in a test of another pytest run in this same
    process, whose process goes on after it ends."""
    return bool(_open_runs) or ("PYTEST_CURRENT_TEST" in os.environ and not _TEST_VARIABLE_AT_IMPORT)


def open_run(config: object) -> bool:
    """Count ``config`` as open in this process; whether it is nested (``nested_run``)."""
    nested = nested_run()
    _open_runs.append(config)
    return nested


def close_run(config: object) -> None:
    if config in _open_runs:
        _open_runs.remove(config)


def interrupted_line(finished: int) -> str:
    if finished:
        return f"pastbench: interrupted: {finished} finished items are kept; the rest stop now"
    return "pastbench: interrupted before any item finished: nothing measured, nothing saved"


def interrupt_kept(hook: Callable[P, R]) -> Callable[P, R]:
    """``hook`` with a Ctrl-C kept a Ctrl-C. One that lands in an import at configure, inside a
    pydantic model class, comes out wrapped (``RuntimeError: Error calling __set_name__ …``), and
    pytest reports that as an INTERNALERROR traceback instead of stopping."""

    @functools.wraps(hook)  # pluggy reads the hook's arguments through __wrapped__
    def kept(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return hook(*args, **kwargs)
        except KeyboardInterrupt:
            _say_interrupted_at_start()
            raise
        except Exception as exc:
            seen: list[BaseException] = []
            cause: BaseException | None = exc
            while cause is not None and not any(cause is s for s in seen):
                if isinstance(cause, KeyboardInterrupt):
                    _say_interrupted_at_start()
                    raise KeyboardInterrupt from None
                seen.append(cause)
                cause = cause.__cause__ or cause.__context__
            raise

    return kept


def _say_interrupted_at_start() -> None:
    # pytest prints nothing for an interrupt at configure (its reporter's summary never runs).
    sys.stderr.write(interrupted_line(0) + "\n")


def stop_the_run(pastbench: Any, terminal: Any, nested: bool) -> None:
    """Every process (xdist's workers get the signal too) stops its model calls and, unless
    nested, sets a deadline to exit by (the run's files are written after this: a long one); the
    controller says so in one line."""
    pastbench.models.stop()
    if not nested:
        exit_by_deadline(None, deadline_s=4 * EXIT_DEADLINE_S)
    if pastbench.is_worker or terminal is None:
        return
    # Below the progress letters: under xdist pytest does not know a letter line is open.
    if terminal.config.get_terminal_writer().width_of_current_line:
        terminal.write("\n")
    terminal.write_line(interrupted_line(len(pastbench.payloads)), yellow=True, bold=True)


def freeze_after_interrupt(stopped: bool, nested: bool) -> None:
    """After Ctrl-C, before pytest's own collections: what is alive (litellm's modules, maybe
    still being imported on an item's thread) lives until the process exits, so walking it only
    keeps the person waiting (seconds under load)."""
    if stopped and not nested:
        gc.freeze()


def collect_then_freeze(nested: bool) -> None:
    """At the end of a whole run: the loaded families, records, traces and modules cost every
    xdist worker and the controller up to seconds a pass (measured 0.07-0.36 s). Collect until
    nothing is freed, so finalizers still run and report here, then freeze what is left. Not in a
    run nested in a test (pytester in-process), whose process goes on."""
    if nested:
        return
    for _ in range(5):
        if not gc.collect():
            break
    gc.freeze()


def end_of_process(nested: bool, stopped: bool, run_dir: Path | None) -> None:
    """The last of a run in its process: the heap collected and frozen, and after a Ctrl-C the
    short deadline to exit by."""
    collect_then_freeze(nested)
    if stopped and not nested:
        exit_by_deadline(run_dir)
        atexit.register(end_without_finalizing)  # registered last, run first


def end_without_finalizing() -> None:
    """An exit handler for an interrupted run: everything of the run is written, so exit as
    interrupted now, before litellm's exit handlers and the interpreter's finalization."""
    _flush_std_streams()
    os._exit(2)  # pytest.ExitCode.INTERRUPTED


def _flush_std_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()


def exit_by_deadline(run_dir: Path | None, deadline_s: float = EXIT_DEADLINE_S) -> None:
    """After a Ctrl-C, in a process that is not nested: if it is still alive ``deadline_s`` from
    now, write where each thread stands to the run's folder (for a bug report), say so in one line
    and exit as interrupted. Every file the run wrote is whole (written atomically)."""
    stacks = run_dir / STOPPING_STACKS if run_dir is not None else None

    def expire() -> None:
        time.sleep(deadline_s)
        where = ""
        if stacks is not None:
            try:
                with stacks.open("w") as out:
                    faulthandler.dump_traceback(out, all_threads=True)
                where = f" (what each thread was doing: {stacks})"
            except OSError:
                pass
        sys.stderr.write(f"pastbench: still stopping {deadline_s:g} s after Ctrl-C; exiting now{where}\n")
        _flush_std_streams()
        os._exit(2)  # pytest.ExitCode.INTERRUPTED; what is left to run is only waiting

    threading.Thread(target=expire, name="pastbench-exit-deadline", daemon=True).start()
    faulthandler.dump_traceback_later(deadline_s + BACKSTOP_S, exit=True)
