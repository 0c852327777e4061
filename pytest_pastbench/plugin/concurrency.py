"""Many items in flight in one pytest process (``--pastbench-concurrency=K``).

A benchmark run waits on model latency, not on CPU, so one process can keep K items' sessions
in flight on threads (all model traffic goes through the thread-safe model service or gateway).
pytest itself still runs items one by one in its own order: when an item's setup starts, the
next items this process will run are started ahead on K threads, and the setup waits for its
own item's result. Reports, their order, ``-x``/``--maxfail`` and every hook stay pytest's.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any

import pytest

from ..compat.xdist import pending_on, queued_indices, send, worker_count, worker_loop
from ..errors import StoppedBeforeStart

# Results may finish ahead of the item pytest is reporting (a long item at the head): keep at
# most this many times K items started ahead, so a slow head cannot pile up unbounded traces.
AHEAD_FACTOR = 4


class ItemPool:
    """K daemon threads measuring pastbench items ahead of pytest's own loop.

    Daemon threads: Ctrl-C or a crash must not wait for in-flight model calls; every finished
    item has already been reported and written by then (the controller writes as they arrive).
    """

    def __init__(self, concurrency: int, should_stop: Callable[[], bool]) -> None:
        self.concurrency = concurrency
        self._should_stop = should_stop
        self._futures: dict[str, Future[None]] = {}
        self._queue: queue.SimpleQueue[tuple[Any, Future[None]] | None] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._work, name=f"pastbench-item-{n}", daemon=True)
            for n in range(concurrency)
        ]
        for thread in self._threads:
            thread.start()

    def run(self, item: Any, upcoming: Iterator[Any]) -> None:
        """Measure ``item`` (its ``measure_item``), starting ``upcoming`` items ahead meanwhile;
        raise what the measurement raised, in this (pytest's) thread."""
        if item.nodeid not in self._futures:
            self._submit(item)
        for ahead in upcoming:
            if len(self._futures) >= self.concurrency * AHEAD_FACTOR:
                break
            if getattr(ahead, "is_pastbench_item", False) and ahead.nodeid not in self._futures:
                self._submit(ahead)
        future = self._futures.pop(item.nodeid)
        try:
            future.result()
        except StoppedBeforeStart:
            # Stopping was decided after this item was queued but pytest still runs it (a
            # KeyboardInterrupt race): measure it here, as without concurrency.
            item.measure_item()

    def close(self) -> None:
        """Start nothing new; threads end after their current item (not waited for)."""
        for future in self._futures.values():
            future.cancel()
        self._futures.clear()
        for _ in self._threads:
            self._queue.put(None)

    def _submit(self, item: Any) -> None:
        future: Future[None] = Future()
        self._futures[item.nodeid] = future
        self._queue.put((item, future))

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            item, future = job
            if not future.set_running_or_notify_cancel():
                continue
            if self._should_stop():
                future.set_exception(StoppedBeforeStart())
                continue
            try:
                item.measure_item()
            except BaseException as exc:  # noqa: BLE001 - re-raised in pytest's thread
                future.set_exception(exc)
            else:
                future.set_result(None)


def upcoming_items(item: pytest.Item) -> Iterator[pytest.Item]:
    """The items this process will run after ``item``, in order, as far as it knows them: the
    rest of the session's items, or under xdist the ones the controller has sent this worker."""
    session = item.session
    interactor = worker_loop(item.config)
    if interactor is None:
        index = _index_of(session, item)
        yield from session.items[index + 1 :] if index is not None else ()
        return
    # xdist's worker loop keeps the next index aside and the rest in its queue (private API).
    for index in queued_indices(interactor):
        if isinstance(index, int) and 0 <= index < len(session.items):
            yield session.items[index]


def _index_of(session: pytest.Session, item: pytest.Item) -> int | None:
    cached: dict[int, int] | None = getattr(session, "_pastbench_index", None)
    if cached is None or len(cached) != len(session.items):
        cached = {id(it): n for n, it in enumerate(session.items)}
        session._pastbench_index = cached  # type: ignore[attr-defined]
    return cached.get(id(item))


def keep_k_pending_scheduler(config: pytest.Config, log: Any, concurrency: int) -> Any:
    """xdist's load scheduler, refilling each worker before its K sessions run dry.

    xdist sends a worker more items only once it is down to one or two unreported ones (items
    that run longer than 0.1 s "would only create imbalance"); a worker can start only the items
    it was sent, so its K sessions in flight fell away before every refill (measured: -n 2 × K=32
    at 1 s per call, items span 114 s against 64 s ideal). Here a worker is topped up to 2 × K
    unreported items (its fair share of what is left, near the end), then xdist decides as before.
    """
    # lazy: xdist, only for a run under xdist
    from xdist.scheduler import LoadScheduling

    keep = 2 * concurrency

    class KeepKPending(LoadScheduling):  # type: ignore[misc] - xdist is untyped here
        def check_schedule(self, node: Any, duration: float = 0) -> None:
            pending = pending_on(self, node)
            if self.pending and not node.shutting_down and len(pending) < keep:
                share = -(-len(self.pending) // worker_count(self))  # ceil: the tail stays balanced
                send(self, node, min(keep - len(pending), share))
                return
            super().check_schedule(node, duration)

    return KeepKPending(config, log)
