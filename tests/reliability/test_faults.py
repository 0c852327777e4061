"""Provider faults: 429/500/timeouts/truncated bodies are retried, exhaustion is infra_blocked,
429s adapt the provider's limit (AIMD, Retry-After), malformed tool-call arguments are tool errors.
Everything talks to a local fault server only."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_pastbench.errors import InfraError
from pytest_pastbench.models.client import (
    LiteLLMClient,
    RetryPolicy,
    missing_keys,
    read_aliases,
    resolve_model,
    use_alias_file,
)
from pytest_pastbench.models.gateway import ModelService, ServiceClient
from pytest_pastbench.models.rate_limit import ProviderLimits
from tests.family_samples import GOOD_MEMORY
from tests.reliability.faultserver import Fault, FaultServer

pytestmark = pytest.mark.reliability

MESSAGES = [{"role": "user", "content": "hello"}]
ALIAS = "fault-model"
TARGET = "openai/fault-model"
FAST = RetryPolicy(attempts=3, base_delay_s=0.01)
HANG_GUARD_S = 120  # waits on threads and servers end within this or fail: never a time bound

AliasMaker = Callable[..., str]


def write_aliases(path: Path, server: FaultServer, **extra: Any) -> Path:
    spec = {"model": TARGET, "api_base": server.api_base, **extra}
    path.write_text(yaml.safe_dump({"aliases": {ALIAS: spec}}))
    return path


@pytest.fixture
def alias(tmp_path: Path) -> Iterator[AliasMaker]:
    """Point the alias ``fault-model`` at a fault server (the user alias file, as the option does)."""

    def make(server: FaultServer, **extra: Any) -> str:
        use_alias_file(write_aliases(tmp_path / "aliases.yaml", server, **extra))
        return ALIAS

    yield make
    use_alias_file(None)


def ledger(service: ModelService) -> dict[str, Any]:
    return service.ledger_json()[ALIAS]


# -- client and service against the fault server ---------------------------------------------------


def test_429_honours_retry_after_then_succeeds(alias: AliasMaker) -> None:
    delays: list[float] = []
    with FaultServer([Fault("429", retry_after=0.05), "ok_text"]) as server:
        client = LiteLLMClient(alias(server), RetryPolicy(attempts=3, base_delay_s=20.0), sleep=delays.append)
        reply = client.complete(MESSAGES, None)
    assert reply.content == "All done." and reply.retries == 1
    assert server.faults() == ["429", "ok_text"]
    assert delays == [0.05]  # the server's Retry-After, not the 20 s backoff


def test_retry_after_is_capped(alias: AliasMaker) -> None:
    delays: list[float] = []
    with FaultServer([Fault("429", retry_after=3600), "ok_text"]) as server:
        policy = RetryPolicy(attempts=2, base_delay_s=0.01, max_delay_s=0.5)
        LiteLLMClient(alias(server), policy, sleep=delays.append).complete(MESSAGES, None)
    assert delays == [0.5]


def test_backoff_is_exponential_with_jitter_without_retry_after(alias: AliasMaker) -> None:
    delays: list[float] = []
    with FaultServer(["500", "503", "ok_text"]) as server:
        policy = RetryPolicy(attempts=3, base_delay_s=1.0)
        LiteLLMClient(alias(server), policy, sleep=delays.append).complete(MESSAGES, None)
    assert server.count == 3
    assert 0.5 <= delays[0] <= 1.0 and 1.0 <= delays[1] <= 2.0


@pytest.mark.parametrize("fault", ["500", "503", "truncated"])
def test_a_transient_fault_then_ok_is_counted_as_a_retry(alias: AliasMaker, fault: str) -> None:
    with FaultServer([fault, "ok_text"]) as server:
        service = ModelService(retry=FAST)
        reply, cached = service.complete(alias(server), MESSAGES, None, {})
    assert (reply.content, cached, server.count) == ("All done.", False, 2)
    assert {k: ledger(service)[k] for k in ("calls", "retries", "failed")} == {
        "calls": 1,
        "retries": 1,
        "failed": 0,
    }


def test_a_timeout_then_ok_is_retried(alias: AliasMaker) -> None:
    with FaultServer(["timeout", "ok_text"], hang_s=5) as server:
        service = ModelService(retry=FAST, request_timeout_s=1.0)
        reply, _ = service.complete(alias(server), MESSAGES, None, {})
    assert reply.content == "All done." and server.count == 2
    assert ledger(service)["retries"] == 1


def test_exhausted_retries_are_an_infra_error_naming_model_attempts_and_error(alias: AliasMaker) -> None:
    with FaultServer(then="500") as server:
        service = ModelService(retry=FAST)
        with pytest.raises(InfraError) as raised:
            ServiceClient(service, alias(server)).complete(MESSAGES, None)
    message = str(raised.value)
    assert message.startswith(f"{ALIAS}: gave up after 3 attempts: InternalServerError (HTTP 500)")
    assert server.count == 3
    assert {k: ledger(service)[k] for k in ("calls", "retries", "failed")} == {
        "calls": 0,
        "retries": 2,
        "failed": 1,
    }


def test_a_non_transient_error_is_not_retried(alias: AliasMaker) -> None:
    with FaultServer(then="401") as server:
        service = ModelService(retry=FAST)
        with pytest.raises(InfraError, match=rf"^{ALIAS}: AuthenticationError \(HTTP 401\)"):
            service.complete(alias(server), MESSAGES, None, {})
    assert server.count == 1
    assert (ledger(service)["retries"], ledger(service)["failed"]) == (0, 1)


def test_a_vanished_server_is_a_connection_error_and_transient(alias: AliasMaker) -> None:
    # The server takes one request and stops (its own bound); later attempts are refused, which
    # litellm reports as InternalServerError "Connection error." (measured), still transient,
    # and the message says what happened: nothing answered at that address.
    server = FaultServer(["500"], max_requests=1)
    with (
        server,
        pytest.raises(InfraError, match="gave up after 3 attempts: connection refused at http://127"),
    ):
        LiteLLMClient(alias(server), FAST).complete(MESSAGES, None)
    assert server.count == 1


def test_litellm_and_sdk_retries_stay_off(alias: AliasMaker) -> None:
    # One attempt of ours is one request on the wire: no hidden SDK retries stacked underneath.
    with FaultServer(then="500") as server, pytest.raises(InfraError):
        LiteLLMClient(alias(server), RetryPolicy(attempts=1)).complete(MESSAGES, None)
    assert server.count == 1


# -- the alias file ----------------------------------------------------------------------------------


def test_a_local_alias_needs_no_key_and_gets_a_dummy_one(
    alias: AliasMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-key-must-not-leave")
    with FaultServer(["ok_text"]) as server:
        name = alias(server)
        monkeypatch.delenv("OPENAI_API_KEY")
        assert missing_keys(name) == []
        monkeypatch.setenv("OPENAI_API_KEY", "sk-real-key-must-not-leave")
        LiteLLMClient(name).complete(MESSAGES, None)
    assert server.received[0].authorization == "Bearer pastbench-local"


def test_an_alias_key_env_is_sent(alias: AliasMaker, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAULT_SERVER_KEY", "s3cret-for-local")
    with FaultServer(["ok_text"]) as server:
        LiteLLMClient(alias(server, key_env="FAULT_SERVER_KEY")).complete(MESSAGES, None)
    assert server.received[0].authorization == "Bearer s3cret-for-local"


def test_alias_prices_give_a_cost_and_unknown_prices_give_null(alias: AliasMaker) -> None:
    with FaultServer(["ok_text", "ok_text"]) as server:
        priced = LiteLLMClient(alias(server, input_cost_per_token=1e-6, output_cost_per_token=2e-6))
        assert priced.complete(MESSAGES, None).cost_usd == pytest.approx(11 * 1e-6 + 7 * 2e-6)
        unpriced = LiteLLMClient(alias(server, model="openai/fault-model-unpriced"))
        assert unpriced.complete(MESSAGES, None).cost_usd is None


def test_user_aliases_override_and_extend_the_builtin_table(tmp_path: Path) -> None:
    path = tmp_path / "aliases.yaml"
    path.write_text("aliases:\n  glm-5.1: {model: openai/glm-local, api_base: 'http://localhost:9/v1'}\n")
    try:
        use_alias_file(path)
        assert resolve_model("glm-5.1").model == "openai/glm-local" and missing_keys("glm-5.1") == []
        assert resolve_model("kimi-k2.6").model == "moonshot/kimi-k2.6"  # built-in entries stay
    finally:
        use_alias_file(None)
    assert resolve_model("glm-5.1").model == "zai/glm-5.1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("aliases:\n  x: {model: openai/x, colour: red}\n", "aliases.x: unknown field colour"),
        ("aliases:\n  x: {api_base: 'http://localhost:1/v1'}\n", "aliases.x: needs at least 'model"),
        ("aliases:\n  x: {model: openai/x, input_cost_per_token: cheap}\n", "input_cost_per_token"),
        ("models: []\n", "expected a mapping 'aliases:'"),
    ],
)
def test_a_bad_alias_file_is_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "aliases.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_aliases(path)


# -- the plugin end to end (pytester subprocesses) -----------------------------------------------------


def benchmark(
    pytester: pytest.Pytester, server: FaultServer, run_id: str, *args: str, timeout: float | None = None
) -> pytest.RunResult:
    family = pytester.path / "families" / "memory" / "tiny_prefs.yaml"
    family.parent.mkdir(parents=True, exist_ok=True)
    family.write_text(GOOD_MEMORY)
    write_aliases(pytester.path / "aliases.yaml", server)
    return pytester.runpytest_subprocess(
        "families",
        f"--pastbench-model={ALIAS}",
        "--pastbench-model-aliases=aliases.yaml",
        "--pastbench-retries=2",
        "--pastbench-retry-delay=0.01",
        "--pastbench-request-timeout=2",
        f"--pastbench-run-id={run_id}",
        *args,
        timeout=timeout,
    )


def run_files(pytester: pytest.Pytester, run_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    folder = pytester.path / "reports" / run_id
    return (
        json.loads((folder / "sequence_summary.json").read_text()),
        json.loads((folder / "sequence_results.json").read_text()),
    )


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_provider_that_always_fails_blocks_every_item(pytester: pytest.Pytester, workers: str) -> None:
    with FaultServer(then="500") as server:
        result = benchmark(pytester, server, "down", "-n", workers)
    counts = {k: v for k, v in result.parseoutcomes().items() if k != "seconds"}
    assert counts == {"errors": 4}, result.stdout.str()
    result.stdout.fnmatch_lines(
        [f"*infra_blocked: {ALIAS}: gave up after 2 attempts: InternalServerError (HTTP 500)*"]
    )
    # One line per item under its header, through repr_failure: no traceback of pytest's internals.
    lines = [line for line in result.stdout.lines if not line.startswith("[gw")]  # xdist: which worker
    reasons = [lines[n + 1] for n, line in enumerate(lines) if "ERROR at setup of" in line]
    assert len(reasons) == 4 and all(r.startswith(f"infra_blocked: {ALIAS}: gave up") for r in reasons)
    assert "Traceback" not in result.stdout.str() and "_pytest" not in result.stdout.str()
    summary, results = run_files(pytester, "down")
    assert all(r["infra_blocked"] and r["score"] is None for r in results["records"])
    assert '"infra_blocked": 4' in json.dumps(summary)
    calls = summary["run"]["model_calls"][ALIAS]
    # each item's first request fails twice (one retry), then the item is blocked
    assert (calls["calls"], calls["retries"], calls["failed"]) == (0, 4, 4)
    assert server.count == 8 and set(server.faults()) == {"500"}


def tool_args_then_text(body: dict[str, Any], index: int) -> str:
    """Answer by content, so the script holds whatever order sessions and items run in."""
    return "bad_tool_args" if body["messages"][-1]["role"] == "user" else "ok_text"


def test_malformed_tool_arguments_are_tool_errors_not_crashes(pytester: pytest.Pytester) -> None:
    with FaultServer(tool_args_then_text) as server:
        result = benchmark(pytester, server, "badargs", "-n", "0")
    counts = {k: v for k, v in result.parseoutcomes().items() if k != "seconds"}
    assert counts == {"scored": 2, "control": 2}, result.stdout.str()
    assert server.received[0].authorization == "Bearer pastbench-local"
    summary, results = run_files(pytester, "badargs")
    for record in results["records"]:
        assert not record["infra_blocked"] and record["score"] is not None
        evals = [s for s in record["sessions"] if s["stage"].startswith("eval")]
        # the failed call was never redone: r = 1 / (1 + unrecovered faults) < 1 (scoring.recovery_rate)
        assert evals and all(s["r"] < 1.0 for s in evals)
    traces = list((pytester.path / "reports" / "badargs" / "traces").rglob("*.jsonl"))
    calls = [
        event
        for path in traces
        for event in map(json.loads, path.read_text().splitlines())
        if event["kind"] == "tool_call"
    ]
    assert calls and all(c["ok"] is False for c in calls)
    assert summary["run"]["model_calls"][ALIAS]["failed"] == 0


# -- adaptive rate limits (rate_limit.py): AIMD on 429s, Retry-After ---------------------------------


def _at_once(service: ModelService, model: str, n: int) -> list[Any]:
    replies: list[Any] = []
    threads = [
        threading.Thread(target=lambda: replies.append(service.complete(model, MESSAGES, None, {})[0]))
        for _ in range(n)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return replies


def test_a_burst_of_429s_halves_the_limit_once_and_successes_raise_it_back(alias: AliasMaker) -> None:
    # Four places, eight callers: the four requests first on the wire all answer 429, once all
    # four are in flight (a loaded machine may otherwise start a caller only after the first
    # decrease, and its 429 would rightly be a second burst).
    in_flight = threading.Barrier(4)
    with FaultServer(["429"] * 4, then="ok_text") as server:
        scripted = server._next

        def held(body: dict[str, Any], authorization: str) -> tuple[Any, bool]:
            fault, last = scripted(body, authorization)  # under the server's lock
            if fault.kind == "429":
                in_flight.wait(10)  # outside it
            return fault, last

        server._next = held  # type: ignore[method-assign]
        service = ModelService(max_connections=4, retry=FAST)
        replies = _at_once(service, alias(server), 8)
    assert len(replies) == 8 and all(r.content == "All done." for r in replies)
    assert server.faults().count("429") == 4
    # One decrease (4 -> 2) for the burst; then 8 successes: 2 at 2 in flight, 3 at 3 -> back at 4.
    assert service.rate_limits_json() == {
        "openai": {
            "max_connections": 4,
            "rate_limited": 4,
            "decreases": 1,
            "increases": 2,
            "lowest_limit": 2,
            "exhausted": 0,
            "refused": 0,
        }
    }
    assert service.ledger_json()[ALIAS]["retries"] == 4


def test_retry_after_holds_the_providers_other_calls_too(alias: AliasMaker) -> None:
    """Read from order and counts, not time: the limits' clock stands still until the test moves
    it past the Retry-After, so a call let through before that arrives at time 0."""
    now = [0.0]
    other_asked = threading.Event()

    def clock() -> float:
        if threading.current_thread().name == "other":
            other_asked.set()  # the other call has asked the limit for a slot
        return now[0]

    arrived: list[float] = []  # the limits' time at each request

    def script(body: dict[str, Any], index: int) -> Fault:
        arrived.append(now[0])
        return Fault("429", retry_after=0.6) if index == 0 else Fault("ok_text")

    with FaultServer(script) as server:
        service = ModelService(max_connections=4, retry=FAST)
        model = alias(server)
        service.limits = ProviderLimits(4, clock, give_up_after=FAST.attempts)
        limit = service.limits.of(resolve_model(model).model.split("/", 1)[0])
        first = threading.Thread(target=lambda: service.complete(model, MESSAGES, None, {}))
        first.start()
        wait_for(lambda: limit.rate_limited == 1)  # the 429 is back: the provider is held
        other = [{"role": "user", "content": "another caller"}]
        second = threading.Thread(target=lambda: service.complete(model, other, None, {}), name="other")
        second.start()
        wait_for(other_asked.is_set)
        with limit._changed:  # the lock it read the clock under: it holds no slot, so it waits
            assert limit.in_flight == 0 and server.count == 1
        now[0] = 1.0  # past the Retry-After
        first.join(HANG_GUARD_S)
        second.join(HANG_GUARD_S)
    assert server.count == 3 and arrived == [0.0, 1.0, 1.0]


def wait_for(condition: Callable[[], bool]) -> None:
    """Until ``condition`` holds; a hang guard, not a time bound."""
    deadline = time.monotonic() + HANG_GUARD_S
    while not condition():
        assert time.monotonic() < deadline, "hang guard"
        time.sleep(0.005)


def test_no_limit_no_adaptation(alias: AliasMaker) -> None:
    with FaultServer(["429"], then="ok_text") as server:
        service = ModelService(retry=FAST)  # max_connections unset: nothing to adapt
        service.complete(alias(server), MESSAGES, None, {})
    assert service.rate_limits_json() == {}


@pytest.mark.parametrize("workers", ["0", "2"])
def test_the_run_counts_the_changes_and_the_terminal_says_so(pytester: pytest.Pytester, workers: str) -> None:
    with FaultServer(["429"] * 4, then="ok_text") as server:
        result = benchmark(
            pytester,
            server,
            "rl",
            "-n",
            workers,
            "--pastbench-max-connections=4",
            "--pastbench-concurrency=4",
        )
    counts = {k: v for k, v in result.parseoutcomes().items() if k != "seconds"}
    assert counts == {"scored": 2, "control": 2}, result.stdout.str()
    summary, _ = run_files(pytester, "rl")
    limits = summary["run"]["rate_limits"]["openai"]
    assert limits["rate_limited"] == 4 and limits["decreases"] >= 1 and limits["lowest_limit"] <= 2
    result.stdout.fnmatch_lines(
        [f"pastbench rate limits: openai lowered {limits['decreases']}× (min * in flight) after 4 429s*"]
    )


@pytest.mark.parametrize("retry_after", [0.2, None], ids=["retry-after", "no-retry-after"])
def test_a_provider_that_answers_only_429_blocks_every_item_after_its_retries(
    pytester: pytest.Pytester, retry_after: float | None
) -> None:
    arrived: list[float] = []
    asked: list[str] = []  # the item each request comes from: its conversation's first user turn

    def script(body: dict[str, Any], index: int) -> Fault:
        arrived.append(time.monotonic())
        asked.append(next(m["content"] for m in body["messages"] if m["role"] == "user"))
        return Fault("429", retry_after=retry_after)

    # Hang guards only (the server stops itself, the run is killed): a loaded machine stretches
    # litellm's handling of each 429 to seconds, and nothing here is timed.
    with FaultServer(script) as server:
        result = benchmark(pytester, server, "down429", "-n", "0", "--pastbench-retries=3", timeout=300)
    counts = {k: v for k, v in result.parseoutcomes().items() if k != "seconds"}
    assert counts == {"errors": 4}, result.stdout.str()
    result.stdout.fnmatch_lines(
        [f"*infra_blocked: {ALIAS}: gave up after 3 attempts: RateLimitError (HTTP 429)*"]
    )
    # Each of the 4 items gives up on its first request after 3 attempts: 12 requests, no more.
    assert server.count == 12
    assert len(set(asked)) == 4 and all(asked.count(item) == 3 for item in set(asked)), asked
    # The 4 items are in flight together (the limit halves 16 -> 8 -> 4 on fresh 429s, never
    # under 4 here), so their attempts interleave; one item after another would send each item's
    # three attempts in a row. Read from the order of arrival, not the clock.
    runs = [asked[0], *(b for a, b in zip(asked, asked[1:], strict=False) if b != a)]
    assert len(runs) > len(set(asked)), asked
    if retry_after:  # each item's next attempt waits out the pause its 429 asked for
        for item in set(asked):
            times = [t for t, a in zip(arrived, asked, strict=True) if a == item]
            assert all(b - a >= retry_after - 0.01 for a, b in zip(times, times[1:], strict=False)), times
    summary, results = run_files(pytester, "down429")
    assert all(r["infra_blocked"] for r in results["records"])
    assert summary["run"]["rate_limits"]["openai"]["rate_limited"] == 12


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_many_items_against_a_429_only_provider_end_within_retries_x_backoff(
    pytester: pytest.Pytester,
) -> None:
    # 40 items, all in flight at once, 4 connections, 3 attempts, Retry-After 0.3 s. Without the
    # breaker the limit reaches 1 and the attempts go one per Retry-After: about 40 x 3 x 0.3 s.
    def script(body: dict[str, Any], index: int) -> Fault:
        return Fault("429", retry_after=0.3)

    families = pytester.path / "families" / "memory"
    families.mkdir(parents=True)
    for n in range(1, 10):  # with the helper's own tiny_prefs: 10 families x 2 episodes x on/off
        (families / f"prefs_{n}.yaml").write_text(GOOD_MEMORY.replace("id: tiny_prefs", f"id: prefs_{n}"))
    with FaultServer(script) as server:  # hang guards only, as above
        result = benchmark(
            pytester,
            server,
            "dead429",
            "-n",
            "0",
            "--pastbench-retries=3",
            "--pastbench-max-connections=4",
            "--pastbench-concurrency=40",
            timeout=300,
        )
    # (the one warning: 40 sessions for 4 connections, on purpose)
    counts = {k: v for k, v in result.parseoutcomes().items() if k not in ("seconds", "warnings")}
    assert counts == {"errors": 40}, result.stdout.str()
    summary, results = run_files(pytester, "dead429")
    reasons = [" ".join(r["reasons"]) for r in results["records"]]
    assert all(r["infra_blocked"] for r in results["records"])
    given_up = [r for r in reasons if f"{ALIAS}: gave up: provider answered only 429 (" in r]
    retried_out = [r for r in reasons if f"{ALIAS}: gave up after 3 attempts: RateLimitError" in r]
    assert len(given_up) + len(retried_out) == 40 and len(given_up) >= 20, reasons
    limits = summary["run"]["rate_limits"]["openai"]
    assert limits["exhausted"] >= 1 and limits["lowest_limit"] == 1
    assert limits["refused"] >= len(given_up) and limits["rate_limited"] == server.count
    # The breaker opens after AIMD's way down (4 -> 2 -> 1: two holds) and 3 lone 429s (three
    # more): about 5 x 0.3 s, then the rest are refused without a request, one probe per hold.
    # Counted, not timed: the bound on requests is what "within retries x backoff" rests on, and a
    # wall bound would move with the machine's load.
    assert server.count <= 30, server.count
    line = (
        "pastbench rate limits: openai lowered 2× (min 1 in flight) after * 429s, given up on *× (only 429s;*"
    )
    result.stdout.fnmatch_lines([line])
