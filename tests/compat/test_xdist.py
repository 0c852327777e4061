"""The xdist internals that pytest_pastbench/compat/xdist.py uses still exist: when an xdist
release renames one, this fails naming the library, its version and the member."""

from __future__ import annotations

import inspect
import re
from importlib.metadata import version

import xdist.remote
from xdist.scheduler import LoadScheduling

from pytest_pastbench.compat.xdist import SCHEDULER_MEMBERS, WORKER_LOOP_MEMBERS

XDIST = f"pytest-xdist {version('pytest-xdist')}"


def test_the_worker_loop_keeps_its_queue_where_the_adapter_reads_it() -> None:
    # Instance attributes: set in WorkerInteractor.__init__, read from its source.
    source = inspect.getsource(xdist.remote.WorkerInteractor)
    missing = [name for name in WORKER_LOOP_MEMBERS if not re.search(rf"self\.{name}\s*[:=]", source)]
    assert not missing, f"{XDIST}: WorkerInteractor no longer has {missing}; update compat/xdist.py"
    assert "def lock(" in inspect.getsource(xdist.remote), f"{XDIST}: the worker queue has no lock()"


def test_the_load_scheduler_has_the_members_the_refill_uses() -> None:
    source = inspect.getsource(LoadScheduling)
    missing = [
        name
        for name in SCHEDULER_MEMBERS
        if not hasattr(LoadScheduling, name) and f"self.{name}" not in source
    ]
    assert not missing, f"{XDIST}: LoadScheduling no longer has {missing}; update compat/xdist.py"
    parameters = list(inspect.signature(LoadScheduling._send_tests).parameters)
    assert parameters == ["self", "node", "num"], f"{XDIST}: LoadScheduling._send_tests{parameters}"
