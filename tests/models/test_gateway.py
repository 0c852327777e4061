from __future__ import annotations

import http.client
import json
import threading
import time
from pathlib import Path

import pytest

from pytest_pastbench.errors import InfraError
from pytest_pastbench.models.cache import ResponseCache
from pytest_pastbench.models.client import ModelReply, import_litellm
from pytest_pastbench.models.gateway import (
    CHAT_PATH,
    SCOPES_PATH,
    Gateway,
    GatewayClient,
    ModelService,
    ScopeRegistry,
    ServiceClient,
    scoped_request,
)
from pytest_pastbench.protocols.past.toolbox import ToolBox

MESSAGES = [
    {"role": "system", "content": "s"},
    {"role": "user", "content": "Who approves Halvorsen refunds?"},
]


@pytest.fixture
def gateway(tmp_path: Path):
    service = ModelService(ResponseCache(tmp_path / "cache.sqlite", "rw"))
    running = Gateway(service).start()
    yield running
    running.stop()


def test_gateway_client_matches_the_in_process_client(gateway: Gateway) -> None:
    remote = GatewayClient(gateway.url, gateway.token, "pastbench/recall")
    local = ServiceClient(ModelService(), "pastbench/recall")
    a = remote.complete(MESSAGES, ToolBox.specs(), temperature=0)
    b = local.complete(MESSAGES, ToolBox.specs(), temperature=0)
    assert a == b
    assert a.tool_calls[0]["name"] == "memory_search"


def test_the_cache_makes_a_rerun_free(gateway: Gateway) -> None:
    client = GatewayClient(gateway.url, gateway.token, "pastbench/recall", trial=0)
    client.complete(MESSAGES, ToolBox.specs())
    client.complete(MESSAGES, ToolBox.specs())
    GatewayClient(gateway.url, gateway.token, "pastbench/recall", trial=1).complete(MESSAGES, ToolBox.specs())
    ledger = gateway.service.ledger_json()["pastbench/recall"]
    assert (ledger["calls"], ledger["cached"]) == (2, 1)  # the other trial is a new request


def test_a_wrong_token_is_refused(gateway: Gateway) -> None:
    with pytest.raises(InfraError, match="wrong gateway token"):
        GatewayClient(gateway.url, "guess", "pastbench/recall").complete(MESSAGES, None)


def test_provider_failure_travels_as_infra_error(gateway: Gateway) -> None:
    with pytest.raises(InfraError, match="unknown offline model"):
        GatewayClient(gateway.url, gateway.token, "pastbench/oracle").complete(MESSAGES, None)


def test_malformed_requests_get_400(gateway: Gateway) -> None:
    host, port = gateway.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    headers = {"Authorization": f"Bearer {gateway.token}"}
    connection.request("POST", CHAT_PATH, "{not json", headers)
    response = connection.getresponse()
    assert response.status == 400 and "bad request" in json.loads(response.read())["error"]["message"]


def test_every_session_thread_connecting_at_once_is_served(gateway: Gateway) -> None:
    # -n 2 × --pastbench-concurrency=32 opens 64 keep-alive connections at the start of a run.
    clients = [GatewayClient(gateway.url, gateway.token, "pastbench/recall") for _ in range(128)]
    start, failures = threading.Barrier(len(clients)), []

    def connect(client: GatewayClient) -> None:
        start.wait()
        try:
            client.ledger()
        except InfraError as exc:
            failures.append(str(exc))

    threads = [threading.Thread(target=connect, args=(c,)) for c in clients]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    # With socketserver's backlog of 5 the refused connects retry their SYN for minutes
    # (measured 112-138 s for this test), or are reset under xdist.
    assert time.monotonic() - started < 30


def test_unreachable_gateway_is_an_infra_error() -> None:
    with pytest.raises(InfraError, match="unreachable"):
        GatewayClient("http://127.0.0.1:9", "t", "pastbench/recall").complete(MESSAGES, None)


def test_replay_miss_is_an_infra_error(tmp_path: Path) -> None:
    service = ModelService(ResponseCache(tmp_path / "c.sqlite", "replay"))
    with pytest.raises(InfraError, match="replay mode"):
        ServiceClient(service, "pastbench/recall").complete(MESSAGES, None)


