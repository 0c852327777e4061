"""The Mech anchors (docs/design.md §4, issue 28): Mech per capability with its 95% bootstrap CI,
and each step's paired difference, over the on arm of every built-in PAST episode.

    python benchmarks/mech_anchors.py                      # about two minutes
    python benchmarks/mech_anchors.py --per-capability 1   # tiny: one family per capability

It asserts nothing: ``tests/adversarial/test_mech_anchors.py`` does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import first_per_capability  # noqa: E402
from tabulate import tabulate  # noqa: E402

from pytest_pastbench.models.offline_models import use_protocols  # noqa: E402
from pytest_pastbench.protocols.past.schema import CAPABILITIES  # noqa: E402
from pytest_pastbench.protocols.standalone import standalone_registry  # noqa: E402
from tests.adversarial.harness import (  # noqa: E402
    MECH_ANCHORS,
    mech_by_capability,
    mech_difference,
    past_families,
    run_contestant,
)


def _cell(value: float, ci: tuple[float, float], sign: str = "") -> str:
    return f"{value:{sign}.3f} [{ci[0]:{sign}.2f}, {ci[1]:{sign}.2f}]"


def main(argv: list[str]) -> int:
    use_protocols(standalone_registry)  # an entry point: its offline models are the built-in protocols
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-capability", type=int, help="the first N families of each capability")
    families = first_per_capability(past_families(), parser.parse_args(argv).per_capability)
    results = {name: run_contestant(name, arms=("on",), families=families) for name in MECH_ANCHORS}
    rows = []
    for name, result in results.items():
        mech = mech_by_capability(result)
        rows.append([name, *(_cell(*mech[c]) for c in CAPABILITIES)])
    print(tabulate(rows, headers=["Mech", *CAPABILITIES], disable_numparse=True))
    print()
    steps = [*zip(MECH_ANCHORS, MECH_ANCHORS[1:], strict=False), ("curator+hermes-plus", "paste_all")]
    rows = []
    for better, worse in steps:
        diff = mech_difference(results[better], results[worse])
        rows.append([f"{better} − {worse}", *(_cell(*diff[c], sign="+") for c in CAPABILITIES)])
    print(tabulate(rows, headers=["paired difference", *CAPABILITIES], disable_numparse=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
