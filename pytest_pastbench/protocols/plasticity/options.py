"""The plasticity protocol's options, as data (registered at start: imports nothing of the protocol)."""

from __future__ import annotations

from ...plugin.option_spec import OptionGroup, OptionSpec

OPTIONS = OptionGroup(
    "plasticity",
    "plasticity protocol (families/plasticity: checkpoints, learning curves, P_sat)",
    (
        OptionSpec(
            "plasticity-checkpoints",
            "run checkpoints 0..N instead of each family file's own C",
            kind=int,
            low=1,
            high=200,
            metavar="N",
            resume=True,
        ),
    ),
)
