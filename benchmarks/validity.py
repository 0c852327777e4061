"""Validity I (issue #15): what agents that game S, and the reference baselines, score.

Runs every agent of ``tests/adversarial/harness.py`` over every built-in PAST episode, both
arms, in-process (no pytest, no litellm), and prints S_on / S_off per capability and the issue's
targets as ratios. It asserts nothing: ``tests/adversarial/test_score_adversaries.py`` does.

    python benchmarks/validity.py                 # every agent (about a minute)
    python benchmarks/validity.py dump blind      # some of them
    python benchmarks/validity.py blind --per-capability 1     # tiny: one family per capability
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import first_per_capability  # noqa: E402
from tabulate import tabulate  # noqa: E402

from pytest_pastbench.models.offline_models import use_protocols  # noqa: E402
from pytest_pastbench.protocols.past.schema import CAPABILITIES  # noqa: E402
from pytest_pastbench.protocols.standalone import standalone_registry  # noqa: E402
from tests.adversarial.harness import CONTESTANTS, Result, past_families, run_contestant  # noqa: E402


def _ratio(num: float, den: float) -> str:
    return f"{num / den:.2f}" if den else "—"


def targets(results: dict[str, Result]) -> list[tuple[str, str, str]]:
    """(target, measured, limit) for the targets whose agents were run."""
    rows: list[tuple[str, str, str]] = []
    have = results.keys()
    if "empty" in have:
        rows.append(
            (
                "empty answer: max s_e over every eval session",
                f"{max(results['empty'].session_scores):.2f}",
                "0.00",
            )
        )
    if {"dump", "blind"} <= have:
        dump, blind = results["dump"].s("gathering", "off"), results["blind"].s("gathering", "off")
        rows.append(("dump gathering S_off − blind S_off", f"{dump - blind:+.2f}", "≤ 0"))
    if {"echo", "blind"} <= have:
        gap = max(
            results["echo"].s(c, a) - results["blind"].s(c, a) for c in CAPABILITIES for a in ("on", "off")
        )
        rows.append(("echo S − blind S (worst capability and arm)", f"{gap:+.2f}", "≤ +0.02"))
    if {"cross_episode", "blind"} <= have:
        for c in CAPABILITIES:
            gap = results["cross_episode"].s(c, "off") - results["blind"].s(c, "off")
            limit = "not asserted (template-shared procedures)" if c == "procedural" else "≤ +0.05"
            rows.append((f"cross-episode S_off − blind S_off, {c}", f"{gap:+.2f}", limit))
    if {"paraphrase", "verbatim"} <= have:
        for c in ("memory", "update"):
            ratio = _ratio(results["paraphrase"].s(c, "on"), results["verbatim"].s(c, "on"))
            rows.append((f"paraphrase / verbatim S_on, {c}", ratio, "≥ 0.85"))
    if "blind" in have:
        worst = max(abs(results["blind"].s(c, "on") - results["blind"].s(c, "off")) for c in CAPABILITIES)
        rows.append(("blind |Δ| (worst capability)", f"{worst:.2f}", "≤ 0.02"))
    order = ("blind", "recall", "curator", "curator+hermes-plus")
    if set(order) <= have:
        chain = " < ".join(f"{results[n].overall('on'):.2f}" for n in order)
        rows.append(("S_on overall: blind < recall < curator < curator+hermes-plus", chain, "increasing"))
    return rows


def main(argv: list[str]) -> int:
    use_protocols(standalone_registry)  # an entry point: its offline models are the built-in protocols
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="*", help="agents (default: every one)")
    parser.add_argument("--per-capability", type=int, help="the first N families of each capability")
    args = parser.parse_args(argv)
    families = first_per_capability(past_families(), args.per_capability)
    results: dict[str, Result] = {}
    rows = []
    for name in args.names or list(CONTESTANTS):
        started = time.monotonic()
        result = results[name] = run_contestant(name, families=families)
        cells = [f"{result.s(c, 'on'):.2f} / {result.s(c, 'off'):.2f}" for c in CAPABILITIES]
        overall = f"{result.overall('on'):.2f} / {result.overall('off'):.2f}"
        rows.append([name, *cells, overall, f"{time.monotonic() - started:.1f}"])
    headers = ["agent", *(f"{c} S_on / S_off" for c in CAPABILITIES), "overall", "wall s"]
    print(tabulate(rows, headers=headers, disable_numparse=True))
    print()
    print(tabulate(targets(results), headers=["target", "measured", "limit"], disable_numparse=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
