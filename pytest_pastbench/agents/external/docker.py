"""The Docker adapter: the agent program runs in a container, through the ``docker`` SDK.

Any engine that serves the Docker API works; on a machine without Docker, Podman does
(``podman system service``). Per session: create → start → wait → remove, never a non-detached
``containers.run()`` (it hangs intermittently in its log stream against Podman).

Isolation: ``network_mode="none"`` (the container has only its own loopback; Podman's default
bridge is never used), a read-only root file system with a small ``/tmp``, memory / CPU / process
limits, no capabilities. The harness mounts one folder holding two unix sockets: the protocol
channel and the model gateway, which ``shim.py`` (the container's entry point) exposes on
``127.0.0.1:8080`` inside the container. The item's store folder is mounted read-only at
``/pastbench/store``; writes go through the memory/skill tools so the store log, the trace and
the control arm's reset see them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pytest_pastbench.errors import AgentFailure, InfraError, SessionTimeout
from pytest_pastbench.models.gateway import AgentScope

from ..base import SessionContext
from . import shim
from .driver import ExternalAgent, LineChannel, agent_environment
from .process import base_environment

CONTAINER_RUN_DIR = "/pastbench/run"
CONTAINER_STORE_DIR = "/pastbench/store"
CONTAINER_SHIM = "/pastbench/shim.py"
CONTAINER_GATEWAY_PORT = 8080
CONTAINER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
ENGINE_TIMEOUT_S = 60
CONNECT_POLL_S = 0.2
DEFAULT_SOCKETS = ("/var/run/docker.sock", "/run/podman/podman.sock")


def engine_candidates(docker_host: str | None) -> list[str]:
    """Where to look for an engine: the option, else DOCKER_HOST, else the usual sockets."""
    if docker_host:
        return [docker_host]
    if os.environ.get("DOCKER_HOST"):
        return [os.environ["DOCKER_HOST"]]
    sockets = list(DEFAULT_SOCKETS)
    if os.environ.get("XDG_RUNTIME_DIR"):
        sockets.append(f"{os.environ['XDG_RUNTIME_DIR']}/podman/podman.sock")
    return [f"unix://{path}" for path in sockets if Path(path).exists()]


def connect_engine(docker_host: str | None) -> tuple[Any, str]:
    """A ``docker.DockerClient`` that answered a ping, and its URL; ``ValueError`` when none does."""
    import docker  # lazy: the docker SDK, only for a docker agent

    tried = []
    for url in engine_candidates(docker_host):
        try:
            client = docker.DockerClient(base_url=url, timeout=ENGINE_TIMEOUT_S)
            client.ping()
            return client, url
        except Exception as exc:  # noqa: BLE001 - the SDK raises many kinds; all mean "not here"
            tried.append(f"{url} ({type(exc).__name__}: {str(exc)[:120]})")
    where = "; ".join(tried) if tried else "DOCKER_HOST is unset and no docker or podman socket exists"
    raise ValueError(
        f"no container engine reachable: {where}; start one (e.g. `podman system service --time=0 "
        "unix:///tmp/podman.sock &`) and pass --pastbench-docker-host=unix:///tmp/podman.sock"
    )


class DockerAgent(ExternalAgent):
    def __init__(
        self,
        name: str,
        image: str,
        command: list[str] | None = None,
        docker_host: str | None = None,
        env: dict[str, str] | None = None,
        pass_env: list[str] | None = None,
        mounts: dict[str, str] | None = None,
        memory: str = "1g",
        cpus: float = 1.0,
        pids: int = 256,
        mechanisms: list[str] | None = None,
    ) -> None:
        super().__init__(name, mechanisms)
        self.client, self.engine_url = connect_engine(docker_host)
        try:
            config = self.client.images.get(image).attrs.get("Config") or {}
        except Exception as exc:  # noqa: BLE001 - ImageNotFound or an engine error
            raise ValueError(
                f"image {image!r} is not in the engine at {self.engine_url} ({type(exc).__name__}); "
                "build or load it first (the docs' agents page, docs/agents.md, shows how)"
            ) from None
        self.image = image
        # Without a command the image's own: its entry point and arguments (the shim replaces
        # the entry point, so both become the program's argv).
        self.command = list(command or [*(config.get("Entrypoint") or []), *(config.get("Cmd") or [])])
        if not self.command:
            raise ValueError(f"image {image!r} has no command; give the agent file a 'command:'")
        self.env = dict(env or {})
        self.pass_env = list(pass_env or [])
        self.mounts = {str(Path(host).resolve()): target for host, target in (mounts or {}).items()}
        self.limits = {"mem_limit": memory, "nano_cpus": int(cpus * 1e9), "pids_limit": pids}

    def launch(self, ctx: SessionContext, scope: AgentScope, mcp: Any = None) -> ContainerProcess:
        run_dir = Path(tempfile.mkdtemp(prefix="pb-agent-"))  # short: unix socket paths are ≤ 107 bytes
        process = ContainerProcess(run_dir, f"http://127.0.0.1:{CONTAINER_GATEWAY_PORT}/v1")
        try:
            process.listen(scope.url)
            # Host paths mean nothing in the container: only the variables the agent file names.
            env = {
                "PATH": CONTAINER_PATH,
                **base_environment(self.pass_env, defaults=()),
                **self.env,
                **agent_environment(scope, process.base_url),
                shim.RUN_DIR_ENV: CONTAINER_RUN_DIR,
                shim.PORT_ENV: str(CONTAINER_GATEWAY_PORT),
            }
            store = ctx.tools.store
            volumes = {
                str(run_dir): {"bind": CONTAINER_RUN_DIR, "mode": "rw"},
                **(
                    {str(Path(store.root).resolve()): {"bind": CONTAINER_STORE_DIR, "mode": "ro"}}
                    if store is not None
                    else {}
                ),
                str(Path(shim.__file__).resolve()): {"bind": CONTAINER_SHIM, "mode": "ro"},
                **{host: {"bind": target, "mode": "ro"} for host, target in self.mounts.items()},
            }
            process.container = self.client.containers.create(
                self.image,
                command=["python3", CONTAINER_SHIM, *self.command],
                entrypoint=[],
                environment=env,
                volumes=volumes,
                network_mode="none",  # never Podman's default bridge (a routed private range)
                read_only=True,
                tmpfs={"/tmp": "size=64m"},
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
                labels={
                    "pastbench": "agent",
                    "pastbench.agent": self.name,
                    "pastbench.session": str(ctx.session_index),
                },
                **self.limits,
            )
            process.container.start()
        except InfraError:
            process.stop()
            raise
        except Exception as exc:  # noqa: BLE001 - docker.errors.* and connection errors
            process.stop()
            raise InfraError(f"container engine {self.engine_url}: {type(exc).__name__}: {exc}") from None
        return process


class ContainerProcess:
    def __init__(self, run_dir: Path, base_url: str) -> None:
        self.run_dir = run_dir
        self.base_url = base_url
        self.mcp_url: str | None = None  # tools over MCP: subprocess agents only, so far
        self.container: Any = None
        self.channel: LineChannel | None = None  # type: ignore[assignment]
        self._agent_listener: socket.socket | None = None
        self._gateway_listener: socket.socket | None = None
        self._connection: socket.socket | None = None
        self._logs: str | None = None

    def listen(self, gateway_url: str) -> None:
        """The two sockets the container's shim connects to (before the container starts)."""
        self._agent_listener = _unix_listener(self.run_dir / shim.AGENT_SOCKET)
        self._gateway_listener = _unix_listener(self.run_dir / shim.GATEWAY_SOCKET)
        address = urlsplit(gateway_url)
        gateway = (address.hostname or "127.0.0.1", address.port or 80)
        threading.Thread(
            target=shim.relay,
            args=(self._gateway_listener, lambda: socket.create_connection(gateway)),
            name="pastbench-gateway-relay",
            daemon=True,
        ).start()

    def connect(self, deadline: float) -> None:
        assert self._agent_listener is not None
        self._agent_listener.settimeout(CONNECT_POLL_S)
        while True:
            try:
                self._connection, _ = self._agent_listener.accept()
                break
            except TimeoutError:
                code = self.exit_code(0)
                if code is not None:
                    raise AgentFailure(f"container exited with code {code} before connecting") from None
                if time.monotonic() > deadline:
                    raise SessionTimeout from None
        self._connection.settimeout(None)
        self.channel = LineChannel(self._connection.makefile("rb"), self._connection.sendall)

    def exit_code(self, timeout_s: float) -> int | None:
        if self.container is None:
            return None
        if timeout_s <= 0:
            with contextlib.suppress(Exception):
                self.container.reload()
                if self.container.status in ("exited", "stopped", "dead"):
                    return int(self.container.attrs["State"]["ExitCode"])
            return None
        try:
            return int(self.container.wait(timeout=timeout_s)["StatusCode"])
        except Exception:  # noqa: BLE001 - the SDK's read timeout: still running
            return None

    def stderr_tail(self) -> str:
        if self._logs is None and self.container is not None:
            try:
                logs = self.container.logs(stdout=False, stderr=True, tail=50)
                self._logs = logs.decode("utf-8", "replace")
            except Exception:  # noqa: BLE001 - removed, or the engine went away: no logs
                return ""
        return self._logs or ""

    def stop(self) -> None:
        if self.container is not None:
            self._logs = None
            self.stderr_tail()  # keep the logs: they go once the container is removed
            with contextlib.suppress(Exception):
                self.container.remove(force=True)  # kills it first when still running
            self.container = None
        for sock in (self._connection, self._agent_listener, self._gateway_listener):
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.close()
        shutil.rmtree(self.run_dir, ignore_errors=True)


def _unix_listener(path: Path) -> socket.socket:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(8)
    return listener
