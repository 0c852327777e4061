from __future__ import annotations

import fnmatch
from typing import Any

import pytest

from pytest_pastbench.errors import InfraError
from pytest_pastbench.models.client import (
    LiteLLMClient,
    RetryPolicy,
    _response_cost,
    import_litellm,
    is_offline,
    missing_keys,
    model_problem,
    resolve_model,
)

MESSAGES = [{"role": "user", "content": "hello"}]


def test_offline_models_need_no_key() -> None:
    assert is_offline("pastbench/recall") and missing_keys("pastbench/recall") == []


def test_missing_provider_key_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert missing_keys("openai/gpt-4o") == ["OPENAI_API_KEY"]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    assert missing_keys("openai/gpt-4o") == []


def test_alias_resolves_and_adds_its_key_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ZAI_API_KEY", raising=False)
    assert resolve_model("glm-5.1").model == "zai/glm-5.1"
    assert "ZAI_API_KEY" in missing_keys("glm-5.1")


def _flaky(monkeypatch: pytest.MonkeyPatch, failures: list[Exception]) -> list[int]:
    litellm = import_litellm()
    original = litellm.completion
    calls: list[int] = []

    def completion(**kwargs: Any) -> Any:
        calls.append(1)
        if failures:
            raise failures.pop(0)
        return original(**kwargs, mock_response="fine")

    monkeypatch.setattr(litellm, "completion", completion)
    return calls


def _rate_limit() -> Exception:
    litellm = import_litellm()
    return litellm.RateLimitError(message="slow down", llm_provider="openai", model="gpt-4o")


def test_transient_errors_are_retried_until_success(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _flaky(monkeypatch, [_rate_limit(), _rate_limit()])
    client = LiteLLMClient("openai/gpt-4o", RetryPolicy(attempts=3, base_delay_s=0.001))
    reply = client.complete(MESSAGES, None)
    assert reply.content == "fine" and len(calls) == 3
    assert reply.prompt_tokens > 0


def test_exhausted_retries_raise_infra_error_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _flaky(monkeypatch, [_rate_limit() for _ in range(5)])
    client = LiteLLMClient("openai/gpt-4o", RetryPolicy(attempts=3, base_delay_s=0.001))
    with pytest.raises(InfraError, match="gave up after 3 attempts: RateLimitError"):
        client.complete(MESSAGES, None)
    assert len(calls) == 3


def test_non_transient_errors_are_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    litellm = import_litellm()
    auth = litellm.AuthenticationError(message="bad key", llm_provider="openai", model="gpt-4o")
    calls = _flaky(monkeypatch, [auth])
    with pytest.raises(InfraError, match="AuthenticationError"):
        LiteLLMClient("openai/gpt-4o").complete(MESSAGES, None)
    assert len(calls) == 1


def test_unknown_price_gives_null_cost_not_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    _flaky(monkeypatch, [])
    reply = LiteLLMClient("openai/not-a-priced-model-xyz").complete(MESSAGES, None)
    assert reply.cost_usd is None and reply.completion_tokens > 0


def test_retry_after_header_sets_the_delay() -> None:
    class Response:
        headers = {"retry-after": "7"}

    error = Exception("429")
    error.response = Response()  # type: ignore[attr-defined]
    client = LiteLLMClient("x", RetryPolicy(max_delay_s=5))
    assert client._delay(0, error) == 5
    assert 0.5 <= LiteLLMClient("x", RetryPolicy(base_delay_s=1))._delay(0, Exception()) <= 1.0


def test_the_cost_is_litellm_s_own_figure_or_priced_here_when_it_gave_none() -> None:
    litellm = import_litellm()
    litellm.register_model(
        {"openai/priced-here": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "mode": "chat"}}
    )
    response = litellm.completion(model="openai/priced-here", messages=MESSAGES, mock_response="fine")
    expected = response.usage.prompt_tokens * 1e-6 + response.usage.completion_tokens * 2e-6
    assert _response_cost(litellm, response, "openai/priced-here") == pytest.approx(expected)
    response._hidden_params.pop("response_cost")  # a path that did not price the call
    assert _response_cost(litellm, response, "openai/priced-here") == pytest.approx(expected)
    unknown = litellm.completion(model="openai/unpriced-zz", messages=MESSAGES, mock_response="fine")
    unknown._hidden_params.pop("response_cost", None)
    assert _response_cost(litellm, unknown, "openai/unpriced-zz") is None


OFFLINE_AGENTS = ["blind", "curator", "recall"]


