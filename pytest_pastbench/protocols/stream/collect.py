"""Collection of stream families: one item (``items.py`` ``StreamItem``) per stream × harness ×
model × trial × mechanism set."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_pastbench.plugin.collection import config_variants
from pytest_pastbench.plugin.run_handle import pastbench_run

from ..base import ProtocolFile
from .items import StreamItem
from .schema import load_stream


def collect(parent: ProtocolFile) -> Iterator[pytest.Item]:
    stream = load_stream(parent.path)
    options = pastbench_run(parent.config).options
    for harness in stream.family.harnesses:
        for model, trial, mechanisms, parts in config_variants(options):
            yield StreamItem.from_parent(
                parent,
                name=f"{harness}[{'-'.join(parts)}]",
                stream=stream,
                harness=harness,
                model=model,
                trial=trial,
                mechanisms=mechanisms,
            )
