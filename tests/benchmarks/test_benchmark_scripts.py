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

from tests.child_runs import CHILD_RUN_OPTIONS

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
    "mech_anchors.py": (
        ["--per-capability", "1"],
        ["Mech *memory*procedural*gathering*update*", "oracle *", "curator+hermes-plus − paste_all *"],
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


def script_env() -> dict[str, str]:
    """The environment of a script's tiny run: its pytest runs are the test suite's child runs
    (``CHILD_RUN_OPTIONS``: no HTML report, figures or dev-only plugins at the end, about 2 CPU-s
    of each run that nothing here reads), and the caller's own pytest options stay out."""
    env = {k: v for k, v in os.environ.items() if k != "PASTBENCH_PEER_PYTHON"}
    env["PYTEST_ADDOPTS"] = " ".join(CHILD_RUN_OPTIONS)
    return env


@pytest.mark.parametrize("script", sorted(TINY))
def test_the_script_runs_and_prints_its_table(script: str, tmp_path: Path) -> None:
    args, expected = TINY[script]
    # No inspect_ai peer: an empty cache and no interpreter named, so scaling.py takes the path
    # most runs take (it says so and prints its own rows) and builds nothing.
    env = script_env()
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


FAKE_PEER = """#!{python}
# Stands in for the peer's interpreter: answers like benchmarks/peer/inspect_peer.py, without inspect_ai.
import json, sys

spec = json.load(sys.stdin)
assert all(calls > 0 for calls in spec["calls_per_item"]), spec
print(json.dumps({{"wall_s": 1.0, "calls": sum(spec["calls_per_item"]), "cpu_s": 0.1, "peak_rss_kib": 1024}}))
"""


def test_scaling_hands_the_peer_each_item_s_calls_and_prints_its_row_beside(tmp_path: Path) -> None:
    """The probe that rotted: the peer gets every item's calls, in the order they ran, adding up
    to the run's ledger (else scaling.py stops: "probe broken"), and each row shows eff − peer."""
    peer = tmp_path / "peer-python"
    peer.write_text(FAKE_PEER.format(python=sys.executable))
    peer.chmod(0o755)
    args = ["--set", "10:2", "-k", ONE_EPISODE, "--peer-python", str(peer)]
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "scaling.py"), *args],
        cwd=ROOT,
        env=script_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert "peer not installed" not in done.stdout
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith(("K=2", "inspect_ai, 2"))]
    ours, theirs = rows[-2], rows[-1]  # the final table
    assert theirs[:3] == ["inspect_ai,", "2", "in"]
    assert ours[4] == theirs[7] != "0"  # the same calls on both sides
    assert float(ours[8]) == pytest.approx(float(ours[7]) - float(theirs[10]), abs=0.011)  # eff − peer's
