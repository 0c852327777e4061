"""Shared helpers of the benchmark scripts: run pytest on the packaged families, read the run."""

from __future__ import annotations

import json
import os
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
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with open(os.path.join(os.environ["PASTBENCH_BENCH_DIR"], f"rss-{worker}.json"), "w") as handle:
        json.dump(peak_kib, handle)
"""


def run_benchmark(args: list[str], workdir: Path | None = None) -> dict[str, Any]:
    """Run ``pytest --pastbench-families=builtin ARGS`` in a scratch folder; time it; read the run."""
    workdir = workdir or Path(tempfile.mkdtemp(prefix="pastbench-bench-"))
    (workdir / "conftest.py").write_text(RSS_PROBE)
    env = {**os.environ, "PASTBENCH_BENCH_DIR": str(workdir)}
    command = [sys.executable, "-m", "pytest", "--pastbench-families=builtin", "-q", "-p", "no:cacheprovider"]
    command += ["--pastbench-run-id=bench", *args]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"pytest failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    summary = json.loads((workdir / "reports" / "bench" / "sequence_summary.json").read_text())
    results = json.loads((workdir / "reports" / "bench" / "sequence_results.json").read_text())
    rss = {p.stem.removeprefix("rss-"): json.loads(p.read_text()) for p in workdir.glob("rss-*.json")}
    return {"wall_s": wall, "summary": summary, "records": results["records"], "rss_kib": rss, "dir": workdir}


def model_calls(summary: dict[str, Any]) -> tuple[int, int]:
    """(calls made, calls answered from the cache) over every model of the run."""
    ledger = summary["run"].get("model_calls") or {}
    return sum(e["calls"] for e in ledger.values()), sum(e["cached"] for e in ledger.values())
