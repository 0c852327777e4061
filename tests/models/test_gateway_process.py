"""The gateway in its own process: start, serve, ledger, cache written, clean stop, bad start (a
run whose gateway cannot start: tests/plugin/test_model_service.py)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_pastbench.errors import InfraError
from pytest_pastbench.models.cache import ResponseCache, request_key
from pytest_pastbench.models.gateway import GatewayClient, ServiceSettings
from pytest_pastbench.models.gateway_process import GatewayProcess

MESSAGES = [
    {"role": "system", "content": "s"},
    {"role": "user", "content": "Who approves Halvorsen refunds?"},
]


@pytest.fixture
def address_file() -> Iterator[Path]:
    # Private like the controller's own: the address file carries the run's token.
    folder = Path(tempfile.mkdtemp(prefix="pastbench-gateway-test-"))
    yield folder / "gateway.json"
    shutil.rmtree(folder, ignore_errors=True)  # a gateway that never served leaves its log


def test_the_gateway_process_serves_counts_and_writes_its_cache(address_file: Path, tmp_path: Path) -> None:
    cache_path = tmp_path / "responses.sqlite"
    settings = ServiceSettings(cache_mode="rw", cache_path=str(cache_path))
    process = GatewayProcess(settings, address_file).start().wait_ready()
    try:
        assert oct(address_file.stat().st_mode & 0o777) == "0o600"
        client = GatewayClient.from_file(address_file, "pastbench/recall")
        reply = client.complete(MESSAGES, None)
        assert reply.content and reply.prompt_tokens > 0
        ledger = process.ledger()
        assert ledger["pastbench/recall"]["calls"] == 1
        assert ledger["pastbench/recall"]["prompt_tokens"] == reply.prompt_tokens
    finally:
        process.stop()
    # Stopped: the port is closed, its folder (address with the token, log) is gone, and the
    # answer reached the cache file before the exit.
    with pytest.raises(InfraError, match="unreachable"):
        client.complete(MESSAGES, None)
    assert not address_file.parent.exists()
    stored = ResponseCache(cache_path, "replay").get(request_key("pastbench/recall", MESSAGES, None, {}, 0))
    assert stored is not None and stored["content"] == reply.content


def test_a_gateway_that_cannot_start_says_why(address_file: Path, tmp_path: Path) -> None:
    settings = ServiceSettings(cache_mode="sometimes", cache_path=str(tmp_path / "c.sqlite"))
    with pytest.raises(InfraError, match="did not start.*cache mode 'sometimes'"):
        GatewayProcess(settings, address_file).start().wait_ready()
    assert not address_file.exists()


def test_stop_is_idempotent_and_a_stopped_gateway_has_no_ledger(address_file: Path) -> None:
    process = GatewayProcess(ServiceSettings(), address_file).start().wait_ready()
    process.stop()
    process.stop()
    with pytest.raises(InfraError):
        process.ledger()
