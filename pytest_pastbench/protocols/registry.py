"""Which protocols a run knows: filled through ``pytest_pastbench_register_protocols``.

The four built-in protocols register through the same hook (``protocols/builtin.py``) as a
plugin's or a conftest's. Outside pytest the entry points (the ``pastbench`` commands, the offline
model provider) build one with ``protocols/standalone.py`` and pass it down; nothing here loads a
protocol.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .base import BenchProtocol
from .detect import family_format

# What BenchProtocol asks for (its annotations and methods), to name what an object lacks.
_REQUIRED = sorted(
    {*BenchProtocol.__annotations__, *(n for n in vars(BenchProtocol) if not n.startswith("_"))}
)
PAST = "past"  # records written before protocols were named carry no "protocol" (PAST's)


class ProtocolRegistry:
    def __init__(self) -> None:
        self._by_name: dict[str, BenchProtocol] = {}
        self._by_tag: dict[str, BenchProtocol] = {}

    def register(self, protocol: BenchProtocol) -> None:
        """Add one protocol; misuse (a missing method, a name or tag taken) is a usage error."""
        if not isinstance(protocol, BenchProtocol):
            missing = [n for n in _REQUIRED if not hasattr(protocol, n)]
            raise pytest.UsageError(
                f"pytest_pastbench_register_protocols: {protocol!r} is not a protocol "
                f"(missing {', '.join(missing)}); subclass pytest_pastbench.protocols.base.ProtocolBase"
            )
        for key, taken in ((protocol.name, self._by_name), (protocol.format_tag, self._by_tag)):
            if key in taken and taken[key] is not protocol:
                raise pytest.UsageError(
                    f"pytest_pastbench_register_protocols: {key!r} is registered twice "
                    f"({type(taken[key]).__name__} and {type(protocol).__name__}); rename one"
                )
        self._by_name[protocol.name] = protocol
        self._by_tag[protocol.format_tag] = protocol

    def __iter__(self) -> Iterator[BenchProtocol]:
        """In registration order (the offline provider asks the policies in this order)."""
        return iter(self._by_name.values())

    def __getitem__(self, name: str) -> BenchProtocol:
        try:
            return self._by_name[name]
        except KeyError:
            known = ", ".join(sorted(self._by_name))
            raise KeyError(f"no protocol {name!r} is registered (known: {known})") from None

    def by_tag(self, format_tag: str) -> BenchProtocol | None:
        return self._by_tag.get(format_tag)

    def owner(self, path: Path) -> BenchProtocol | None:
        """The protocol of a file: the one of its format tag, else the first that claims it."""
        tag = family_format(path)
        if tag is not None:
            return self.by_tag(tag)
        return next((protocol for protocol in self if protocol.claims(path)), None)

    def of_payload(self, payload: dict[str, Any]) -> BenchProtocol:
        """The protocol of an item payload (an item file, a worker's report)."""
        return self[payload.get("protocol", PAST)]

    def by_name_sorted(self) -> list[BenchProtocol]:
        return [self._by_name[name] for name in sorted(self._by_name)]


def filled(hook: Any) -> ProtocolRegistry:
    registry = ProtocolRegistry()
    collected: list[BenchProtocol] = []
    hook.pytest_pastbench_register_protocols(register=collected.append)
    # pluggy calls the last registered plugin first: a conftest's protocols come before the
    # built-in four, whose last is PAST (its offline policy is the catch-all).
    for protocol in collected:
        registry.register(protocol)
    return registry


_REGISTRY_KEY: pytest.StashKey[ProtocolRegistry] = pytest.StashKey()


def registry_of(config: pytest.Config) -> ProtocolRegistry:
    """The run's registry, filled on first use (after conftests loaded, not in every pytest run)."""
    registry = config.stash.get(_REGISTRY_KEY, None)
    if registry is None:
        registry = config.stash[_REGISTRY_KEY] = filled(config.hook)
        for protocol in registry:
            # Before any item adds them, so --strict-markers accepts them.
            for name, description in protocol.markers.items():
                config.addinivalue_line("markers", f"{name}: {description}")
    return registry


def add_plugin_argument(parser: Any) -> None:
    """``-p MODULE`` of the ``pastbench`` commands that read runs of plugin protocols."""
    parser.add_argument(
        "-p",
        "--plugin",
        dest="plugins",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE and register the protocols of its pytest_pastbench_register_protocols "
        "(as pytest -p does); repeatable",
    )
