"""The run's model gateway in a process of its own, started and stopped by the xdist controller.

Why not a thread of the controller: there the gateway's request threads (JSON, litellm) share one
GIL with xdist's controller loop and the per-item file writes, and every blocking call on either
side waits for the other to hand the GIL back. Measured with cProfile on 2 cores: the
controller's item writes took 44 ms each (204 episodes at ``-n 4``, no model latency); with the
gateway in its own process, 3 ms (``-n 16``, 200 ms per call), and the controller's CPU in a
``-n 16`` run fell from 31-33 s to 2.5 s. In its own process the gateway also starts, and imports
litellm, while the workers start. It still owns litellm, the cache (one writer), the rate limits
and the ledger for every worker, as docs/design.md §6 asks.

The child reads its ``ServiceSettings`` as one JSON line on stdin, writes the address file (in a
folder of its own, which it removes when it ends) and serves until stdin closes: if the
controller dies, so does the gateway.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ..errors import InfraError
from .client import import_litellm, use_alias_file
from .gateway import Gateway, GatewayClient, ServiceSettings, write_private_json

START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 10.0
LOG_FILE = "gateway.log"


class GatewayProcess:
    """The controller's handle on the gateway's process: start, read the ledger, stop."""

    def __init__(self, settings: ServiceSettings, address_file: Path) -> None:
        self.settings = settings
        self.address_file = address_file
        self._process: subprocess.Popen[str] | None = None
        self._client: GatewayClient | None = None

    def start(self) -> GatewayProcess:
        """Start the child (once); ``wait_ready`` waits for it to serve."""
        if self._process is not None:
            return self
        with open(self._log_path, "w") as log:  # the child keeps its own copy of the descriptor
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__],
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=subprocess.STDOUT,
                text=True,
                # The child must not take the controller's Ctrl-C: the controller stops it.
                start_new_session=True,
            )
        assert self._process.stdin is not None
        values = {**dataclasses.asdict(self.settings), "address_file": str(self.address_file)}
        with contextlib.suppress(OSError):  # a child that died at once: wait_ready says why
            self._process.stdin.write(json.dumps(values) + "\n")
            self._process.stdin.flush()
        return self

    def wait_ready(self, timeout_s: float = START_TIMEOUT_S) -> GatewayProcess:
        """Wait until the child has written its address file (litellm still loads after that);
        ``InfraError`` with what the child printed when it exits or times out first."""
        deadline = time.monotonic() + timeout_s
        while not self.address_file.exists():
            if self._process is None or self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = self._log_path.read_text(errors="replace")[-2000:]
                raise InfraError(f"the model gateway did not start: {tail.strip() or 'no output'}")
            time.sleep(0.01)
        return self

    @property
    def _log_path(self) -> Path:
        return self.address_file.parent / LOG_FILE

    def write_failure(self, reason: str) -> None:
        """Leave the reason where the workers look for the address (``GatewayClient.from_file``)."""
        write_private_json(self.address_file, {"error": reason})

    def ledger(self) -> dict[str, Any]:
        """The ledger by model (``InfraError`` when the gateway is gone)."""
        return self._run_client().ledger()

    def rate_limits(self) -> dict[str, Any]:
        """The providers' adaptive limits (``ModelService.rate_limits_json``)."""
        return self._run_client().rate_limits()

    def _run_client(self) -> GatewayClient:
        if self._client is None:
            self._client = GatewayClient.from_file(self.address_file, model="")
        return self._client

    def stop(self) -> None:
        if self._process is None:
            return
        process, self._process = self._process, None
        try:
            if process.stdin is not None:
                process.stdin.close()  # the child's signal to shut down
            process.wait(STOP_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()


def serve(settings: ServiceSettings, address_file: Path) -> None:
    """The child: serve until stdin closes, then close the cache."""
    try:
        use_alias_file(settings.model_aliases)
        service = settings.build_service()
    except Exception as exc:  # noqa: BLE001 - whatever it is, the controller reports it
        # One line for the controller's error message (e.g. an unusable cache file).
        sys.stderr.write(f"{type(exc).__name__}: {exc}\n")
        sys.exit(2)
    gateway = Gateway(service).start(poll_interval_s=0.05)
    gateway.write_address(address_file)
    # litellm's import takes seconds: do it now, while the workers start, not on the first call.
    threading.Thread(target=_warm_up, name="pastbench-warm-up", daemon=True).start()
    try:
        sys.stdin.read()
    finally:
        gateway.stop()
        if service.cache is not None:
            service.cache.close()
        sys.stdout.flush()
        sys.stderr.flush()
        # The folder is the gateway's own (address with the run's token, log): gone with it, also
        # when the controller was killed and could not remove it.
        shutil.rmtree(address_file.parent, ignore_errors=True)
        # Everything this process owns is closed; tearing down litellm's thousands of module
        # objects one by one would only keep the controller waiting (measured ~1 s).
        os._exit(0)


def _warm_up() -> None:
    # No gc.freeze() of litellm's modules after this: measured, it did not change the gateway's
    # CPU per call (2.15/2.25/2.48 ms with it, 2.15/2.22/2.55 ms without, at 1409/2050/8040
    # prompt tokens, 4 client threads, benchmarks/gateway_cpu.py).
    import_litellm()


def main() -> None:
    # The entry point of the gateway's process hands it the protocols its offline models answer
    # with; imported here, in that process, not in the controller that imports GatewayProcess.
    # lazy: every protocol's code, only in the gateway process
    from ..protocols.standalone import standalone_registry
    from .offline_models import use_protocols

    use_protocols(standalone_registry)
    values = json.loads(sys.stdin.readline())
    address_file = Path(values.pop("address_file"))
    serve(ServiceSettings(**values), address_file)


if __name__ == "__main__":
    main()
