"""``--protocol NAME`` (and ``-p MODULE``) of the commands that work on one protocol's family files
(``schema``, ``export``, ``validate``): the protocol does the work, the command prints it."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TypeVar

from ..protocols.standalone import standalone_registry

T = TypeVar("T")

DEFAULT_PROTOCOL = "past"  # the built-in family set's protocol


def add_protocol_arguments(parser: argparse.ArgumentParser) -> None:
    # lazy: keeps `pastbench --help` and the other subcommands light
    from ..protocols.registry import add_plugin_argument

    parser.add_argument(
        "--protocol",
        default=DEFAULT_PROTOCOL,
        metavar="NAME",
        help=f"the registered protocol whose family files these are (default: {DEFAULT_PROTOCOL})",
    )
    add_plugin_argument(parser)


def chosen_protocol(args: argparse.Namespace) -> Any:
    """The protocol ``--protocol`` names; ``KeyError`` naming the registered ones when none is so named."""
    return standalone_registry(args.plugins)[args.protocol]


class Unanswered(Exception):
    """The named protocol is not registered, or does not do this command's work (exit 2)."""


def protocol_answer(args: argparse.Namespace, command: str, work: Callable[[Any], T | None], lacks: str) -> T:
    """``work`` done by the protocol ``--protocol`` names; ``Unanswered`` saying why when there is
    no such protocol or its answer is None (``lacks``: "publishes no JSON Schema")."""
    try:
        protocol = chosen_protocol(args)
    except KeyError as exc:
        raise Unanswered(f"pastbench {command}: {exc.args[0]}") from None
    answer = work(protocol)
    if answer is None:
        raise Unanswered(f"pastbench {command}: protocol {protocol.name} {lacks}")
    return answer
