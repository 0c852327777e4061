"""Adaptive per-provider limits (AIMD on 429s, Retry-After), on a fake clock."""

from __future__ import annotations

import math
import threading
import time

import pytest

from pytest_pastbench.errors import ProviderExhausted
from pytest_pastbench.models.rate_limit import (
    AdaptiveLimit,
    ProviderLimits,
    Slot,
    merge_rate_limits,
    rate_limit_line,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def take(limit: AdaptiveLimit) -> Slot:
    slot = limit.try_acquire()
    assert isinstance(slot, Slot), f"no slot free: wait {slot}"
    return slot


def throttled(limit: AdaptiveLimit, slot: Slot, retry_after_s: float | None = None) -> None:
    slot.failed(rate_limited=True, retry_after_s=retry_after_s)
    limit.release(slot)


def succeed(limit: AdaptiveLimit, times: int) -> None:
    for _ in range(times):
        limit.release(take(limit))


def test_a_limit_starts_at_its_ceiling_and_never_lets_more_in_flight() -> None:
    limit = AdaptiveLimit(3, FakeClock())
    slots = [take(limit) for _ in range(3)]
    assert limit.try_acquire() == math.inf  # full: wait for a release
    limit.release(slots[0])
    assert isinstance(limit.try_acquire(), Slot)


def test_a_429_halves_the_limit_and_successes_raise_it_by_one_per_limits_worth() -> None:
    limit = AdaptiveLimit(16, FakeClock())
    throttled(limit, take(limit))
    assert (limit.limit, limit.decreases) == (8, 1)
    succeed(limit, 7)
    assert limit.limit == 8  # additive: 8 successes at 8 in flight add one
    succeed(limit, 1)
    assert (limit.limit, limit.increases) == (9, 1)
    succeed(limit, 9 + 10 + 11 + 12 + 13 + 14 + 15)
    assert limit.limit == 16
    succeed(limit, 100)
    assert (limit.limit, limit.increases) == (16, 8)  # never above the ceiling


def test_one_burst_of_429s_lowers_the_limit_once() -> None:
    limit = AdaptiveLimit(16, FakeClock())
    burst = [take(limit) for _ in range(16)]  # all sent before any answer came back
    for slot in burst:
        throttled(limit, slot)
    assert (limit.limit, limit.decreases, limit.rate_limited) == (8, 1, 16)
    throttled(limit, take(limit))  # sent after the decrease: a new overload
    assert (limit.limit, limit.decreases) == (4, 2)


def test_the_limit_never_goes_below_one_and_remembers_its_lowest() -> None:
    limit = AdaptiveLimit(5, FakeClock(), give_up_after=100)  # the breaker is tested below
    for _ in range(10):
        throttled(limit, take(limit))
    assert (limit.limit, limit.lowest, limit.decreases) == (1, 1, 2)  # 5 -> 2 -> 1, then held
    succeed(limit, 1 + 2)
    assert limit.limit == 3 and limit.lowest == 1
    assert limit.stats() == stats(5, 10, 2, 2, 1)


def test_retry_after_holds_every_new_call_until_then() -> None:
    clock = FakeClock()
    limit = AdaptiveLimit(4, clock)
    other = take(limit)
    throttled(limit, take(limit), retry_after_s=2.5)
    assert limit.try_acquire() == pytest.approx(2.5)  # seconds to wait, though slots are free
    clock.now += 2.0
    assert limit.try_acquire() == pytest.approx(0.5)
    limit.release(other)  # a success during the pause does not end it
    assert limit.try_acquire() == pytest.approx(0.5)
    clock.now += 0.5
    assert isinstance(limit.try_acquire(), Slot)


def test_a_later_retry_after_extends_the_pause_and_an_earlier_one_does_not_shorten_it() -> None:
    clock = FakeClock()
    limit = AdaptiveLimit(4, clock)
    first, second = take(limit), take(limit)
    throttled(limit, first, retry_after_s=5.0)
    throttled(limit, second, retry_after_s=1.0)
    assert limit.try_acquire() == pytest.approx(5.0)


def test_a_429_without_retry_after_does_not_pause() -> None:
    limit = AdaptiveLimit(4, FakeClock())
    throttled(limit, take(limit))
    assert isinstance(limit.try_acquire(), Slot)


def test_other_errors_and_interrupted_calls_leave_the_limit_alone() -> None:
    limit = AdaptiveLimit(8, FakeClock())
    throttled(limit, take(limit))
    failed = take(limit)
    failed.failed()  # a 500: not the provider's rate limit, and not a success either
    limit.release(failed)
    limit.release(take(limit), ended=False)  # Ctrl-C or the run's budget mid-block
    assert (limit.limit, limit.decreases, limit.increases) == (4, 1, 0)
    with pytest.raises(RuntimeError), limit.slot():
        raise RuntimeError("interrupted")
    assert limit.in_flight == 0 and limit._successes == 0


def test_slot_blocks_until_a_place_is_free() -> None:
    limit = AdaptiveLimit(1)
    order: list[str] = []

    def second() -> None:
        with limit.slot():
            order.append("second")

    with limit.slot():
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.2)  # the thread is waiting for the one place by now
        order.append("first")
    thread.join(5)
    assert order == ["first", "second"]


