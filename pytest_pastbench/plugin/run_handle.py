"""How any module reaches the pytest run's object: a stash key on the config, nothing else.

Protocols, fixtures and collectors ask for the run here instead of importing ``plugin.run``, so
the run (which loads the protocols) and the protocols (which read the run) form no import cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .run import PastbenchRun

# The attribute of a report that carries an item's payload from a worker to the controller.
PAYLOAD_ATTR = "pastbench"
RUN_KEY: pytest.StashKey[PastbenchRun] = pytest.StashKey()


def pastbench_run(config: pytest.Config) -> PastbenchRun:
    return config.stash[RUN_KEY]
