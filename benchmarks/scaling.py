"""Parallel efficiency under simulated model latency: measured wall against the ideal
Σ(call latency) / workers, peak RSS per worker, and the CPU seconds the run used (all processes)
against the cores: when CPU s/core nears the ideal wall, the machine, not the latency, bounds the
run. Prints ratios, not verdicts.

    python benchmarks/scaling.py                       # 200 ms per call at -n 4 and -n 16
    python benchmarks/scaling.py --workers 1,4,16 --latency-ms 200 --trials 2 -k memory
"""

from __future__ import annotations

import argparse
import os

from _common import model_calls, run_benchmark


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", default="4,16")
    parser.add_argument("--latency-ms", type=int, default=200)
    parser.add_argument("-k", dest="select", default=None, help="pytest -k expression (default: all)")
    parser.add_argument("--trials", type=int, default=1, help="trials per item (more work per worker)")
    args = parser.parse_args()
    model = f"--pastbench-model=pastbench/recall?latency_ms={args.latency_ms}"
    print(
        f"{'workers':>7} {'calls':>6} {'wall s':>8} {'ideal s':>8} {'wall/ideal':>10} {'efficiency':>10} "
        f"{'peak RSS/worker MiB':>20} {'CPU s':>7} {'CPU s/core':>10} "
        f"{'controller CPU s':>16} {'workers CPU s':>13}"
    )
    cores = os.cpu_count() or 1
    for workers in (int(w) for w in args.workers.split(",")):
        extra = ["-k", args.select] if args.select else []
        extra.append(f"--pastbench-trials={args.trials}")
        run = run_benchmark([model, "-n", str(workers), *extra])
        calls, _ = model_calls(run["summary"])
        ideal = calls * args.latency_ms / 1000 / max(workers, 1)
        controller = run["process_cpu_s"].get("main", 0.0)
        workers_cpu = sum(v for k, v in run["process_cpu_s"].items() if k != "main")
        rss = [v for k, v in run["rss_kib"].items() if k != "main"] or list(run["rss_kib"].values())
        print(
            f"{workers:>7} {calls:>6} {run['wall_s']:>8.1f} {ideal:>8.1f} {run['wall_s'] / ideal:>10.2f} "
            f"{ideal / run['wall_s']:>10.2f} {max(rss) / 1024:>20.0f} {run['cpu_s']:>7.1f} "
            f"{run['cpu_s'] / cores:>10.1f} {controller:>16.1f} {workers_cpu:>13.1f}"
        )


if __name__ == "__main__":
    main()
