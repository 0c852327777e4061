"""A real container engine for the Docker adapter's tests: Podman serving the Docker API.

Started once per test process, as it must be on hosts like the project's build machines:
default ulimits in a private containers.conf (no CAP_SYS_RESOURCE), and, as root, in a private
mount namespace without the hybrid cgroup v2 mount. Stopped by its PID. The example's image is
built with ``examples/docker-agent/build-image.sh`` (busybox root file system, ``podman import``).
The tests skip, saying why, only where no engine can run (no podman or busybox, the service does
not come up, or it cannot run even a plain container); any other failure fails them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
BUILD_SCRIPT = REPO / "examples" / "docker-agent" / "build-image.sh"
CONTAINERS_CONF = '[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]\n'
START_TIMEOUT_S = 30


@dataclass(frozen=True)
class Engine:
    url: str  # Docker API URL of the Podman service
    image: str  # the example image, under a tag of this test process (removed afterwards)


@pytest.fixture(scope="session")
def podman_engine() -> Iterator[Engine]:
    """A running Podman service holding the example image (built by the example's script)."""
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
        # Own tag per test process: xdist workers share the image store and may run at once.
        image = f"localhost/pastbench-agent-test:{os.getpid()}"
        subprocess.run(["sh", str(BUILD_SCRIPT), image], env=env, check=True, capture_output=True)
        _check_containers_run(url, image)
        yield Engine(url, image)
        _remove_image(url, image)
    finally:
        service.terminate()
        try:
            service.wait(timeout=15)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


def _check_containers_run(url: str, image: str) -> None:
    """Skip where the engine is up but this host cannot run a container at all (no adapter code)."""
    import docker

    client = docker.DockerClient(base_url=url, timeout=60)
    container = client.containers.create(image, ["/bin/sh", "-c", "exit 0"], network_mode="none")
    try:
        container.start()
        status = container.wait(timeout=60)["StatusCode"]
    except Exception as exc:  # noqa: BLE001 - any engine error means the same here
        _remove_image(url, image)
        pytest.skip(f"no container engine: podman cannot run a container here ({exc})")
    finally:
        container.remove(force=True)
    assert status == 0, f"a plain container exited with {status}"


def _remove_image(url: str, image: str) -> None:
    import docker

    docker.DockerClient(base_url=url, timeout=30).images.remove(image, force=True)


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