def test_slot_waits_out_a_retry_after_on_the_real_clock() -> None:
    limit = AdaptiveLimit(2)
    with limit.slot() as slot:
        slot.failed(rate_limited=True, retry_after_s=0.3)
    started = time.monotonic()
    with limit.slot():
        waited = time.monotonic() - started
    assert 0.25 <= waited < 2.0


def test_provider_limits_report_only_the_providers_that_answered_429() -> None:
    limits = ProviderLimits(4, FakeClock())
    with limits.of("pastbench").slot():
        pass
    with limits.of("openai").slot() as slot:
        slot.failed(rate_limited=True)
    assert limits.of("openai") is limits.of("openai")
    assert limits.stats_json() == {"openai": stats(4, 1, 1, 0, 2)}


def stats(
    ceiling: int,
    answered_429: int,
    decreases: int,
    increases: int,
    lowest: int,
    exhausted: int = 0,
    refused: int = 0,
) -> dict[str, int]:
    return {
        "max_connections": ceiling,
        "rate_limited": answered_429,
        "decreases": decreases,
        "increases": increases,
        "lowest_limit": lowest,
        "exhausted": exhausted,
        "refused": refused,
    }


def test_shards_merge_by_adding_counts_and_keeping_the_lowest() -> None:
    a, b = {"openai": stats(16, 5, 2, 1, 4)}, {"openai": stats(16, 3, 3, 0, 2, exhausted=1, refused=9)}
    assert merge_rate_limits([a, None, b]) == {"openai": stats(16, 8, 5, 1, 2, exhausted=1, refused=9)}
    assert a["openai"] == stats(16, 5, 2, 1, 4)  # the inputs are not changed


def test_the_terminal_line_says_how_far_each_limit_went() -> None:
    block = {"openai": stats(16, 7, 3, 2, 2), "zai": stats(1, 4, 0, 0, 1)}
    assert rate_limit_line(block) == (
        "pastbench rate limits: openai lowered 3× (min 2 in flight) after 7 429s, raised back 2×; "
        "zai held at 1 in flight after 4 429s"
    )


def test_the_terminal_line_says_when_a_provider_was_given_up_on() -> None:
    block = {"openai": stats(4, 9, 2, 0, 1, exhausted=1, refused=31)}
    assert rate_limit_line(block) == (
        "pastbench rate limits: openai lowered 2× (min 1 in flight) after 9 429s, "
        "given up on 1× (only 429s; 31 attempts refused)"
    )


# -- the breaker: a provider that answers only 429 is given up on, one probe at a time -------------