def test_max_connections_bounds_calls_in_flight_per_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    service = ModelService(max_connections=2)
    in_flight, peak, lock = [0], [0], threading.Lock()
    litellm = import_litellm()
    completion = litellm.completion

    def counting(*args, **kwargs):  # the requests on the wire, retries included
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        try:
            return completion(*args, **kwargs)
        finally:
            with lock:
                in_flight[0] -= 1

    monkeypatch.setattr(litellm, "completion", counting)
    client = ServiceClient(service, "pastbench/recall?latency_ms=50")
    replies = []
    threads = [
        threading.Thread(target=lambda: replies.append(client.complete(MESSAGES, ToolBox.specs())))
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert peak[0] == 2 and len(replies) == 6


# -- session scopes (external agents) -------------------------------------------------------------


def _post(gateway: Gateway, token: str, path: str, body: dict) -> tuple[int, dict]:
    host, port = gateway.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    connection.request("POST", path, json.dumps(body), headers)
    response = connection.getresponse()
    return response.status, json.loads(response.read())


def test_a_scope_counts_its_own_session_and_is_bound_to_its_model(gateway: Gateway) -> None:
    client = GatewayClient(gateway.url, gateway.token, "pastbench/recall", trial=1)
    opened = client.open_scope(max_tokens=64)
    request = {"model": "pastbench/recall", "messages": MESSAGES, "tools": ToolBox.specs()}
    status, body = _post(gateway, opened["token"], CHAT_PATH, request)
    assert status == 200 and body["object"] == "chat.completion" and body["id"].startswith("chatcmpl-")
    assert body["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "memory_search"
    status, body = _post(gateway, opened["token"], CHAT_PATH, {**request, "model": "pastbench/curator"})
    assert status == 400 and "may only use model 'pastbench/recall'" in body["error"]["message"]
    usage = client.close_scope(opened["id"])
    assert usage["failures"] == [] and len(usage["replies"]) == 1
    ledger = gateway.service.ledger_json()["pastbench/recall"]  # the run's ledger counts it too
    assert usage["replies"][0]["prompt_tokens"] == ledger["prompt_tokens"] > 0
    # Revoked: the token no longer works, and a scope token never opens scopes.
    assert _post(gateway, opened["token"], CHAT_PATH, request)[0] == 401
    assert _post(gateway, client.open_scope()["token"], SCOPES_PATH, {"model": "x"})[0] == 404


def test_a_scope_reports_what_its_calls_waited_on_the_harness(monkeypatch: pytest.MonkeyPatch) -> None:
    """Per call and while the session runs: what the driver leaves out of the wall budget."""
    service = ModelService()
    answer = service.complete

    def held(*args: object, **kwargs: object) -> tuple[ModelReply, bool]:
        reply, cached = answer(*args, **kwargs)  # type: ignore[arg-type]
        reply.waited_s = 2.5  # as a rate-limit hold or a retry's backoff reports it
        return reply, cached

    monkeypatch.setattr(service, "complete", held)
    gateway = Gateway(service).start()
    try:
        client = GatewayClient(gateway.url, gateway.token, "pastbench/recall")
        opened = client.open_scope()
        assert client.scope_waits(opened["id"]) == {"waited_s": 0, "in_flight": 0}
        request = {"model": "pastbench/recall", "messages": MESSAGES}
        for _ in range(2):
            assert _post(gateway, opened["token"], CHAT_PATH, request)[0] == 200
        assert client.scope_waits(opened["id"]) == {"waited_s": 5.0, "in_flight": 0}
        usage = client.close_scope(opened["id"])
        assert [r["waited_s"] for r in usage["replies"]] == [2.5, 2.5]
        with pytest.raises(InfraError, match="no open scope"):
            client.scope_waits(opened["id"])
    finally:
        gateway.stop()


def test_a_scope_records_gateway_failures(gateway: Gateway) -> None:
    scope = gateway.scopes.open("pastbench/oracle")
    status, body = _post(gateway, scope.token, CHAT_PATH, {"model": "pastbench/oracle", "messages": MESSAGES})
    assert status == 502 and body["error"]["type"] == "infra_blocked"
    usage = gateway.scopes.close(scope.id)
    assert usage["replies"] == [] and "unknown offline model" in usage["failures"][0]


def test_scoped_requests_keep_the_session_output_cap() -> None:
    scope = ScopeRegistry().open("m", trial=2, max_tokens=100)
    assert scoped_request(scope, {"model": "m", "messages": [], "max_tokens": 5000}) == {"max_tokens": 100}
    assert scoped_request(scope, {"model": "m", "messages": [], "temperature": 0, "pastbench_trial": 9}) == {
        "temperature": 0,
        "max_tokens": 100,
    }
    with pytest.raises(ValueError, match="may only use model 'm'"):
        scoped_request(scope, {"model": "other", "messages": []})