@pytest.mark.parametrize(
    ("model", "problem"),
    [
        (
            "pastbench/recal",
            "pastbench/recal: no offline model 'recal'; choose one of pastbench/blind, pastbench/curator, "
            "pastbench/recall (did you mean pastbench/recall?)",
        ),
        (
            "glm5.1",
            "glm5.1: neither an alias nor a provider/model string (did you mean glm-5.1?); aliases: *",
        ),
        ("nosuchprovider/x", "nosuchprovider/x: litellm has no provider 'nosuchprovider'; see *"),
        ("opnai/gpt-4o", "opnai/gpt-4o: litellm has no provider 'opnai' (did you mean openai?); see *"),
        # A near miss of a listed model is a typo, with or without its provider (issue 30): not
        # "needs ANTHROPIC_API_KEY", and not a failure in every item once a key is set.
        (
            "claude-sonet-4-6",
            "claude-sonet-4-6: litellm lists no model 'claude-sonet-4-6' (did you mean claude-sonnet-4-6?)",
        ),
        (
            "anthropic/claude-sonet-4-6",
            "anthropic/claude-sonet-4-6: litellm lists no model * (did you mean claude-sonnet-4-6?)",
        ),
        # A bare typo litellm cannot route at all: the closest listed model, not only the aliases.
        (
            "gpt-4o-mni",
            "gpt-4o-mni: neither an alias nor a provider/model string (did you mean gpt-4o-mini?); *",
        ),
    ],
)
def test_a_model_that_can_never_answer_is_named_with_the_closest_valid_name(model: str, problem: str) -> None:
    found = model_problem(model, OFFLINE_AGENTS)
    assert found is not None and fnmatch.fnmatchcase(found, problem), found


@pytest.mark.parametrize(
    "model",
    [
        "pastbench/recall",
        "pastbench/blind?latency_ms=5",
        "glm-5.1",
        "openai/gpt-4o",
        "gpt-4o",
        "anthropic/claude-sonnet-4-5",
        # Close to no listed name: a model litellm does not list yet still runs.
        "openai/acme-reasoner-7",
    ],
)
def test_models_that_can_answer_have_no_problem(model: str) -> None:
    assert model_problem(model, OFFLINE_AGENTS) is None


def test_calls_skip_litellm_s_success_logging_and_keep_their_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness keeps its own ledger: litellm's per-call logging payload (built on its logging
    thread pool, with no callback registered) is skipped; the price stays litellm's own figure."""
    import threading

    from litellm.litellm_core_utils.litellm_logging import Logging

    litellm = import_litellm()
    litellm.register_model(
        {"openai/priced-here": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "mode": "chat"}}
    )
    logged = threading.Event()
    monkeypatch.setattr(Logging, "success_handler", lambda self, *args, **kwargs: logged.set())
    litellm.completion(model="openai/priced-here", messages=MESSAGES, mock_response="fine")
    assert logged.wait(5)  # litellm on its own does log every call
    logged.clear()
    reply = LiteLLMClient("openai/priced-here").complete(MESSAGES, None, mock_response="fine")
    assert not logged.wait(0.5)
    assert reply.cost_usd == pytest.approx(reply.prompt_tokens * 1e-6 + reply.completion_tokens * 2e-6)
    assert reply.cost_usd > 0


def test_a_refused_connection_is_said_with_its_address_not_as_an_http_500(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """litellm wraps a refused connection as InternalServerError with status 500: nothing answered,
    and the message says so, with the address the user gave."""
    import socket

    from pytest_pastbench.models.client import use_alias_file

    with socket.socket() as probe:  # a port nothing listens on (bound, then closed)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    aliases = tmp_path / "aliases.yaml"
    aliases.write_text(
        f"aliases:\n  closed:\n    model: openai/x\n    api_base: http://127.0.0.1:{port}/v1\n"
    )
    use_alias_file(aliases)
    try:
        client = LiteLLMClient("closed", retry=RetryPolicy(attempts=2), sleep=lambda _: None)
        with pytest.raises(InfraError) as info:
            client.complete(MESSAGES, None)
    finally:
        use_alias_file(None)
    message = str(info.value)
    assert f"connection refused at http://127.0.0.1:{port}/v1" in message, message
    assert "HTTP 500" not in message and "InternalServerError" not in message


def test_the_wait_for_a_slot_and_the_backoff_are_the_harness_s_not_the_answer_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``waited_s`` is what the session's wall budget leaves out: the time the gate held the
    request (a connection slot under the provider's limit) and each retry's backoff."""
    from contextlib import contextmanager

    from pytest_pastbench.models.rate_limit import Slot

    now = [0.0]
    slept: list[float] = []

    @contextmanager
    def queued_gate() -> Any:
        now[0] += 40.0  # a busy provider: 40 s in the queue before each attempt
        yield Slot()
        now[0] += 1.0  # the request itself: the model's time, not the harness's

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    _flaky(monkeypatch, [_rate_limit()])
    client = LiteLLMClient(
        "openai/gpt-4o",
        RetryPolicy(attempts=3, base_delay_s=2.0),
        sleep=sleep,
        gate=queued_gate,
        clock=lambda: now[0],
    )
    reply = client.complete(MESSAGES, None)
    assert reply.content == "fine" and len(slept) == 1
    assert reply.waited_s == pytest.approx(40.0 + slept[0] + 40.0)
    assert now[0] == pytest.approx(reply.waited_s + 2.0)  # the rest is the two attempts' own time
