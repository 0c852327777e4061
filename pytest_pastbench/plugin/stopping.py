"""How a pastbench run stops: Ctrl-C (issue 30, item 1) and the end of the process.

Ctrl-C answers at once with one line and stops the sessions still in flight at their next model
call; the files are written and the command that finishes the run is printed after, as the last
line (plugin/finish.py). At the end pytest runs five full garbage collections (to surface
unraisable exceptions); each walks every object still alive, so the heap is frozen first.
"""

from __future__ import annotations

import functools
import gc
import sys
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


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


def stop_the_run(pastbench: Any, terminal: Any) -> None:
    """Every process (xdist's workers get the signal too) stops its model calls; the controller
    says so in one line."""
    pastbench.models.stop()
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
