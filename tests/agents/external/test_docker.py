"""The Docker adapter against a real engine (Podman's Docker API; see conftest.py)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import yaml

from pytest_pastbench.agents.base import Budgets
from pytest_pastbench.agents.external.docker import DockerAgent
from pytest_pastbench.core.records import SessionRecord
from pytest_pastbench.core.store import Store
from pytest_pastbench.errors import WallBackstop
from pytest_pastbench.models.gateway import ModelService, ServiceClient
from pytest_pastbench.protocols.past.engine import run_agent_session
from pytest_pastbench.protocols.past.schema import WorldSeed
from pytest_pastbench.protocols.past.world import World
from tests.agents.external.conftest import REPO, Engine
from tests.family_samples import GOOD_MEMORY

EXAMPLE_AGENT_FILE = REPO / "examples" / "docker-agent" / "docker-example.yaml"

PROBE = """\
import json, os, socket, sys, urllib.request
start = json.loads(sys.stdin.readline())
sys.stdin.readline()
found = {}
try:
    socket.create_connection(("1.1.1.1", 80), timeout=2)
    found["internet"] = True
except OSError as exc:
    found["internet"] = exc.strerror  # "Network is unreachable": the container has only loopback
for path in ("/pastbench/store/probe", "/probe"):
    try:
        open(path, "w").write("x")
        found[path] = "written"
    except OSError as exc:
        found[path] = exc.strerror
request = urllib.request.Request(
    start["model"]["base_url"] + "/models", headers={"Authorization": "Bearer " + start["model"]["api_key"]}
)
found["models"] = json.loads(urllib.request.urlopen(request, timeout=10).read())["data"][0]["id"]
found["store"] = sorted(os.listdir("/pastbench/store/memory"))
found["env"] = sorted(os.environ)
found["same_key"] = os.environ.get("ANTHROPIC_API_KEY") == os.environ.get("OPENAI_API_KEY")
print(json.dumps({"type": "answer", "content": json.dumps(found)}), flush=True)
"""


def container_session(engine: Engine, tmp_path: Path, script: str, budgets: Budgets):  # noqa: ANN201
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "probe.py").write_text(script)
    store = Store(tmp_path / "store")
    store.write_memory("Brightwater reports go to @mira.k")
    agent = DockerAgent(
        f"probe-{tmp_path.name}",  # unique: other test processes may share the engine's store
        engine.image,
        ["python3", "/agent/probe.py"],
        docker_host=engine.url,
        mounts={str(tmp_path / "agent"): "/agent", "/usr": "/usr"},
        memory="256m",
    )
    label = {"label": f"pastbench.agent={agent.name}"}
    seen: list[dict] = []  # the session's container as the engine describes it, while it runs
    done = threading.Event()

    def watch() -> None:
        while not done.is_set() and not seen:
            seen.extend(c.attrs["HostConfig"] for c in agent.client.containers.list(all=True, filters=label))
            done.wait(0.2)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        session: SessionRecord | WallBackstop
        try:
            session = run_agent_session(
                agent,
                ServiceClient(ModelService(), "pastbench/recall"),
                store,
                World(WorldSeed()),
                ["go"],
                budgets=budgets,
            )
        except WallBackstop as exc:  # the session is not scored: the item would be infra_blocked
            session = exc
    finally:
        done.set()
        watcher.join()
    leftovers = agent.client.containers.list(all=True, filters=label)
    return session, seen, leftovers


def test_the_container_has_no_network_but_the_gateway_and_a_read_only_store(
    podman_engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-for-agents-0123456789")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    session, _, leftovers = container_session(podman_engine, tmp_path, PROBE, Budgets())
    assert session.agent_error is None, session.agent_error
    found = json.loads(session.answer)
    assert found["internet"] == "Network is unreachable"
    assert found["/pastbench/store/probe"] == "Read-only file system"
    assert found["/probe"] == "Read-only file system"
    assert found["models"] == "pastbench/recall"  # through shim → unix socket → the gateway
    assert found["store"] == ["m0001.json"]
    # No host variables: no provider key (ANTHROPIC_API_KEY is the session's gateway token), no
    # host paths; the gateway settings are there.
    assert found["same_key"] and "PYTHONPATH" not in found["env"]
    assert {"OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "PASTBENCH_MODEL"} <= set(found["env"])
    assert leftovers == []  # every session's container is removed


def test_a_container_past_its_wall_clock_is_stopped_and_removed(
    podman_engine: Engine, tmp_path: Path
) -> None:
    script = "import sys, time\nsys.stdin.readline()\ntime.sleep(600)\n"
    session, seen, leftovers = container_session(podman_engine, tmp_path, script, Budgets(wall_s=5))
    assert isinstance(session, WallBackstop) and leftovers == []
    # While it ran, the engine held it with the limits the adapter asked for.
    [host] = seen
    assert host["NetworkMode"] == "none" and host["ReadonlyRootfs"] is True
    assert host["Memory"] == 256 * 2**20 and host["NanoCpus"] == 10**9 and host["PidsLimit"] == 256
    assert host["CapDrop"] and "no-new-privileges" in host["SecurityOpt"]


def test_the_example_agent_runs_a_family_in_containers(
    podman_engine: Engine, pytester: pytest.Pytester
) -> None:
    (pytester.path / "families" / "memory").mkdir(parents=True)
    (pytester.path / "families" / "memory" / "tiny_prefs.yaml").write_text(GOOD_MEMORY)
    # The example agent file as it is, on this test process's image, mounts still beside the example.
    agent_file = yaml.safe_load(EXAMPLE_AGENT_FILE.read_text())
    agent_file["image"] = podman_engine.image
    agent_file["mounts"] = {
        str((EXAMPLE_AGENT_FILE.parent / host).resolve()): to for host, to in agent_file["mounts"].items()
    }
    (pytester.path / "docker-example.yaml").write_text(yaml.safe_dump(agent_file))
    result = pytester.runpytest_subprocess(
        "families",
        "-k",
        "ep01",
        "--pastbench-agent=docker-example.yaml",
        f"--pastbench-docker-host={podman_engine.url}",
        "--pastbench-run-id=box",
    )
    assert result.ret == 0, result.stdout.str()
    summary = json.loads((pytester.path / "reports/box/sequence_summary.json").read_text())
    [config] = summary["configs"]
    overall = config["overall"]
    assert config["label"] == "docker-example@pastbench/recall"
    assert overall["s_on"] > overall["s_off"] and overall["infra_blocked"] == 0
    ledger = summary["run"]["model_calls"]["pastbench/recall"]
    assert overall["tokens"] == ledger["prompt_tokens"] + ledger["completion_tokens"] > 0
