"""Adaptive per-provider limits on model calls in flight: AIMD on 429s, honouring Retry-After.

A provider that answers 429 is taking fewer calls than the run sends. Each provider starts at
``--pastbench-max-connections`` calls in flight; a 429 halves its limit, and successes raise it
back by one per limit's worth of them (TCP's congestion window, in calls), never above the
ceiling nor below 1. A 429 with Retry-After also holds every new call to that provider until
then. The 429s of calls sent before the last decrease answer the same overload, so one burst
lowers the limit once, not once per call in flight.

A provider that answers only 429 would, at a limit of 1, take one attempt per Retry-After for
every item of the run. So once a call sent alone (limit 1, nothing else in flight) has met 429 as
many times in a row as one item may attempt, with no success since, the provider is *exhausted*:
new attempts fail at once (``ProviderExhausted``) while one probe at a time still goes after the
hold; its success closes the breaker and AIMD goes on from 1.

The limits live in the ``ModelService`` (in-process, or the gateway's process under xdist), so
every worker, agent and judge shares them; the summary's ``run.rate_limits`` counts the changes.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import ProviderExhausted

Clock = Callable[[], float]


@dataclass
class Slot:
    """One call's place in flight. The caller marks how the call ended with ``failed``; a slot
    left unmarked when its block ends without an exception is a success."""

    generation: int = 0  # the limit's decrease count when the call was sent
    rate_limited: bool = False
    retry_after_s: float | None = None
    error: bool = False
    alone: bool = False  # sent at a limit of 1 with nothing else in flight
    probe: bool = False  # the one attempt let through while the provider is exhausted

    def failed(self, rate_limited: bool = False, retry_after_s: float | None = None) -> None:
        self.error = True
        self.rate_limited = rate_limited
        self.retry_after_s = retry_after_s


class AdaptiveLimit:
    """One provider's limit (thread-safe). ``slot()`` blocks until a call may start, or raises
    ``ProviderExhausted`` while the provider is exhausted and this call is not its probe.

    ``give_up_after``: lone 429s in a row that make the provider exhausted; the model service
    passes its retry attempts. Why that many: AIMD has already gone as low as it can (1 in flight,
    each Retry-After honoured), and a call sent alone still failed as often as one item may try,
    so every further item would only repeat that verdict, one Retry-After at a time. A burst of
    429s at a higher limit never counts (AIMD answers it), and any success starts the count over.
    """

    def __init__(self, ceiling: int, clock: Clock = time.monotonic, give_up_after: int = 4) -> None:
        if ceiling < 1:
            raise ValueError(f"a limit needs a ceiling of at least 1, not {ceiling}")
        if give_up_after < 1:
            raise ValueError(f"give_up_after must be at least 1, not {give_up_after}")
        self.ceiling = ceiling
        self.limit = ceiling
        self.lowest = ceiling
        self.in_flight = 0
        self.paused_until = -math.inf
        self.decreases = 0
        self.increases = 0
        self.rate_limited = 0  # 429 answers seen
        self.give_up_after = give_up_after
        self.exhausted = False
        self.exhaustions = 0  # times the breaker opened
        self.refused = 0  # attempts failed fast while exhausted
        self._in_a_row = 0  # 429s since the last success
        self._alone_in_a_row = 0  # of them, calls sent alone at a limit of 1
        self._probing = False
        self._clock = clock
        self._successes = 0  # since the limit last changed: limit of them raise it by one
        self._generation = 0
        self._changed = threading.Condition()

    def try_acquire(self) -> Slot | float:
        """A slot, or the seconds to wait before asking again (``math.inf``: until one is freed).
        Raises ``ProviderExhausted`` while exhausted, unless this is the probe."""
        with self._changed:
            wait = self.paused_until - self._clock()
            if self.exhausted:
                if wait > 0 or self._probing or self.in_flight >= self.limit:
                    self.refused += 1
                    raise ProviderExhausted(self._in_a_row)
                self._probing = True
                self.in_flight += 1
                return Slot(self._generation, alone=self.in_flight == 1, probe=True)
            if wait > 0:
                return wait
            if self.in_flight >= self.limit:
                return math.inf
            self.in_flight += 1
            return Slot(self._generation, alone=self.limit == 1 and self.in_flight == 1)

    def acquire(self) -> Slot:
        with self._changed:
            while True:
                admitted = self.try_acquire()  # the condition's lock is reentrant
                if isinstance(admitted, Slot):
                    return admitted
                self._changed.wait(None if math.isinf(admitted) else admitted)

    def release(self, slot: Slot, ended: bool = True) -> None:
        """Free the slot; ``ended``: the call's block finished (False when it was interrupted)."""
        with self._changed:
            self.in_flight -= 1
            if slot.probe:
                self._probing = False
            if slot.rate_limited:
                self._on_rate_limited(slot)
            elif ended and not slot.error:
                self._on_success()
            self._changed.notify_all()

    @contextmanager
    def slot(self) -> Iterator[Slot]:
        slot = self.acquire()
        ended = False
        try:
            yield slot
            ended = True
        finally:
            self.release(slot, ended)

    def stats(self) -> dict[str, int]:
        with self._changed:
            return {
                "max_connections": self.ceiling,
                "rate_limited": self.rate_limited,
                "decreases": self.decreases,
                "increases": self.increases,
                "lowest_limit": self.lowest,
                "exhausted": self.exhaustions,
                "refused": self.refused,
            }

    def _on_rate_limited(self, slot: Slot) -> None:
        self.rate_limited += 1
        self._in_a_row += 1
        if slot.retry_after_s is not None and slot.retry_after_s > 0:
            self.paused_until = max(self.paused_until, self._clock() + slot.retry_after_s)
        if slot.alone:
            self._alone_in_a_row += 1
            if not self.exhausted and self._alone_in_a_row >= self.give_up_after:
                self.exhausted = True
                self.exhaustions += 1
        if slot.generation != self._generation:
            return  # sent before the last decrease: the overload that decrease answered
        self._generation += 1
        self._successes = 0
        if self.limit > 1:
            self.limit = max(1, self.limit // 2)
            self.decreases += 1
            self.lowest = min(self.lowest, self.limit)

    def _on_success(self) -> None:
        self._in_a_row = self._alone_in_a_row = 0
        self.exhausted = False
        if self.limit >= self.ceiling:
            return
        self._successes += 1
        if self._successes >= self.limit:
            self._successes = 0
            self.limit += 1
            self.increases += 1


class ProviderLimits:
    """An ``AdaptiveLimit`` per provider, all with the same ceiling and breaker threshold."""

    def __init__(self, ceiling: int, clock: Clock = time.monotonic, give_up_after: int = 4) -> None:
        self.ceiling = ceiling
        self.give_up_after = give_up_after
        self._clock = clock
        self._limits: dict[str, AdaptiveLimit] = {}
        self._lock = threading.Lock()

    def of(self, provider: str) -> AdaptiveLimit:
        with self._lock:
            if provider not in self._limits:
                self._limits[provider] = AdaptiveLimit(self.ceiling, self._clock, self.give_up_after)
            return self._limits[provider]

    def stats_json(self) -> dict[str, dict[str, int]]:
        """The providers that answered 429, by name: what their limits went through."""
        with self._lock:
            limits = sorted(self._limits.items())
        return {provider: stats for provider, limit in limits if (stats := limit.stats())["rate_limited"]}


def merge_rate_limits(blocks: list[dict[str, Any] | None]) -> dict[str, Any]:
    """``run.rate_limits`` of several runs (shards) as one: counts add up, the lowest is the lowest."""
    merged: dict[str, dict[str, int]] = {}
    for block in blocks:
        for provider, stats in sorted((block or {}).items()):
            if provider not in merged:
                merged[provider] = dict(stats)
                continue
            into = merged[provider]
            for key in ("rate_limited", "decreases", "increases", "exhausted", "refused"):
                into[key] = into.get(key, 0) + stats.get(key, 0)
            into["lowest_limit"] = min(into["lowest_limit"], stats["lowest_limit"])
            into["max_connections"] = max(into["max_connections"], stats["max_connections"])
    return dict(sorted(merged.items()))


def rate_limit_line(block: dict[str, Any]) -> str:
    """One terminal line for the providers that answered 429: how far their limits went down,
    and how often they were given up on (only 429s) with the attempts that refused."""
    parts = []
    for provider, stats in sorted(block.items()):
        answers = f"after {stats['rate_limited']} 429s"
        if stats.get("exhausted"):
            answers += (
                f", given up on {stats['exhausted']}× (only 429s; {stats.get('refused', 0)} attempts refused)"
            )
        if stats["decreases"]:
            raised = f", raised back {stats['increases']}×" if stats["increases"] else ""
            parts.append(
                f"{provider} lowered {stats['decreases']}× (min {stats['lowest_limit']} in flight) "
                f"{answers}{raised}"
            )
        else:
            parts.append(f"{provider} held at {stats['lowest_limit']} in flight {answers}")
    return "pastbench rate limits: " + "; ".join(parts)
