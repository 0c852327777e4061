"""The built-in protocols, registered the way a plugin registers its own."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_pastbench_register_protocols(register: Any) -> None:
    from .intervention.protocol import PROTOCOL as intervention
    from .past.protocol import PROTOCOL as past
    from .plasticity.protocol import PROTOCOL as plasticity
    from .stream.protocol import PROTOCOL as stream

    # tryfirst: the built-in four come before a plugin's, in the terminal report's order.
    for protocol in (past, intervention, plasticity, stream):
        register(protocol)
