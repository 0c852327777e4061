"""Parallel efficiency under simulated model latency: measured wall against the ideal
Σ(call latency) / workers, peak RSS per worker, the CPU seconds the run used (all processes)
against the cores, and where the wall time went (start-up until the median worker's first item,
idle tail at the end, finish after the last item). Prints ratios, not verdicts.

    python benchmarks/scaling.py                       # 200 ms per call at -n 4 and -n 16
    python benchmarks/scaling.py --workers 1 -k memory
    python benchmarks/scaling.py --workers 16 --plugins needed

``--plugins needed`` turns off every other installed pytest plugin (in this environment
hypothesis, anyio, pytest-benchmark): each xdist worker loads them at start-up, which on 2 cores
is a visible part of a 16-worker run that is not this harness's.
"""

from __future__ import annotations

import argparse
import os
from importlib.metadata import entry_points

from _common import model_calls, run_benchmark
from tabulate import tabulate

NEEDED_PLUGINS = {"pastbench", "xdist", "xdist.looponfail"}


def other_plugins_off() -> list[str]:
    names = sorted({ep.name for ep in entry_points(group="pytest11")} - NEEDED_PLUGINS)
    return [arg for name in names for arg in ("-p", f"no:{name}")]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", default="4,16")
    parser.add_argument("--latency-ms", type=int, default=200)
    parser.add_argument("-k", dest="select", default=None, help="pytest -k expression (default: all)")
    parser.add_argument("--trials", type=int, default=1, help="trials per item (more work per worker)")
    parser.add_argument("--plugins", choices=("all", "needed"), default="all")
    args = parser.parse_args()
    model = f"--pastbench-model=pastbench/recall?latency_ms={args.latency_ms}"
    plugins = other_plugins_off() if args.plugins == "needed" else []
    if plugins:
        print("other pytest plugins off:", " ".join(plugins))
    cores = os.cpu_count() or 1
    rows = []
    for workers in (int(w) for w in args.workers.split(",")):
        extra = ["-k", args.select] if args.select else []
        extra.append(f"--pastbench-trials={args.trials}")
        run = run_benchmark([model, "-n", str(workers), *extra, *plugins])
        calls, _ = model_calls(run["summary"])
        ideal = calls * args.latency_ms / 1000 / max(workers, 1)
        controller = run["process_cpu_s"].get("main", 0.0)
        workers_cpu = sum(v for k, v in run["process_cpu_s"].items() if k != "main")
        timeline = run["timeline"]
        rss = [v for k, v in run["rss_kib"].items() if k != "main"] or list(run["rss_kib"].values())
        rows.append(
            {
                "workers": workers,
                "calls": calls,
                "wall s": run["wall_s"],
                "ideal s": ideal,
                "efficiency": ideal / run["wall_s"],
                "peak RSS/worker MiB": max(rss) / 1024,
                "CPU s/core": run["cpu_s"] / cores,
                "controller CPU s": controller,
                "workers CPU s": workers_cpu,
                # The model gateway's process, and what pytest processes spent after their probe.
                "gateway+rest CPU s": run["cpu_s"] - controller - workers_cpu,
                "start-up s": timeline.get("start_up", 0.0),
                "start-up CPU s/worker": timeline.get("worker_start_up_cpu", 0.0),
                "tail s": timeline.get("tail", 0.0),
                "finish s": run["wall_s"] - timeline.get("last_item", run["wall_s"]),
            }
        )
    print(tabulate(rows, headers="keys", floatfmt=".2f"))


if __name__ == "__main__":
    main()
