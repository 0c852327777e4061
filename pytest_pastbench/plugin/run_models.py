"""The run's models: the model service, in a process of its own (the gateway: always under xdist,
and at -n 0 unless ``--pastbench-model-service=inline``) or in this process, and the clients and
judge items use. One per run object; safe across item threads.

Why a process of its own at -n 0 too: litellm's own CPU per call (about 4 ms, docs/performance.md)
would otherwise hold the interpreter lock the items' threads need, and its import (about 3 s)
would run on the first item's path instead of beside collection.

Imports inside functions load the model service, the gateway and the judge only when a run calls a
model (tests/test_lazy_start.py: the gateway only when needed).
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest

from ..errors import InfraError, RunStopped
from .options import RunOptions


class RunModels:
    def __init__(self, config: pytest.Config, options: RunOptions, lock: threading.RLock) -> None:
        self.config = config
        self.options = options
        self._lock = lock  # the run's: clients are built once even when items start on threads
        self._clients: dict[tuple[str, int], Any] = {}
        self._judge: Any = None
        self._service: Any = None
        self._gateway: Any = None
        self._gateway_failed = False
        self.gateway_file: Path | None = None
        # Set on Ctrl-C: the sessions still in flight on --pastbench-concurrency's threads stop at
        # their next model call instead of running their items to the end while pytest exits.
        self.stopped = threading.Event()

    def stop(self) -> None:
        self.stopped.set()

    def service_settings(self) -> Any:
        """The run's ``ServiceSettings`` (cache, limits, retries), for this process or the gateway's."""
        from ..models.cache import CACHE_FILE
        from ..models.gateway import ServiceSettings

        options = self.options
        return ServiceSettings(
            cache_mode=options.cache,
            cache_path=str(Path(options.cache_dir) / CACHE_FILE),
            max_connections=options.max_connections,
            seed=options.seed,
            retries=options.retries,
            retry_delay_s=options.retry_delay,
            request_timeout_s=options.request_timeout,
            model_aliases=options.model_aliases,
            max_cost_usd=options.max_cost,
            max_tokens=options.max_tokens,
        )

    def service(self) -> Any:
        """This process's ``ModelService`` (cache, limits, ledger); litellm loads on first call."""
        with self._lock:
            if self._service is None:
                self._service = self.service_settings().build_service()
            return self._service

    def client(self, model: str, trial: int = 0) -> Any:
        """A ``ModelClient``: the gateway (the controller's from an xdist worker, or this process's
        own), else this process's service."""
        from ..models.gateway import GatewayClient, ServiceClient

        with self._lock:
            if (model, trial) not in self._clients:
                gateway_file = getattr(self.config, "workerinput", {}).get("pastbench_gateway_file")
                if gateway_file is None and self.gateway_file is not None:
                    self.ensure_gateway()  # the first call waits for it to serve; a failure is in the file
                    gateway_file = self.gateway_file
                if gateway_file:
                    client = GatewayClient.from_file(Path(gateway_file), model, trial)
                else:
                    client = ServiceClient(self.service(), model, trial)
                self._clients[(model, trial)] = _Stoppable(client, self.stopped)
            return self._clients[(model, trial)]

    def judge(self) -> Any:
        """The rubric judge (``--pastbench-judge-model``), on the same client as the agent; or None."""
        with self._lock:
            if self._judge is None and self.options.judge_model is not None:
                from ..judge.llm import LLMJudge

                # Trial 0 for every trial: a verdict depends on the rubric and answer only, so the
                # cache shares it across trials.
                self._judge = LLMJudge(self.client(self.options.judge_model))
            return self._judge

    # -- the gateway (the xdist controller's, or the -n 0 process's own) ----------------------------

    def serve_from_process(self) -> None:
        """With ``--pastbench-model-service=process`` (at -n 0; the xdist controller starts its
        gateway anyway): this process's items will call a gateway process of their own, started
        now (its start and litellm's import beside collection); the first call waits for it to
        serve. Not for ``--collect-only``, which calls no model."""
        if getattr(self.config.option, "collectonly", False) or self._gateway_failed:
            return
        if self.options.model_service == "process":
            self.prepare_gateway()
            self.start_gateway()

    def prepare_gateway(self) -> str:
        """Where the gateway's address and token will be written (handed to every worker)."""
        if self.gateway_file is None:
            self.gateway_file = Path(tempfile.mkdtemp(prefix="pastbench-gateway-")) / "gateway.json"
        return str(self.gateway_file)

    def start_gateway(self) -> None:
        """Start the gateway's process (once) without waiting for it: called as soon as a run is
        known to be a benchmark run, so its start and litellm's import overlap the workers'."""
        from ..models.gateway_process import GatewayProcess

        if self._gateway is None and self.gateway_file is not None:
            self._gateway = GatewayProcess(self.service_settings(), self.gateway_file).start()

    def ensure_gateway(self) -> None:
        """The gateway serves before any item runs (the workers have collected benchmark items)."""
        if self._gateway_failed or self.gateway_file is None:
            return
        self.start_gateway()
        try:
            self._gateway.wait_ready()
        except InfraError as exc:
            # Once, not per worker: the workers read the reason where the address would be and
            # block their items with it (infra_blocked).
            self._gateway_failed = True
            self._gateway.write_failure(str(exc))
            self._gateway = None
            warnings.warn(pytest.PytestWarning(f"pastbench: {exc}"), stacklevel=1)

    def ledger(self, warn: bool = True) -> dict[str, Any]:
        """Calls, tokens and cost by model, from the gateway's process or this process's service
        (``warn=False``: a gateway that is gone gives {} without a warning, for the live line)."""
        return self._from_service("ledger", "ledger_json", warn)

    def rate_limits(self) -> dict[str, Any]:
        """The providers that answered 429 and how their limits moved (``rate_limit``)."""
        return self._from_service("rate_limits", "rate_limits_json", warn=True)

    def _from_service(self, remote: str, local: str, warn: bool) -> dict[str, Any]:
        if self._gateway is not None:
            try:
                return getattr(self._gateway, remote)()
            except InfraError as exc:
                if warn:
                    warnings.warn(pytest.PytestWarning(f"pastbench: no model {remote}: {exc}"), stacklevel=1)
                return {}
        return getattr(self._service, local)() if self._service is not None else {}

    def close(self) -> None:
        if self._gateway is not None:
            self._gateway.stop()
            self._gateway = None
        if self.gateway_file is not None:
            shutil.rmtree(self.gateway_file.parent, ignore_errors=True)
        if self._service is not None and self._service.cache is not None:
            self._service.cache.close()


class _Stoppable:
    """A run's model client that refuses new calls once the run is stopping (``RunStopped``)."""

    def __init__(self, client: Any, stopped: threading.Event) -> None:
        self.metered = client  # the name the session's meter gives the client it wraps
        self.model = client.model
        self._stopped = stopped

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **params: Any
    ) -> Any:
        if self._stopped.is_set():
            raise RunStopped("the run was interrupted")
        return self.metered.complete(messages, tools, **params)

    def __getattr__(self, name: str) -> Any:  # the rest of the client (a gateway's scopes) as is
        return getattr(self.metered, name)
