"""Where the harness's CPU goes per model call, by layer: one run profiled, one run plain.

Both runs are ``pytest -n 0 --pastbench-concurrency=1 --pastbench-model-service=inline`` on
``pastbench/sleep`` (no latency), so every item, the model service and the model run on pytest's
own thread (a run's default puts the service in a process of its own), and the model itself
only answers a fixed turn: what is left is the harness. litellm is imported before the first item
(start-up, not a per-call cost).

- The plain run gives the CPU per call of the items: process CPU from the first item's start to
  the last item's end, over the ledger's calls.
- The profiled run (cProfile over the same span) gives the split: each
  function's own CPU goes to the layer of its file (``LAYERS``); "incl. libraries" also hands
  the CPU of pydantic and standard-library functions (json, re, ...) up to the layer that
  called them (a harness layer, litellm or pytest), in proportion to each caller's share. The
  profile's clock is the process's CPU time (not wall: blocking file-system calls and a loaded
  machine would count), and cProfile's own overhead makes the run several times slower and
  weighs most on functions called most often, so its figures are scaled to the plain run's
  CPU: shares of a measured total, most exact for the large rows.

    python benchmarks/profile_run.py                   # the memory families
    python benchmarks/profile_run.py -k '' --top 30    # every PAST item
    python benchmarks/profile_run.py -k SM03           # tiny: one family
"""

from __future__ import annotations

import argparse
import os
import pstats
import subprocess
import time
from collections import defaultdict
from typing import Any

from _common import model_calls, run_benchmark
from tabulate import tabulate

PKG = "pytest_pastbench/"
# (layer, path fragments of its files), first match wins; library layers come after the
# project's, so "pytest_pastbench/plugin" is "plugin" and "_pytest/" is "pytest".
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("model (offline)", (f"{PKG}models/offline_provider", f"{PKG}models/sleep_model", "offline_policy")),
    (
        "client",
        tuple(f"{PKG}models/{m}" for m in ("client", "cache", "rate_limit", "budget", "wire_formats")),
    ),
    ("gateway", (f"{PKG}models/gateway",)),
    ("trace", (f"{PKG}core/trace", f"{PKG}core/records", f"{PKG}results/item_record")),
    (
        "tool box",
        (
            f"{PKG}core/tools",
            f"{PKG}protocols/past/toolbox",
            f"{PKG}protocols/past/world",
            f"{PKG}core/sandbox",
        ),
    ),
    ("store", (f"{PKG}core/store", f"{PKG}core/text")),
    (
        "scoring",
        (
            *(f"{PKG}protocols/past/{m}" for m in ("scoring", "losses", "mech")),
            *(f"{PKG}protocols/shared/{m}" for m in ("checks", "claims", "matching", "safety")),
        ),
    ),
    ("agent loop", (f"{PKG}agents/",)),
    ("item engine", (f"{PKG}protocols/",)),
    ("plugin", (f"{PKG}plugin/", f"{PKG}results/", f"{PKG}core/")),
    ("litellm (model client)", ("/litellm/", "/openai/", "/httpx/", "/httpcore/", "/tiktoken")),
    ("pydantic", ("/pydantic/", "/pydantic_core/")),
    ("pytest", ("/_pytest/", "/pluggy/", "/xdist/", "/execnet/")),
]
# Handed up to the harness layer that called them in "incl.": pydantic validates the harness's
# records. litellm (the model's own client: the targets count the harness's CPU beyond it) and
# pytest keep theirs, with the standard library they call.
LIBRARIES = {"pydantic"}
UNOWNED = "stdlib and other"  # json, re, threading, ...: handed up to its caller in "incl."
ROUNDS = 30  # of handing library CPU up the call graph: deeper chains than this stay where they are


def layer_of(filename: str, name: str = "") -> str:
    """The layer of a function: by its file, or for a built-in (file "~") by the type it is a
    method of, as in "<method 'validate_python' of 'pydantic_core...SchemaValidator' objects>"."""
    if filename == "~" and "pydantic_core" in name:
        return "pydantic"
    for layer, fragments in LAYERS:
        if any(fragment in filename for fragment in fragments):
            return layer
    return UNOWNED


