"""Evolving-environment streams (DESIGN §8, ServeLearnBench): hidden rules that are introduced,
withdrawn and re-enter over windows; serving tickets with outcome feedback, test tickets with
the store frozen. The protocol contract (protocols/__init__.py) in three names."""

from .item import collect
from .report import render, summarize

__all__ = ["collect", "render", "summarize"]
