"""The stream protocol's options, as data (registered at start: imports nothing of the protocol).

Its checks load the ServeLearnBench readers only when the option is given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ...plugin.option_spec import OptionGroup, OptionSpec

SCALES = ("sample", "full")


def _reference(value: str | None, config: pytest.Config, resolved: dict[str, Any]) -> str | None:
    if value is None:
        return None
    # Function-level: the leaderboard reader is the protocol's code, loaded only when asked.
    # lazy: keeps pytest's start light (tests/test_lazy_start.py)
    from .servelearn.leaderboard import check_leaderboard

    path = Path(value).expanduser().resolve()
    check_leaderboard(path)  # a UsageError naming the file and the line
    return str(path)


def _sample(value: str | None, config: pytest.Config, resolved: dict[str, Any]) -> Any:
    if value is None:
        return None
    # lazy: keeps pytest's start light (tests/test_lazy_start.py)
    from .servelearn.sample import parse_sample  # the protocol's code, only when asked

    return parse_sample(value)  # a ValueError is the one-line UsageError


OPTIONS = OptionGroup(
    "stream",
    "stream protocol (families/streams and ServeLearnBench downloads)",
    (
        OptionSpec(
            "stream-scale",
            "sample (default: the first tickets of every window of families/streams) or full (every "
            "generated ticket, 4,000+ over the built-in streams)",
            default="sample",
            choices=SCALES,
            resume=True,
        ),
        OptionSpec(
            "stream-reference",
            "a leaderboard CSV in ServeLearnBench's columns (their docs/leaderboard.csv: model, "
            "method, retail_H_L1 ... pitch_H_L3, avg_h, avg_f): the stream tables show its row of each "
            "harness's method (blind/oracle/rag) and model as a 'published' column beside ours",
            check=_reference,
            metavar="CSV",
        ),
        OptionSpec(
            "stream-reference-model",
            "the leaderboard model the published column is read for (e.g. 'GLM-5.3 Flash'), instead "
            "of matching the run's model by the alias table of docs/protocols/streams.md",
            metavar="NAME",
        ),
        OptionSpec(
            "stream-sample",
            "ServeLearnBench download: run N test tasks per scenario (e.g. 20), or a fraction F of "
            "each window's serving and test tasks (e.g. 0.1), drawn with --pastbench-seed and "
            "recorded in the summary; default: every task",
            check=_sample,
            default_text="every task",
            metavar="N|F",
        ),
    ),
)
