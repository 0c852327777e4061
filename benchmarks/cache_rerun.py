"""A cached rerun: model calls made (should be 0) and the wall-time ratio. Prints ratios.

python benchmarks/cache_rerun.py [--latency-ms 200]
python benchmarks/cache_rerun.py --latency-ms 10 --workers 0 -k SM03     # tiny: one family
"""

from __future__ import annotations

import argparse
import tempfile

from _common import model_calls, run_benchmark


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency-ms", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("-k", dest="select", default="", help="-k of the items (default: all)")
    args = parser.parse_args()
    cache_dir = tempfile.mkdtemp(prefix="pastbench-cache-")
    common = [
        f"--pastbench-model=pastbench/recall?latency_ms={args.latency_ms}",
        "-n",
        str(args.workers),
        f"--pastbench-cache-dir={cache_dir}",
        *(["-k", args.select] if args.select else []),
    ]
    first = run_benchmark([*common, "--pastbench-cache=rw"])
    # A replay miss is an infra_blocked item, not a crash: count it instead of stopping.
    second = run_benchmark([*common, "--pastbench-cache=replay"], allow_item_errors=True)
    calls_1, cached_1 = model_calls(first["summary"])
    calls_2, cached_2 = model_calls(second["summary"])
    same = first["summary"]["configs"] == second["summary"]["configs"]
    misses = sum(e.get("failed", 0) for e in (second["summary"]["run"].get("model_calls") or {}).values())
    print(f"first run   model calls {calls_1:5d}  from cache {cached_1:5d}  wall {first['wall_s']:.1f} s")
    print(f"rerun       model calls {calls_2:5d}  from cache {cached_2:5d}  wall {second['wall_s']:.1f} s")
    print(f"replay misses           {misses:5d}  (requests not found in the cache: infra_blocked items)")
    print(f"wall ratio rerun/first  {second['wall_s'] / first['wall_s']:.2f}")
    print(f"identical summaries     {same}")


if __name__ == "__main__":
    main()
