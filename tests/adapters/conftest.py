"""A real container engine for the Docker adapter's tests: Podman serving the Docker API.

Started once per test process as docs/MACHINE notes say it must be on hosts like this one:
default ulimits in a private containers.conf (no CAP_SYS_RESOURCE), and, as root, in a private
mount namespace without the hybrid cgroup v2 mount. Stopped by its PID. The example's image is
built with ``examples/docker-agent/build-image.sh`` (busybox root file system, ``podman import``).
The tests skip, saying why, only where no engine can run (no podman or busybox, or the service
does not come up); a build or run failure on a working engine fails them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO / "examples" / "docker-agent" / "build-image.sh"
EXAMPLE_IMAGE = "localhost/pastbench-agent-base:latest"
CONTAINERS_CONF = '[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]\n'
START_TIMEOUT_S = 30


@pytest.fixture(scope="session")
def podman_engine() -> Iterator[str]:
    """The Docker API URL of a running Podman service that holds the example image."""
    podman, busybox = shutil.which("podman"), shutil.which("busybox")
    if podman is None or busybox is None:
        pytest.skip("no container engine: needs podman and busybox (apt-get install podman busybox-static)")
    folder = Path(tempfile.mkdtemp(prefix="pb-podman-"))  # short: a unix socket path is ≤ 107 bytes
    (folder / "containers.conf").write_text(CONTAINERS_CONF)
    env = {**os.environ, "CONTAINERS_CONF": str(folder / "containers.conf")}
    url = f"unix://{folder / 'podman.sock'}"
    command = [podman, "system", "service", "--time=0", url]
    if os.geteuid() == 0 and shutil.which("unshare"):
        script = 'umount /sys/fs/cgroup/unified 2>/dev/null; exec "$@"'
        command = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", *command]
    log = (folder / "service.log").open("wb")
    service = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_for(url, service, folder / "service.log")
        subprocess.run(["sh", str(BUILD_SCRIPT), EXAMPLE_IMAGE], env=env, check=True, capture_output=True)
        yield url
    finally:
        service.terminate()
        try:
            service.wait(timeout=15)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


def _wait_for(url: str, service: subprocess.Popen[bytes], log: Path) -> None:
    import docker

    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if service.poll() is not None:
            break
        try:
            docker.DockerClient(base_url=url, timeout=5).ping()
            return
        except Exception:  # noqa: BLE001 - not listening yet
            time.sleep(0.2)
    tail = log.read_text(errors="replace")[-300:].strip()
    pytest.skip(f"no container engine: podman system service did not start ({tail or 'no output'})")
