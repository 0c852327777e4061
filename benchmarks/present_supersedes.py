"""Issue 29, item 2: does memory that is stale hurt? Δ of an honest agent and of a stale-trusting one.

Runs, in-process through ``tests/adversarial/harness.py`` (no pytest, no litellm), the honest
reference (``pastbench/curator`` on Hermes with every mechanism) and ``stale_trust``, the
adversary of tests/adversarial/agents.py that always answers from what it stored and drops newer
evidence, on both arms of the families given (the two present-supersedes families by default),
and prints per family S_on, S_off, Δ and its 95% bootstrap CI over scenario groups, as the run
summary computes them (``metrics.build_summary``). It asserts nothing: the figures are for the
issue's target (stale Δ < 0 with the CI below 0, honest Δ > 0).

    python benchmarks/present_supersedes.py
    python benchmarks/present_supersedes.py families/update/SM03_fact_correction.yaml
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabulate import tabulate  # noqa: E402

from pytest_pastbench.core.family_files import load_family  # noqa: E402
from pytest_pastbench.protocols.past.metrics import build_summary  # noqa: E402
from tests.adversarial.harness import run_contestant  # noqa: E402

DEFAULT = (
    "families/update/SM08_present_overrides_store.yaml",
    "families/procedural/PC05_revised_procedure.yaml",
)


def main(paths: list[str]) -> int:
    families = [load_family(Path(p))[0] for p in (paths or DEFAULT)]
    rows = []
    for name in ("curator+hermes-plus", "stale_trust"):
        result = run_contestant(name, families=families)
        summary = build_summary(result.records, {"trials": 1}, seed=0)
        for fid, entry in summary["configs"][0]["families"].items():
            low, high = entry["delta_ci"] or (None, None)
            rows.append(
                [name, fid, f"{entry['s_on']:.2f}", f"{entry['s_off']:.2f}", f"{entry['delta']:+.2f}",
                 f"[{low:+.2f}, {high:+.2f}]" if low is not None else "—"]
            )  # fmt: skip
    print(tabulate(rows, headers=["agent", "family", "S_on", "S_off", "Δ", "95% CI"], disable_numparse=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
