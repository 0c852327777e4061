"""pytest-xdist internals the plugin relies on, in one place.

- A worker's queue: ``WorkerInteractor.torun`` (its lock-guarded queue of item indices) and
  ``nextitem_index`` (the next index, kept aside) tell which items a worker runs next; xdist has
  no public hook for this.
- The load scheduler's refill: ``LoadScheduling.node2pending`` (a worker's unreported items) and
  ``_send_tests`` (send it n more); subclassing the scheduler is xdist's documented way
  (``pytest_xdist_make_scheduler``), these two members are not.

tests/compat/test_xdist.py checks them against the installed xdist.
"""

from __future__ import annotations

from typing import Any

import pytest

WORKER_LOOP_MEMBERS = ("torun", "nextitem_index")
SCHEDULER_MEMBERS = ("node2pending", "_send_tests", "pending", "check_schedule")


def worker_loop(config: pytest.Config) -> Any:
    """xdist's worker loop object on a worker, None on the controller or without xdist."""
    if not hasattr(config, "workerinput"):
        return None
    for plugin in config.pluginmanager.get_plugins():
        if all(hasattr(plugin, name) for name in WORKER_LOOP_MEMBERS):
            return plugin
    return None


def queued_indices(loop: Any) -> list[Any]:
    """The item indices a worker runs next, in order (read under the queue's own lock)."""
    indices: list[Any] = [getattr(loop, "nextitem_index", None)]
    with loop.torun.lock() as pending:
        indices += list(pending)
    return indices


def pending_on(scheduler: Any, node: Any) -> list[Any]:
    """A worker's sent but unreported items (``LoadScheduling.node2pending``)."""
    return scheduler.node2pending[node]


def worker_count(scheduler: Any) -> int:
    return len(scheduler.node2pending)


def send(scheduler: Any, node: Any, count: int) -> None:
    """Send ``count`` more pending items to ``node`` (``LoadScheduling._send_tests``)."""
    scheduler._send_tests(node, count)
