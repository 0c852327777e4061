"""The options of the pytest runs the tests start (pytester's, the benchmark scripts' tiny runs):
see ``_child_runs_skip_the_final_gc`` in tests/conftest.py for why each one. And what such a run
leaves running (``expect_no_model_service_left``)."""

import time
from pathlib import Path

CHILD_RUN_OPTIONS = (
    "-p no:unraisableexception",
    "-o pastbench_no_report=true",
    "-o pastbench_model_service=inline",
    "-p no:hypothesispytest",
    "-p no:anyio",
)


def model_services_left(marker: str) -> list[str]:
    """The model-service processes (``models/gateway_process.py``) still running whose environment
    holds ``marker``: what a child run started with it and did not stop. Only those, not every
    process carrying it (the forking helper of tests/zygote.py may have started with it)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            if (
                "pytest_pastbench.models.gateway_process" in command
                and marker.encode() in (proc / "environ").read_bytes()
            ):
                found.append(command)
        except OSError:  # gone meanwhile, or not ours
            continue
    return found


def expect_no_model_service_left(marker: str, within_s: float = 30.0) -> None:
    """Wait for the model services a child run started with ``marker`` to end; fail if one is
    still running after ``within_s`` (a hang guard: they end within a second when stopped)."""
    deadline = time.monotonic() + within_s
    while model_services_left(marker):
        assert time.monotonic() < deadline, f"left running after the run: {model_services_left(marker)}"
        time.sleep(0.1)
