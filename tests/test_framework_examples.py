"""Real agent frameworks from examples/ run unchanged and reach Hermes's Δ on the offline model.

Each example gets its own virtual environment, built from the package registry with the
example's ``requirements.txt`` and cached between suite runs under
``~/.cache/pastbench-examples/<name>-<hash of requirements and Python>`` (a first run takes a
minute or two per example). Each runs one family at ``-n 2`` beside Hermes on the same episodes;
its Δ must lie in Hermes's 95% CI, with no ``agent_error`` session.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
CACHE = Path(os.environ.get("PASTBENCH_EXAMPLES_CACHE", Path.home() / ".cache" / "pastbench-examples"))
FAMILY = REPO / "families" / "memory" / "SM02_constraint_retention.yaml"
EPISODES = "ep01 or ep02 or ep03 or ep04 or ep05"
FAMILY_ID = "memory.SM02_constraint_retention"
BUILD_TIMEOUT_S = 900
RUN_TIMEOUT_S = 900


def example_venv(name: str) -> Path:
    """The example's virtual environment, built once per requirements file and Python."""
    requirements = EXAMPLES / name / "requirements.txt"
    key = hashlib.sha256(requirements.read_bytes() + sys.version.encode()).hexdigest()[:16]
    target = CACHE / f"{name}-{key}"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # xdist workers, or two suite runs, build it once
        if not (target / "complete").exists():  # none yet, or a build that was cut short
            shutil.rmtree(target, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(target)], check=True, timeout=BUILD_TIMEOUT_S)
            install = [str(target / "bin" / "python"), "-m", "pip", "install", "-q", "-r", str(requirements)]
            subprocess.run(install, check=True, timeout=BUILD_TIMEOUT_S, capture_output=True)
            (target / "complete").write_text(requirements.read_text())
    target.chmod(0o755)  # as root the sandbox runs the agent as another uid: it must read the venv
    return target


def run_family(folder: Path, run_id: str, *agent: str) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    command = [
        sys.executable,
        "-m",
        "pytest",
        str(FAMILY),
        "-k",
        EPISODES,
        "-n",
        "2",
        "-p",
        "no:cacheprovider",
        f"--pastbench-run-id={run_id}",
        *agent,
    ]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    summary = json.loads((folder / "reports" / run_id / "sequence_summary.json").read_text())
    return {"run": summary["run"], "family": summary["configs"][0]["families"][FAMILY_ID], "out": done.stdout}


@pytest.fixture(scope="module")
def hermes(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_family(tmp_path_factory.mktemp("hermes"), "hermes")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("example", "label"),
    [
        ("openai-agents", "openai-agents"),  # default Responses API, tools over MCP
        ("anthropic-agent", "anthropic-sdk"),  # /v1/messages, streamed, tools over pastbench-agent/1
        ("pydantic-ai", "pydantic-ai"),  # chat completions, tools over MCP (stdio bridge)
    ],
)
def test_a_framework_example_reaches_hermess_delta(
    example: str, label: str, hermes: dict, tmp_path: Path
) -> None:
    python = example_venv(example) / "bin" / "python"
    agent = f"--pastbench-agent=subprocess:{python} {EXAMPLES / example / 'agent.py'}"
    result = run_family(tmp_path / "run", "framework", agent, f"--pastbench-agent-label={label}")
    assert result["run"]["agent_errors"] == {"sessions": 0, "first": []}, result["out"][-2000:]
    low, high = hermes["family"]["delta_ci"]
    assert result["family"]["infra_blocked"] == 0
    assert low <= result["family"]["delta"] <= high, (result["family"], hermes["family"])
    print(result["out"][result["out"].find(f"{label}@") :].split("\n\n")[0])  # the table (pytest -s)