def by_layer(stats: pstats.Stats) -> tuple[dict[str, float], dict[str, float]]:
    """CPU seconds per layer: (own functions only, with the libraries' and stdlib's CPU handed to
    the harness layer that called them)."""
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    own: dict[str, float] = defaultdict(float)
    for func, (_, _, tottime, _, _) in table.items():
        own[layer_of(*func[::2])] += tottime
    # A library or stdlib function's CPU splits over its callers by the time each call edge took;
    # a caller that is a library too passes its split on. Solved by iteration (the call graph has
    # cycles); a function no harness code reaches keeps its own layer.
    handed = [f for f in table if layer_of(*f[::2]) in LIBRARIES or layer_of(*f[::2]) == UNOWNED]
    shares: dict[Any, dict[str, float]] = {f: {layer_of(*f[::2]): 1.0} for f in table}
    for _ in range(ROUNDS):
        updated = {}
        for func in handed:
            edges = {c: edge[3] for c, edge in table[func][4].items() if c in shares and edge[3] > 0}
            total = sum(edges.values())
            if not total:
                continue
            split: dict[str, float] = defaultdict(float)
            for caller, weight in edges.items():
                for owner, part in shares[caller].items():
                    split[owner] += part * weight / total
            updated[func] = dict(split)
        shares.update(updated)

    inclusive: dict[str, float] = defaultdict(float)
    for func, (_, _, tottime, _, _) in table.items():
        for owner, part in shares[func].items():
            inclusive[owner] += tottime * part
    return own, inclusive


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-k", dest="select", default="memory", help="-k of the items ('' for all)")
    parser.add_argument("--top", type=int, default=20, help="functions listed by own CPU")
    args = parser.parse_args()
    base = ["--pastbench-model=pastbench/sleep", "--pastbench-concurrency=1", "-n", "0"]
    base += ["--pastbench-model-service=inline"]
    base += ["-k", args.select] if args.select else []
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, {os.cpu_count()} cores")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    plain = run_benchmark(base, warm=True)
    span = plain["timeline"]
    calls, _ = model_calls(plain["summary"])
    cpu_items = plain["span_cpu_s"]["main"]
    profiled = run_benchmark(base, profile=True)
    stats = pstats.Stats(str(profiled["dir"] / "profile-main.prof"))
    own, inclusive = by_layer(stats)
    total = sum(own.values())
    scale = cpu_items / total  # the profiled run's CPU brought back to the plain run's
    print(
        f"{len(plain['records'])} items, {calls} model calls; plain run: {cpu_items:.2f} CPU-s over the items"
        f" (span {span.get('items_span', 0):.1f} s wall), {cpu_items / calls * 1000:.2f} ms CPU per call;"
        f" profiled run: {total:.2f} CPU-s under cProfile (×{total / cpu_items:.1f})"
    )
    rows = [
        [layer, inclusive.get(layer, 0.0) * scale / calls * 1000, own[layer] * scale / calls * 1000]
        for layer in sorted(own, key=lambda name: (-inclusive.get(name, 0.0), -own[name]))
    ]
    print("\nCPU per model call by layer (ms, the plain run's CPU split as the profile splits it)")
    print(tabulate(rows, headers=["layer", "incl. libraries it calls", "own functions"], floatfmt=".3f"))
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    top = sorted(table.items(), key=lambda kv: -kv[1][2])[: args.top]
    rows = [
        [
            tottime * scale / calls * 1000,
            ncalls / calls,
            layer_of(file, name),
            f"{_short(file)}:{line} {name}",
        ]
        for (file, line, name), (_, ncalls, tottime, _, _) in top
    ]
    print(f"\ntop {args.top} functions by own CPU")
    print(tabulate(rows, headers=["ms/call", "calls/call", "layer", "function"], floatfmt=".3f"))
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


def _short(filename: str) -> str:
    for marker in ("site-packages/", "pytest_pastbench/", "lib/python3"):
        if marker in filename:
            return filename[filename.index(marker) :].removeprefix("site-packages/")
    return filename


if __name__ == "__main__":
    main()
