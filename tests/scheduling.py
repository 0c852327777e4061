"""How the project's own tests are dealt to xdist's workers: by recorded duration, longest first.

The suite's time is a handful of long tests (whole pytest runs, framework examples built from the
registry) among some 2,400 short ones. xdist's default ``load`` scheduler deals items in
collection order, in chunks, so where a long test lands is chance: a long test dealt near the end
keeps one worker busy minutes after the other has run dry. Here the first deal gives each worker
an equal share of the *recorded* time (longest processing time first, whole test modules, so a
module's fixtures are set up once), each worker's share in descending order; after that xdist's
work stealing takes the short tests at the end of a busy worker's queue for an idle one.

``tests/durations.json`` holds each test module's total seconds from a whole run. Refresh it after
a change that moves the suite's time (a new slow test, a module split)::

    pytest tests -n 2 --junitxml=/tmp/suite.xml && python -m tests.scheduling /tmp/suite.xml

A module missing from the file counts as ``DEFAULT_S`` a test: it is dealt like any other, so a
stale file only makes the deal less even, never wrong.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from xdist.scheduler import WorkStealingScheduling

DURATIONS = Path(__file__).with_name("durations.json")
DEFAULT_S = 0.5  # a test of a module the file does not know (the suite's mean is about 0.8 s)


def unit_of(nodeid: str) -> str:
    """What is dealt whole: the test's module.

    Not a folder of modules that share runs: tests/adversarial/ as one unit, so that its
    contestants ran once per process, made the suite slower, not faster (two runs: its modules
    took 295 and 318 s on one worker against 161 s dealt apart; test_family_signatures.py's
    curator test alone 122-129 s against 45 s)."""
    return nodeid.split("::", 1)[0]


# Modules whose tests are whole `-n 2` pytest runs, each busy on both cores by itself: dealt to one
# worker, one after the other, never beside each other. Dealt to two workers they ran at the same
# time, each twice as slow (framework examples 185 -> 264 s, README runs 138 -> 266 s; the suite
# 941 s one after the other, 1002 s beside each other).
BOTH_CORES = ("tests/test_framework_examples.py", "tests/test_readme.py")


def recorded_seconds(path: Path = DURATIONS) -> dict[str, float]:
    return json.loads(path.read_text()) if path.exists() else {}


def deal(nodeids: Sequence[str], workers: int, seconds: dict[str, float]) -> list[list[int]]:
    """Indices of ``nodeids`` for each worker: ``BOTH_CORES`` modules first, all to the first
    worker; then whole modules (``unit_of``), longest first, each to the worker with the least
    recorded time so far (ties: the lower worker); within a module, collection order.
    Deterministic: the same collection and file give the same deal."""
    units: dict[str, list[int]] = {}
    for index, nodeid in enumerate(nodeids):
        units.setdefault(unit_of(nodeid), []).append(index)
    cost = {unit: seconds.get(unit, DEFAULT_S * len(indices)) for unit, indices in units.items()}
    loads = [0.0] * workers
    shares: list[list[int]] = [[] for _ in range(workers)]
    for unit in sorted(units, key=lambda u: (u not in BOTH_CORES, -cost[u], u)):
        worker = 0 if unit in BOTH_CORES else min(range(workers), key=lambda w: (loads[w], w))
        loads[worker] += cost[unit]
        shares[worker] += units[unit]
    return shares


class DurationScheduling(WorkStealingScheduling):
    """``worksteal`` with the first deal by recorded duration (see the module docstring)."""

    def schedule(self) -> None:
        if self.collection is not None or not self.collection_is_completed:
            super().schedule()  # a later call, or nothing to deal yet: xdist's own behaviour
            return
        if not self._check_nodes_have_same_collection():
            self.log("**Different tests collected, aborting run**")
            return
        self.collection = next(iter(self.node2collection.values()))
        nodes = [node for node in self.node2pending if not node.shutting_down]
        for node, share in zip(nodes, deal(self.collection, len(nodes), recorded_seconds()), strict=True):
            if share:
                self.node2pending[node].extend(share)
                node.send_runtest_some(share)
        self.check_schedule()  # a worker dealt nothing (more workers than modules) steals now


def record(junit_xml: Path, out: Path = DURATIONS) -> dict[str, float]:
    """Each test module's total seconds from a JUnit XML report of a whole run, into ``out``."""
    totals: dict[str, float] = {}
    for case in ET.parse(junit_xml).iter("testcase"):
        # xunit1 classnames are dotted module paths (tests.plugin.test_run), plus a class if any.
        parts = (case.get("classname") or "").split(".")
        while parts and not parts[-1].startswith("test_"):
            parts.pop()
        if parts:
            module = "/".join(parts) + ".py"
            totals[module] = totals.get(module, 0.0) + float(case.get("time") or 0.0)
    rounded = {module: round(total, 1) for module, total in sorted(totals.items())}
    out.write_text(json.dumps(rounded, indent=1) + "\n")
    return rounded


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m tests.scheduling JUNIT_XML")
    written = record(Path(sys.argv[1]))
    print(f"{DURATIONS}: {len(written)} modules, {sum(written.values()):.0f} s recorded")
