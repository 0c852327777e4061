"""A whole-dataset test of this folder that its module does not mark ``slow`` gets the mark here.

``harness.run_contestant`` runs each contestant once per process (per worker under ``-n 2``), on
each arm of each built-in family, so the adversary, baseline, Mech-anchor and stale-trust tests
share the runs they have in common. Keeping them on one worker would share them across workers
too, but xdist's ``loadgroup`` does nothing with pytest 9 here: xdist 3.8 adds the group to
``item._nodeid``, which pytest 9 no longer reads (checked: three tests of one ``xdist_group`` ran
on both workers under ``--dist loadgroup``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent
# A whole built-in on arm in a module whose owners keep it; marked here, not in the file.
WHOLE_DATASET = {"test_mech_anchors.py::test_an_agent_that_never_writes_gets_mech_zero"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.parent == HERE and item.nodeid.split("/")[-1] in WHOLE_DATASET:
            item.add_marker(pytest.mark.slow)
