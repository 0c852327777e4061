"""Shared helpers of the benchmark scripts: run pytest on the packaged families, read the run."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RSS_PROBE = """
import json, os, resource

def pytest_sessionfinish(session):
    worker = getattr(session.config, "workerinput", {}).get("workerid", "main")
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.path.join(os.environ["PASTBENCH_BENCH_DIR"], f"rss-{worker}.json"), "w") as handle:
        json.dump(usage.ru_maxrss, handle)
    with open(os.path.join(os.environ["PASTBENCH_BENCH_DIR"], f"cpu-{worker}.json"), "w") as handle:
        json.dump(usage.ru_utime + usage.ru_stime, handle)
"""


# The built-in families folder also holds DESIGN §8's protocols (streams, interventions, plasticity):
# the benchmarks measure the PAST items only.
PAST_ONLY = ["-m", "memory or procedural or gathering or update"]


def run_benchmark(
    args: list[str], workdir: Path | None = None, allow_item_errors: bool = False
) -> dict[str, Any]:
    """Run ``pytest --pastbench-families=builtin -m PAST ARGS`` in a scratch folder; time it; read the run."""
    workdir = workdir or Path(tempfile.mkdtemp(prefix="pastbench-bench-"))
    (workdir / "conftest.py").write_text(RSS_PROBE)
    env = {**os.environ, "PASTBENCH_BENCH_DIR": str(workdir)}
    command = [sys.executable, "-m", "pytest", "--pastbench-families=builtin", "-q", "-p", "no:cacheprovider"]
    command += ["--pastbench-run-id=bench", *PAST_ONLY, *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU seconds of pytest and every worker it waited for: on a machine with few cores this,
    # not the model latency, can be what bounds the wall time.
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # pytest exits 1 when items fail or error (e.g. infra_blocked); other codes mean the run broke.
    if done.returncode != 0 and not (allow_item_errors and done.returncode == 1):
        raise SystemExit(f"pytest failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    summary = json.loads((workdir / "reports" / "bench" / "sequence_summary.json").read_text())
    results = json.loads((workdir / "reports" / "bench" / "sequence_results.json").read_text())
    rss = {p.stem.removeprefix("rss-"): json.loads(p.read_text()) for p in workdir.glob("rss-*.json")}
    # CPU seconds per process ("main" is the controller, which hosts the model gateway).
    process_cpu = {p.stem.removeprefix("cpu-"): json.loads(p.read_text()) for p in workdir.glob("cpu-*.json")}
    return {
        "process_cpu_s": process_cpu,
        "wall_s": wall,
        "cpu_s": cpu,
        "summary": summary,
        "records": results["records"],
        "rss_kib": rss,
        "dir": workdir,
    }


def model_calls(summary: dict[str, Any]) -> tuple[int, int]:
    """(calls made, calls answered from the cache) over every model of the run."""
    ledger = summary["run"].get("model_calls") or {}
    return sum(e["calls"] for e in ledger.values()), sum(e["cached"] for e in ledger.values())
