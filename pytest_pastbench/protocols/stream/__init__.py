"""Evolving-environment streams (DESIGN §8, ServeLearnBench): hidden rules that are introduced,
withdrawn and re-enter over windows; serving tickets with outcome feedback, test tickets with
the store frozen. The protocol contract (protocols/__init__.py) in three names."""

from pathlib import Path

from .family import load_stream
from .item import collect
from .report import render, summarize

__all__ = ["collect", "describe", "render", "summarize"]


def describe(path: Path) -> str:
    """``pastbench validate``: validate one stream file (rules, activation table) and say what it holds."""
    stream = load_stream(path)
    family = stream.family
    return (
        f"stream.{family.id}, {family.domain} {family.tier}, {family.windows} windows, "
        f"{len(stream.rules)} hidden rules"
    )
