"""PAST's collection: each episode × model × trial × mechanism set × arm of a family is an item
(``items.py`` ``EpisodeItem``).

Ids are stable and readable (``families/update/SM03_fact_correction.yaml::ep03[on-t0]``) and the
order is deterministic, which xdist needs (every worker must collect the same list).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_pastbench.plugin.collection import item_variants
from pytest_pastbench.plugin.run_handle import pastbench_run
from pytest_pastbench.protocols.past.family_files import load_family

from ..base import ProtocolFile
from .items import EpisodeItem


def collect(parent: ProtocolFile) -> Iterator[pytest.Item]:
    family, file_hash = load_family(parent.path)
    parent.identify(family.qualified_id, file_hash)
    options = pastbench_run(parent.config).options
    # Family markers are data-defined: register them so --strict-markers accepts them.
    parent.config.addinivalue_line("markers", f"{family.id}: task family {family.qualified_id}")
    for episode in family.episodes:
        for model, trial, arm, mechanisms, suffix in item_variants(options):
            yield EpisodeItem.from_parent(
                parent,
                name=f"{episode.id}[{suffix}]",
                family=family,
                episode=episode,
                arm=arm,
                trial=trial,
                model=model,
                mechanisms=mechanisms,
            )
