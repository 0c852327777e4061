"""Harness overhead: the built-in suite on pastbench/recall (no model latency) against the same
number of trivial pytest items. Prints ratios, not verdicts.

    python benchmarks/overhead.py
    python benchmarks/overhead.py -k SM03     # tiny: one family
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import PAST_ONLY, model_calls, run_benchmark


def time_trivial_items(count: int) -> float:
    folder = Path(tempfile.mkdtemp(prefix="pastbench-trivial-"))
    body = (
        "import pytest\n\n@pytest.mark.parametrize('i', range(%d))\ndef test_trivial(i):\n    assert i >= 0\n"
    )
    (folder / "test_trivial.py").write_text(body % count)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=folder,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def time_import_and_collection(select: list[str]) -> tuple[float, float, float]:
    """Import time, wall of ``pytest --collect-only`` over the PAST families, and pytest's own
    collection time from its "collected ... in X s" line (start-up and plugin imports excluded).

    The collection runs twice and the second is reported: the first compiles and assertion-rewrites
    the plugin's modules, which Python then caches (unless PYTHONDONTWRITEBYTECODE is set)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import pytest_pastbench"], check=True)
    import_s = time.perf_counter() - started
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--pastbench-families=builtin",
        "--collect-only",
        *PAST_ONLY,
        *select,
        "-q",
        "-p",
        "no:cacheprovider",
    ]
    for _ in range(2):
        started = time.perf_counter()
        done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=tempfile.mkdtemp())
        wall_s = time.perf_counter() - started
    reported = re.search(r" in ([0-9.]+)s", done.stdout)
    if reported is None:
        raise SystemExit(f"no collection time in pytest's output:\n{done.stdout[-2000:]}")
    return import_s, wall_s, float(reported.group(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-k", dest="select", default="", help="-k of the items (default: all)")
    args = parser.parse_args()
    select = ["-k", args.select] if args.select else []
    run = run_benchmark(["--pastbench-model=pastbench/recall", *select])
    items = len(run["records"])
    calls, _ = model_calls(run["summary"])
    trivial = time_trivial_items(items)
    import_s, collect_wall_s, collect_s = time_import_and_collection(select)
    print(f"items                         {items}")
    print(f"model calls                   {calls}")
    print(f"benchmark wall                {run['wall_s']:.2f} s  ({items / run['wall_s']:.1f} items/s)")
    print(f"{items} trivial pytest items    {trivial:.2f} s")
    print(f"wall ratio benchmark/trivial  {run['wall_s'] / trivial:.2f}")
    print(
        f"per item beyond pytest        {(run['wall_s'] - trivial) / items * 1000:.0f} ms "
        f"(includes litellm's one-time import and the offline policies' own work)"
    )
    print(f"import pytest_pastbench       {import_s:.2f} s (python start-up included)")
    print(f"collect all families          {collect_s:.2f} s as pytest reports it")
    print(f"collect-only command          {collect_wall_s:.2f} s wall (python, pytest and plugin start-up)")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("note: PYTHONDONTWRITEBYTECODE is set: every run recompiles and assertion-rewrites the plugin")


if __name__ == "__main__":
    main()
