"""Efficiency under simulated model latency, with sessions in flight inside each process
(``--pastbench-concurrency=K``) and the same work in inspect_ai beside it. Prints ratios, not
verdicts.

A row ``K`` is one pytest process with K items in flight; ``NxK`` is ``-n N`` with K in each
worker. The model is ``pastbench/sleep`` (``--model``): it only sleeps the latency and answers a
fixed turn (a memory search, then an answer), so what is not latency is the harness's. Every row
gives measured wall / ideal wall, where ideal = Σ(call latency) / calls in flight (N × K;
``--pastbench-max-connections`` is set to it), for the whole command and for the item span
(first item started until the last finished: start-up and exit excluded), the CPU
seconds of each process (the item processes, the xdist controller, the model gateway's process)
and the peak total RSS of the process tree. The peer is inspect_ai with a model that sleeps the
same latency: the same item count in the same order, each sample making its item's calls in a
row, as many samples and connections in flight (``benchmarks/_peer.py``; its wall is inside
``eval()``). Each pastbench row says ``eff − inspect_ai``: its efficiency less the peer's on the
same calls. Without inspect_ai installed it says so and prints its own rows.

    python benchmarks/scaling.py                                  # 200 ms and 1 s, the default rows
    python benchmarks/scaling.py --set 200:16,2x8 --peer-python /tmp/peer-venv/bin/python
    python benchmarks/scaling.py --set 200:16x1 --no-peer         # -n 16, one item per worker
    python benchmarks/scaling.py --set 10:4 -k SM03               # tiny: one family, 10 ms

Rows at K = 1 run the ``--serial-select`` items only (default: the memory families), so that the
one-at-a-time row takes minutes, not a quarter of an hour; their ideal is their own calls'.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from _common import model_calls, run_benchmark
from _peer import PEER_MISSING, peer_python, run_peer
from tabulate import tabulate

DEFAULT_SETS = ["200:1,16,64,2x8,2x32", "1000:16,64,2x8,2x32"]


def parse_row(text: str) -> tuple[int, int]:
    """``"16"`` -> (0, 16): one process; ``"2x8"`` -> (2, 8): two xdist workers with K = 8."""
    workers, _, concurrency = text.rpartition("x")
    return int(workers or 0), int(concurrency)


def load() -> str:
    return open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"


def measure_row(
    workers: int, concurrency: int, latency_ms: int, select: str | None, model: str
) -> dict[str, Any]:
    in_flight = max(workers, 1) * concurrency
    args = [
        f"--pastbench-model=pastbench/{model}?latency_ms={latency_ms}",
        f"--pastbench-concurrency={concurrency}",
        f"--pastbench-max-connections={in_flight}",
        "-n",
        str(workers),
    ]
    if select:
        args += ["-k", select]
    load_before = load()
    # An infra_blocked item (say, a refused connection) is counted in its row, not a crash.
    run = run_benchmark(args, allow_item_errors=True)
    calls, _ = model_calls(run["summary"])
    ideal = calls * latency_ms / 1000 / in_flight
    cpu = run["process_cpu_s"]
    item_processes = {k: v for k, v in cpu.items() if k != "main"} if workers else {"main": cpu["main"]}
    controller = cpu.get("main", 0.0) if workers else 0.0
    span = run["timeline"].get("items_span", run["wall_s"])
    return {
        "run": run,
        "calls": calls,
        "in_flight": in_flight,
        "row": {
            "row": f"-n {workers} × K={concurrency}" if workers else f"K={concurrency}",
            "load": load_before,
            "items": len(run["records"]),
            "blocked": sum(1 for r in run["records"] if r.get("infra_blocked")),
            "calls": calls,
            "ideal s": ideal,
            "wall s": run["wall_s"],
            "eff": ideal / run["wall_s"],
            "eff − inspect_ai": "",
            "items span s": span,
            "eff (span)": ideal / span,
            "CPU s/item proc": " ".join(f"{v:.1f}" for _, v in sorted(item_processes.items())),
            "CPU s ctl": controller,
            "CPU s gateway+rest": run["cpu_s"] - sum(cpu.values()),
            "RSS MiB total": run["total_rss_kib"] / 1024,
        },
    }


def peer_row(python: Path, measured: dict[str, Any], latency_ms: int) -> dict[str, Any]:
    # The items in the order this row ran them (longest first), so both sides schedule the same list.
    per_item, order = measured["run"]["calls_per_item"], measured["run"]["item_order"]
    calls = [per_item.get(nodeid, 0) for nodeid in order]
    if sum(calls) != measured["calls"]:
        raise SystemExit(f"per-item calls {sum(calls)} != the ledger's {measured['calls']}: probe broken")
    peer = run_peer(python, calls, latency_ms / 1000, measured["in_flight"])
    ideal = sum(calls) * latency_ms / 1000 / measured["in_flight"]
    return {
        "row": f"inspect_ai, {measured['in_flight']} in flight",
        "load": load(),
        "items": len(calls),
        "blocked": 0,
        "calls": peer["calls"],
        "ideal s": ideal,
        "wall s": peer["process_wall_s"],
        "eff": ideal / peer["process_wall_s"],
        "eff − inspect_ai": "",
        "items span s": peer["wall_s"],
        "eff (span)": ideal / peer["wall_s"],
        "CPU s/item proc": f"{peer['cpu_s']:.1f}",
        "CPU s ctl": 0.0,
        "CPU s gateway+rest": 0.0,
        "RSS MiB total": peer["peak_rss_kib"] / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", dest="sets", action="append", help="LATENCY_MS:ROW,ROW,... (repeatable)")
    parser.add_argument("--serial-select", default="memory", help="-k for K=1 rows ('' for all items)")
    parser.add_argument("-k", dest="select", default=None, help="-k for every other row (default: all)")
    parser.add_argument("--model", default="sleep", help="the pastbench/ offline model (default: sleep)")
    parser.add_argument("--no-peer", action="store_true", help="skip the inspect_ai rows")
    parser.add_argument("--peer-python", help="an interpreter with inspect_ai (or PASTBENCH_PEER_PYTHON)")
    parser.add_argument("--build-peer", action="store_true", help="build the peer's venv first (~1 min)")
    args = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, {os.cpu_count()} cores")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    peer = None if args.no_peer else peer_python(args.peer_python, args.build_peer)
    if not args.no_peer and peer is None:
        print(PEER_MISSING, flush=True)
    for spec in args.sets or DEFAULT_SETS:
        latency, _, rows = spec.partition(":")
        latency_ms = int(latency)
        table: list[dict[str, Any]] = []
        peers: dict[tuple[int, int], dict[str, Any]] = {}
        for workers, concurrency in (parse_row(r) for r in rows.split(",")):
            select = args.serial_select if concurrency == 1 and workers <= 1 else args.select
            measured = measure_row(workers, concurrency, latency_ms, select or None, args.model)
            # One peer per shape of work: K = 16 and -n 2 × K = 8 share it.
            shape = (measured["in_flight"], measured["calls"])
            fresh = peer is not None and shape not in peers
            if fresh:
                peers[shape] = peer_row(peer, measured, latency_ms)
            if shape in peers:
                measured["row"]["eff − inspect_ai"] = measured["row"]["eff"] - peers[shape]["eff"]
            table += [measured["row"], peers[shape]] if fresh else [measured["row"]]
            print(tabulate(table[-2 if fresh else -1 :], headers="keys", floatfmt=".2f"), flush=True)
        print(f"\n{latency_ms} ms per call (eff = ideal / wall; ideal = Σ call latency / calls in flight)")
        print(tabulate(table, headers="keys", floatfmt=".2f"), flush=True)
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
