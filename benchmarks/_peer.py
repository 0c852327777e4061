"""The inspect_ai peer of ``scaling.py``: its own virtual environment and one run of it.

inspect_ai is a benchmark-only dependency, never the plugin's, and is not installed by default:
``--peer-python=PATH`` (or ``PASTBENCH_PEER_PYTHON``) names an interpreter that has it, or
``--build-peer`` builds a venv from the package registry with ``peer/requirements.txt`` under
``~/.cache/pastbench-bench/`` (keyed by the requirements and the Python version; about a minute),
which later runs then find on their own. ``peer/inspect_peer.py`` runs there as a subprocess that
prints JSON. Without either, the scripts say "peer not installed" and print their own rows.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PEER = Path(__file__).resolve().parent / "peer"
CACHE = Path(os.environ.get("PASTBENCH_BENCH_CACHE", Path.home() / ".cache" / "pastbench-bench"))


PEER_MISSING = (
    "inspect_ai peer not installed: its rows are left out (--build-peer builds it into "
    f"{CACHE}, about a minute from the package registry; or --peer-python=PATH)"
)


def _cached_venv() -> Path:
    requirements = PEER / "requirements.txt"
    key = hashlib.sha256(requirements.read_bytes() + sys.version.encode()).hexdigest()[:16]
    return CACHE / f"inspect-ai-{key}"


def peer_python(given: str | None = None, build: bool = False) -> Path | None:
    """The interpreter that runs the peer: ``given`` (or ``PASTBENCH_PEER_PYTHON``), else the cached
    venv, built first when ``build``; None when there is none."""
    given = given or os.environ.get("PASTBENCH_PEER_PYTHON")
    if given:
        if not Path(given).exists():
            raise SystemExit(f"--peer-python {given}: no such interpreter")
        return Path(given)
    target = _cached_venv()
    if build:
        _build(target)
    return target / "bin" / "python" if (target / "complete").exists() else None


def _build(target: Path) -> None:
    requirements = PEER / "requirements.txt"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / "inspect-ai.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / "complete").exists():  # none yet, or a build that was cut short
            shutil.rmtree(target, ignore_errors=True)
            print(f"building the inspect_ai peer's venv in {target} (once) ...", flush=True)
            subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
            install = [str(target / "bin" / "python"), "-m", "pip", "install", "-q", "-r", str(requirements)]
            subprocess.run(install, check=True)
            (target / "complete").write_text(requirements.read_text())


def run_peer(python: Path, calls_per_item: list[int], latency_s: float, in_flight: int) -> dict[str, Any]:
    """inspect_ai on the same work: one sample per item making that item's calls one after the
    other, each sleeping ``latency_s``, ``in_flight`` samples and connections at once."""
    spec = {"calls_per_item": calls_per_item, "latency_s": latency_s, "in_flight": in_flight}
    started = time.perf_counter()
    done = subprocess.run(
        [str(python), str(PEER / "inspect_peer.py")],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"the inspect_ai peer failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return {**json.loads(done.stdout), "process_wall_s": time.perf_counter() - started}
