"""The whole-dataset runs of this folder share one worker (xdist group) and carry ``slow``.

``harness.run_contestant`` runs each contestant once per process, on each arm of each built-in
family, and the adversary, baseline, Mech-anchor and stale-trust tests ask for many of the same
runs (recall, the curator, curator on hermes-plus...). Under ``pytest tests -n 2`` each worker has
its own cache, so the tests that run them are kept on one worker (tests/conftest.py turns the
default scheduling into ``loadgroup``, which honours the group).
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent
GROUP = "builtin-contestants"
# A whole built-in on arm in a module whose owners keep it; marked here, not in the file.
WHOLE_DATASET = {"test_mech_anchors.py::test_an_agent_that_never_writes_gets_mech_zero"}


@pytest.hookimpl(tryfirst=True)  # before xdist's worker reads the groups into the node ids
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.parent != HERE:
            continue
        if item.nodeid.split("/")[-1] in WHOLE_DATASET:
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("slow") is not None:
            item.add_marker(pytest.mark.xdist_group(GROUP))
