"""Shared helpers of the benchmark scripts: run pytest on the packaged families, read the run."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

RSS_PROBE = """
import json, os, resource, threading, time

from pytest_pastbench.models import gateway
from pytest_pastbench.plugin import run as session

_SPAN = {}
_CALLS = {}  # node id -> model calls its sessions made (the peer in scaling.py makes as many)
_ORDER = []  # node ids in the order this process ran them
_CURRENT = threading.local()  # the item a thread is running (items run on --pastbench-concurrency threads)


def _counting_run(run):
    def counted(self, item):
        _CURRENT.nodeid = item.nodeid
        return run(self, item)
    return counted


def _counting_complete(complete):
    def counted(self, *args, **kwargs):
        nodeid = getattr(_CURRENT, "nodeid", None)
        _CALLS[nodeid] = _CALLS.get(nodeid, 0) + 1
        return complete(self, *args, **kwargs)
    return counted


session.PastbenchRun.run = _counting_run(session.PastbenchRun.run)
gateway.ServiceClient.complete = _counting_complete(gateway.ServiceClient.complete)
gateway.GatewayClient.complete = _counting_complete(gateway.GatewayClient.complete)

class _ItemSpan:
    # Registered as a plugin: a conftest's own item hooks only see items under its folder, and
    # the built-in families live in the package.
    def pytest_runtest_logstart(self, nodeid, location):
        _ORDER.append(nodeid)
        if "first_item" not in _SPAN:
            _SPAN["first_item"] = time.time()
            _SPAN["cpu_before_first_item"] = time.process_time()

    def pytest_runtest_logfinish(self, nodeid, location):
        _SPAN["last_item"] = time.time()

def pytest_configure(config):
    config.pluginmanager.register(_ItemSpan(), "pastbench-bench-span")

def pytest_sessionfinish(session):
    worker = getattr(session.config, "workerinput", {}).get("workerid", "main")
    usage = resource.getrusage(resource.RUSAGE_SELF)
    folder = os.environ["PASTBENCH_BENCH_DIR"]
    with open(os.path.join(folder, f"rss-{worker}.json"), "w") as handle:
        json.dump(usage.ru_maxrss, handle)
    with open(os.path.join(folder, f"cpu-{worker}.json"), "w") as handle:
        json.dump(usage.ru_utime + usage.ru_stime, handle)
    # The processes that ran items: each xdist worker, or pytest itself at -n 0 (the xdist
    # controller, "dsession", also sees every item's logstart, as forwarded reports).
    if _SPAN and not session.config.pluginmanager.hasplugin("dsession"):
        with open(os.path.join(folder, f"span-{worker}.json"), "w") as handle:
            json.dump(_SPAN, handle)
        with open(os.path.join(folder, f"calls-{worker}.json"), "w") as handle:
            json.dump({"calls": _CALLS, "order": _ORDER}, handle)
"""


# The built-in families folder also holds docs/design.md §8's protocols (streams, interventions, plasticity):
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
    launched = time.time()
    started = time.perf_counter()
    with subprocess.Popen(
        command, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        sampler = TreeRss(process.pid).start()
        stdout, stderr = process.communicate()
        sampler.stop()
    done = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
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
    calls_per_item: dict[str, int] = {}
    item_order: list[str] = []
    for path in sorted(workdir.glob("calls-*.json")):
        probe = json.loads(path.read_text())
        calls_per_item.update(probe["calls"])
        item_order += probe["order"]
    return {
        "calls_per_item": calls_per_item,
        "item_order": item_order,  # the order each process ran its items (processes one after another)
        "timeline": worker_timeline(workdir, launched),
        "process_cpu_s": process_cpu,
        "wall_s": wall,
        "cpu_s": cpu,
        "summary": summary,
        "records": results["records"],
        "rss_kib": rss,
        # pytest, its workers and the gateway's process at once (sampled), not the sum of peaks.
        "total_rss_kib": sampler.peak_kib,
        "dir": workdir,
    }


class TreeRss:
    """Peak of the summed resident memory of a process and all its descendants, sampled from
    /proc (Linux) on a thread: the workers and the gateway's process live in one process tree."""

    def __init__(self, root: int, interval_s: float = 0.2) -> None:
        self.root = root
        self.interval_s = interval_s
        self.peak_kib = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def start(self) -> TreeRss:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._done.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._done.wait(self.interval_s):
            self.peak_kib = max(self.peak_kib, sum(_rss_kib(pid) for pid in _descendants(self.root)))


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # "pid (comm) state ppid ...": comm may hold spaces, so split after its last ')'.
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def model_calls(summary: dict[str, Any]) -> tuple[int, int]:
    """(calls made, calls answered from the cache) over every model of the run."""
    ledger = summary["run"].get("model_calls") or {}
    return sum(e["calls"] for e in ledger.values()), sum(e["cached"] for e in ledger.values())


def worker_timeline(workdir: Path, launched: float) -> dict[str, float]:
    """Where an xdist run's wall time went, from each worker's first and last item (seconds after
    launch): ``start_up`` until the median worker runs its first item, ``tail`` from the first
    worker's last item to the run's last one (workers idle while others finish), and the CPU
    seconds a worker spent before its first item (mean). Empty without xdist.
    """
    spans = [json.loads(p.read_text()) for p in sorted(workdir.glob("span-*.json"))]
    if not spans:
        return {}
    firsts = sorted(s["first_item"] - launched for s in spans)
    lasts = sorted(s["last_item"] - launched for s in spans)
    return {
        "start_up": firsts[len(firsts) // 2],
        "tail": lasts[-1] - lasts[0],
        "last_item": lasts[-1],
        # First item started (any process) until the last one finished: the run without start-up.
        "items_span": lasts[-1] - firsts[0],
        "worker_start_up_cpu": sum(s["cpu_before_first_item"] for s in spans) / len(spans),
    }
