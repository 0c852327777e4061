"""Shared set-up of the project's own tests."""

import os
import sys

# pytester restores sys.modules after every test that uses it, dropping the modules that test
# imported. A test that draws (plots, plasticity PNGs through `pastbench merge`) in the test
# process would leave matplotlib half unloaded, and the next drawing test would see two copies
# of its classes ("Legend needs either Axes or FigureBase as parent"). Importing the drawing
# modules once here puts them in every snapshot. Likewise scipy.optimize (the plasticity curve fit,
# tests/protocols/plasticity): it imports numpy.fft, whose C extension cannot be loaded twice in a
# process ("cannot load module more than once per process" once a pytester test had dropped it).
import matplotlib.backends.backend_agg  # noqa: F401
import matplotlib.figure  # noqa: F401
import matplotlib.legend  # noqa: F401
import matplotlib.style  # noqa: F401
import pytest
import scipy.optimize  # noqa: F401

from tests.child_runs import CHILD_RUN_OPTIONS
from tests.scheduling import DurationScheduling
from tests.zygote import forked_popen

# Python's bytecode cache stays on for this suite and every process it starts, even where the
# shell turns it off (PYTHONDONTWRITEBYTECODE=1, as on this project's machines): some 300 pytest
# processes start here (pytester's children, their xdist workers and model gateways), and each
# imports this package as a pytest11 plugin, which pytest assertion-rewrites module by module.
# Without the cache every one of them parses, rewrites and compiles the whole package again.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# Only the project's own tests use pytester; requesting it here (not in pyproject's addopts) keeps
# it out of the users' runs over families/ from this checkout. Likewise hypothesis' plugin
# (health checks, statistics, failing-example reports for the @given tests): pyproject's addopts
# block it under its entry-point name for every run here, and it is loaded back by module name
# for the tests alone.
pytest_plugins = ["pytester", "_hypothesis_pytestplugin"]


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> DurationScheduling:
    """The suite's long tests dealt evenly to the workers first (tests/scheduling.py)."""
    return DurationScheduling(config, log)


@pytest.fixture(autouse=True)
def _child_runs_skip_the_final_gc(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest runs started through pytester leave out its unraisable-exception plugin.

    That plugin runs gc.collect() five times at exit, about 1.5 s over litellm's heap: a fifth of
    a small subprocess run, repeated in some 80 of them. An unraisable exception in a child run
    still reaches its stderr through Python's default hook; it is just not turned into a warning.
    Set after pytester exists, which clears PYTEST_ADDOPTS for its runs.

    The child runs also write no HTML report nor figures at the end (the default of a user's run):
    drawing them costs about 1 s of CPU a run, over some 100 runs that check other things. A test
    of the report passes ``-o pastbench_no_report=false`` (a later -o wins).

    Their model service runs inline (``-o pastbench_model_service=inline``): in its own process it
    would import litellm cold in every run (about 4 CPU-s), where the forked child already has it.
    The tests of that process ask for it (tests/plugin/test_model_service.py).

    Nor do they load the dev environment's hypothesis and anyio plugins, which no child run uses:
    hypothesis' terminal summary imports hypothesis whole at the end of every run (its modules
    are rewritten by pytest, recompiled in every process when bytecode is not written, as on
    this machine), and anyio's probes its event-loop back-ends at start: together 1.1-1.4 s of the
    5.7 s of CPU a four-item child run took here.
    """
    if "pytester" in request.fixturenames:
        pytester = request.getfixturevalue("pytester")
        monkeypatch.setenv("PYTEST_ADDOPTS", " ".join(CHILD_RUN_OPTIONS))
        cold = os.environ.get("PASTBENCH_TEST_CHILDREN") == "cold"
        if not cold and request.node.get_closest_marker("fresh_interpreter") is None:
            # tests/zygote.py: the child runs start from a warm interpreter (litellm imported).
            monkeypatch.setattr(pytester, "popen", forked_popen(pytester.popen))