def exhaust(limit: AdaptiveLimit, clock: FakeClock, retry_after_s: float | None = None) -> None:
    """429s until the breaker opens: AIMD down to 1, then ``give_up_after`` lone ones."""
    while not limit.exhausted:
        throttled(limit, take(limit), retry_after_s)
        clock.now += retry_after_s or 0.0


def test_a_burst_at_a_higher_limit_is_aimds_to_answer_not_the_breakers() -> None:
    limit = AdaptiveLimit(8, FakeClock(), give_up_after=2)
    for slot in [take(limit) for _ in range(8)]:
        throttled(limit, slot)
    assert (limit.limit, limit.exhausted) == (4, False)  # 8 429s in a row, none of them alone


def test_lone_429s_as_many_as_an_item_may_attempt_exhaust_the_provider() -> None:
    clock = FakeClock()
    limit = AdaptiveLimit(4, clock, give_up_after=3)
    throttled(limit, take(limit))
    throttled(limit, take(limit))
    assert limit.limit == 1 and not limit.exhausted  # 4 -> 2 -> 1: the 429s so far were not alone
    throttled(limit, take(limit))
    throttled(limit, take(limit))
    assert not limit.exhausted
    throttled(limit, take(limit))  # the third lone one
    assert (limit.exhausted, limit.exhaustions) == (True, 1)
    probe = take(limit)  # no Retry-After to hold it: the probe goes at once
    with pytest.raises(ProviderExhausted, match=r"provider answered only 429 \(5 in a row\)"):
        limit.try_acquire()
    throttled(limit, probe)
    assert limit.exhausted and limit.stats()["refused"] == 1


def test_a_success_between_lone_429s_starts_the_count_over() -> None:
    limit = AdaptiveLimit(1, FakeClock(), give_up_after=2)
    throttled(limit, take(limit))
    succeed(limit, 1)
    throttled(limit, take(limit))
    assert not limit.exhausted
    throttled(limit, take(limit))
    assert limit.exhausted


def test_while_exhausted_attempts_fail_fast_and_one_probe_goes_after_the_hold() -> None:
    clock = FakeClock()
    limit = AdaptiveLimit(4, clock, give_up_after=2)
    exhaust(limit, clock, retry_after_s=1.0)
    throttled(limit, take(limit), retry_after_s=1.0)  # a probe that met 429 again: still exhausted
    assert limit.exhausted
    with pytest.raises(ProviderExhausted, match=r"\(5 in a row\)"):
        limit.try_acquire()  # during the hold: refused, not told to wait
    clock.now += 1.0
    probe = take(limit)
    assert probe.probe
    with pytest.raises(ProviderExhausted):
        limit.try_acquire()  # the probe is in flight: nobody else
    limit.release(probe)  # it succeeded: the breaker closes and AIMD goes on from 1
    assert not limit.exhausted
    assert isinstance(limit.try_acquire(), Slot)
    assert limit.stats() == stats(4, 5, 2, 1, 1, exhausted=1, refused=2)


def test_a_failed_or_interrupted_probe_frees_the_probe_place() -> None:
    clock = FakeClock()
    limit = AdaptiveLimit(1, clock, give_up_after=1)
    exhaust(limit, clock)
    with pytest.raises(RuntimeError), limit.slot():
        raise RuntimeError("interrupted")
    probe = take(limit)
    probe.failed()  # a 500: neither 429 nor success
    limit.release(probe)
    assert limit.exhausted and isinstance(limit.try_acquire(), Slot)


def test_callers_waiting_for_a_place_are_refused_when_the_breaker_opens() -> None:
    limit = AdaptiveLimit(1, give_up_after=1)
    refused: list[BaseException] = []

    def waiter() -> None:
        try:
            with limit.slot():
                pass
        except ProviderExhausted as exc:
            refused.append(exc)

    with limit.slot() as slot:
        thread = threading.Thread(target=waiter)
        thread.start()
        time.sleep(0.2)  # waiting for the one place
        slot.failed(rate_limited=True, retry_after_s=30.0)
    thread.join(5)
    assert not thread.is_alive() and len(refused) == 1
