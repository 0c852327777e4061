"""The built-in protocols and their options, registered the way a plugin registers its own.

Imports inside functions load a protocol object or its options only when pytest asks for them
through the hooks: this module is registered in every pytest run (tests/test_lazy_start.py).
"""

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


def pytest_pastbench_register_options(register: Any) -> None:
    # Data-only modules: every pytest run loads them (the protocols load only when collected).
    from .intervention.options import OPTIONS as intervention
    from .plasticity.options import OPTIONS as plasticity
    from .stream.options import OPTIONS as stream

    for group in (intervention, plasticity, stream):
        register(group)
