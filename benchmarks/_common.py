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
import cProfile, json, os, resource, time

import pytest

_SPAN = {}
_ORDER = []  # node ids in the order this process started them (pytest's own order)
# CPU time, not wall: a loaded machine or a blocking write must not move a layer's share.
_PROFILE = cProfile.Profile(time.process_time) if os.environ.get("PASTBENCH_BENCH_PROFILE") else None
_WARM = os.environ.get("PASTBENCH_BENCH_WARM")


class _ItemSpan:
    # Registered as a plugin: a conftest's own item hooks only see items under its folder, and
    # the built-in families live in the package. Public pytest hooks only: nothing of the
    # harness is patched, so a refactor inside it cannot silently break the probe.
    def pytest_runtest_logstart(self, nodeid, location):
        _ORDER.append(nodeid)
        if "first_item" not in _SPAN:
            _SPAN["first_item"] = time.time()
            _SPAN["cpu_before_first_item"] = time.process_time()
            if _PROFILE is not None:
                _PROFILE.enable()

    def pytest_runtest_logfinish(self, nodeid, location):
        _SPAN["last_item"] = time.time()
        _SPAN["cpu_after_last_item"] = time.process_time()


def pytest_configure(config):
    config.pluginmanager.register(_ItemSpan(), "pastbench-bench-span")
    if _WARM:
        # litellm's one-time import is start-up, not a cost of the calls a profile divides by.
        from pytest_pastbench.models.client import import_litellm

        import_litellm()


@pytest.hookimpl(tryfirst=True)  # before the plugin writes the run's files: not a per-call cost
def pytest_sessionfinish(session):
    if _PROFILE is not None:
        _PROFILE.disable()
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
        with open(os.path.join(folder, f"order-{worker}.json"), "w") as handle:
            json.dump(_ORDER, handle)
        if _PROFILE is not None:
            _PROFILE.dump_stats(os.path.join(folder, f"profile-{worker}.prof"))

"""


# The built-in families folder also holds docs/design.md §8's protocols (streams, interventions, plasticity):
# the benchmarks measure the PAST items only.
PAST_ONLY = ["-m", "memory or procedural or gathering or update"]


def run_benchmark(
    args: list[str],
    workdir: Path | None = None,
    allow_item_errors: bool = False,
    warm: bool = False,
    profile: bool = False,
) -> dict[str, Any]:
    """Run ``pytest --pastbench-families=builtin -m PAST ARGS`` in a scratch folder; time it; read the run.

    ``warm``: import litellm at configure, so that the items' span leaves its import out;
    ``profile``: also cProfile (CPU time) each item process from its first item to its end, into
    ``<dir>/profile-<worker>.prof``.
    """
    workdir = workdir or Path(tempfile.mkdtemp(prefix="pastbench-bench-"))
    (workdir / "conftest.py").write_text(RSS_PROBE)
    env = {**os.environ, "PASTBENCH_BENCH_DIR": str(workdir)}
    env.update({"PASTBENCH_BENCH_WARM": "1"} if warm or profile else {})
    env.update({"PASTBENCH_BENCH_PROFILE": "1"} if profile else {})
    command = [sys.executable, "-m", "pytest", "--pastbench-families=builtin", "-q", "-p", "no:cacheprovider"]
    # The dev extras' pytest plugins are off, as pyproject's addopts turn them off in the checkout
    # (the run is in a scratch folder, outside it): a user's install has neither, and hypothesis'
    # terminal summary alone imports hypothesis whole at the end of the run (1.3 s measured here).
    command += ["-p", "no:hypothesispytest", "-p", "no:anyio"]
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
    # The run's own records say how many model calls each item made (the ledger's total is theirs
    # plus a judge's); the probe only says in which order each process started them.
    calls_per_item: dict[str, int] = {}
    for record in results["records"]:
        calls_per_item[record["nodeid"]] = calls_per_item.get(record["nodeid"], 0) + record["model_calls"]
    item_order = [n for p in sorted(workdir.glob("order-*.json")) for n in json.loads(p.read_text())]
    spans = {p.stem.removeprefix("span-"): json.loads(p.read_text()) for p in workdir.glob("span-*.json")}
    return {
        # CPU seconds of each item process from its first item's start to its last item's end.
        "span_cpu_s": {k: v["cpu_after_last_item"] - v["cpu_before_first_item"] for k, v in spans.items()},
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
            self.peak_kib = max(self.peak_kib, sum(_rss_kib(pid) for pid in descendants(self.root)))


def children_of() -> dict[int, list[int]]:
    """Each process's direct children, from /proc (Linux)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # "pid (comm) state ppid ...": comm may hold spaces, so split after its last ')'.
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    return children


def descendants(root: int) -> list[int]:
    children = children_of()
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


def first_per_capability(families: list[Any], count: int | None) -> list[Any]:
    """The first ``count`` families of each capability, in the order given (all when None): a
    small run that still has every capability's rows."""
    if count is None:
        return families
    seen: dict[str, int] = {}
    kept = []
    for family in families:
        seen[family.capability] = seen.get(family.capability, 0) + 1
        if seen[family.capability] <= count:
            kept.append(family)
    return kept
