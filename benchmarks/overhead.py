"""Harness overhead: the built-in suite on pastbench/recall (no model latency) against the same
number of trivial pytest items. Prints ratios, not verdicts.

    python benchmarks/overhead.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import model_calls, run_benchmark


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


def time_import_and_collection() -> tuple[float, float]:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import pytest_pastbench"], check=True)
    import_s = time.perf_counter() - started
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--pastbench-families=builtin",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        check=True,
        capture_output=True,
        cwd=tempfile.mkdtemp(),
    )
    return import_s, time.perf_counter() - started


def main() -> None:
    run = run_benchmark(["--pastbench-model=pastbench/recall"])
    items = len(run["records"])
    calls, _ = model_calls(run["summary"])
    trivial = time_trivial_items(items)
    import_s, collect_s = time_import_and_collection()
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
    print(f"collect all families          {collect_s:.2f} s (pytest start-up included)")


if __name__ == "__main__":
    main()
