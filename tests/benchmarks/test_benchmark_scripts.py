"""Every script in ``benchmarks/`` runs once at a tiny size and prints its table (issue 31, item 4).

Nothing ran the benchmarks, so they rotted: a probe patched a method that had been renamed and
reported 0 calls. Here each one runs at its own small size (one family, 10 ms of latency) and
must exit 0 and print what it is for. No time is asserted: the figures are the machine's. A
script added to ``benchmarks/`` without a tiny run here fails the first test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
ONE_EPISODE = "SM06 and ep01"  # -k of one built-in PAST episode: its two items (on and off arm)
TWO_ITEMS = "* 2 *"  # a table row that counts them

# script -> (its tiny arguments, lines its output must hold, in order: its table's header or rows)
TINY: dict[str, tuple[list[str], list[str]]] = {
    "scaling.py": (
        ["--set", "10:2", "-k", ONE_EPISODE],
        [
            "inspect_ai peer not installed*",
            "row *load*items*calls*eff*",
            f"K=2 {TWO_ITEMS}",
            "10 ms per call*",
        ],
    ),
    "profile_run.py": (
        ["-k", ONE_EPISODE, "--top", "5"],
        [
            "2 items, * model calls; plain run: *",
            "CPU per model call by layer*",
            "client *",
            "top 5 functions*",
        ],
    ),
    "cache_rerun.py": (
        ["--latency-ms", "10", "--workers", "0", "-k", ONE_EPISODE],
        ["rerun       model calls     0 *", "identical summaries     True"],
    ),
    "overhead.py": (["-k", ONE_EPISODE], ["items                         2", "collect all families *"]),
    "gateway_cpu.py": (
        ["--families", "1", "--sizes", "500", "--calls", "8"],
        ["GatewayClient -> gateway (both ends) *", "prompt * tokens  gateway * ms CPU/call *"],
    ),
    "tokens.py": (["--families", "1", "--episodes", "1"], ["mechanisms *", "base * 1 *", "all *"]),
    "validity.py": (
        ["blind", "--per-capability", "1"],
        ["agent *", "blind *", "blind |Δ| (worst capability)*"],
    ),
    "present_supersedes.py": (
        ["families/update/SM06_temporary_exception_pollution.yaml"],
        ["agent *family*", "stale_trust *update.SM06_temporary_exception_pollution*"],
    ),
    "search_recall.py": (
        ["--per-capability", "1"],
        ["recall@5 of the key facts*", "stems + parts (after) *"],
    ),
    "secret_filter.py": (
        ["--per-capability", "1"],
        ["declared secrets caught: *", "sentences without a secret*"],
    ),
}


def test_every_script_has_a_tiny_run() -> None:
    scripts = {p.name for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_")}
    assert scripts == set(TINY)


@pytest.mark.parametrize("script", sorted(TINY))
def test_the_script_runs_and_prints_its_table(script: str, tmp_path: Path) -> None:
    args, expected = TINY[script]
    # No inspect_ai peer: an empty cache and no interpreter named, so scaling.py takes the path
    # most runs take (it says so and prints its own rows) and builds nothing.
    env = {k: v for k, v in os.environ.items() if k not in ("PASTBENCH_PEER_PYTHON", "PYTEST_ADDOPTS")}
    env["PASTBENCH_BENCH_CACHE"] = str(tmp_path / "cache")
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{script} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    result = pytest.LineMatcher(done.stdout.splitlines())
    result.fnmatch_lines(expected, consecutive=False)
