"""The intervention protocol's options, as data (registered at start: imports nothing of the protocol)."""

from __future__ import annotations

from typing import Any

import pytest

from ...plugin.option_spec import OptionGroup, OptionSpec


def _below_one(value: float | None, config: pytest.Config, resolved: dict[str, Any]) -> float | None:
    if value is not None and value >= 1.0:
        raise ValueError("τ must be below 1 (no pass rate is above 1), e.g. --pastbench-intervention-tau=0.5")
    return value


OPTIONS = OptionGroup(
    "intervention",
    "intervention protocol (families/interventions: α_L, γ, σ, κ, ρ)",
    (
        OptionSpec(
            "intervention-m",
            "α_L's sustained-success threshold m (passes in a row that count as re-learned) for "
            "every family, instead of each family file's own",
            kind=int,
            low=1,
            default_text="each family's metrics.m",
            metavar="M",
            resume=True,
        ),
        OptionSpec(
            "intervention-tau",
            "κ's baseline threshold τ in [0, 1) (checks whose pre-event pass rate is at or below it "
            "are left out of κ) for every family, instead of each family file's own",
            kind=float,
            low=0.0,
            check=_below_one,
            default_text="each family's metrics.tau",
            metavar="TAU",
            resume=True,
        ),
    ),
)
