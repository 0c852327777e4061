"""PAST's collection: each episode × model × trial × mechanism set × arm of a family is an item.

Ids are stable and readable (``families/update/SM03_fact_correction.yaml::ep03[on-t0]``) and the
order is deterministic, which xdist needs (every worker must collect the same list).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_pastbench.plugin.collection import model_trials
from pytest_pastbench.plugin.run_handle import pastbench_run
from pytest_pastbench.protocols.past.family_files import load_family

from ...errors import BelowThreshold, ItemInfraError
from ..base import ProtocolFile, ProtocolItem

if TYPE_CHECKING:
    from pytest_pastbench.results.item_record import ItemRecord

    from .engine import ItemOutcome, ItemSpec
    from .schema import Episode, Family


def collect(parent: ProtocolFile) -> Iterator[pytest.Item]:
    family, file_hash = load_family(parent.path)
    parent.identify(family.qualified_id, file_hash)
    bench = pastbench_run(parent.config)
    # Family markers are data-defined: register them so --strict-markers accepts them.
    parent.config.addinivalue_line("markers", f"{family.id}: task family {family.qualified_id}")
    # One config per mechanism set; the set's label joins the id only when there are several.
    mechanism_sets: list[list[str] | None] = list(bench.options.mechanism_sets or [None])
    multi_set = len(mechanism_sets) > 1
    if multi_set:
        # Only then: the mechanisms module loads the store and the tools (collection stays light).
        from pytest_pastbench.agents.mechanisms import mechanism_set_label
    for episode in family.episodes:
        for model, trial, suffix in model_trials(bench.options):
            for mechanisms in mechanism_sets:
                for arm in bench.options.arms:
                    parts = [arm, *suffix]
                    parts += [mechanism_set_label(mechanisms or [])] if multi_set else []
                    yield EpisodeItem.from_parent(
                        parent,
                        name=f"{episode.id}[{'-'.join(parts)}]",
                        family=family,
                        episode=episode,
                        arm=arm,
                        trial=trial,
                        model=model,
                        mechanisms=mechanisms,
                    )


class EpisodeItem(ProtocolItem):
    """One PAST measurement. Setup runs the episode (an infra failure there is a pytest error);
    the call reports the score and, with a pass threshold, asserts it."""

    protocol = "past"
    one_line_errors = (ItemInfraError, BelowThreshold)

    def __init__(
        self,
        *,
        family: Family,
        episode: Episode,
        arm: str,
        mechanisms: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.family = family
        self.episode = episode
        self.arm = arm
        self.outcome: ItemOutcome | None = None
        super().__init__(mechanisms=mechanisms, **kwargs)  # None: the agent's own set

    def add_keywords(self) -> None:
        family, arm = self.family, self.arm
        for keyword in (family.capability, family.id, family.qualified_id, arm, self.episode.id):
            self.extra_keyword_matches.add(keyword)
        if self.mechanisms is not None:
            from pytest_pastbench.agents.mechanisms import mechanism_set_label

            self.extra_keyword_matches.add(mechanism_set_label(self.mechanisms))
        self.add_marker(family.capability)
        self.add_marker(family.id)
        self.add_marker(arm)

    def spec(self) -> ItemSpec:
        from .engine import ItemSpec

        return ItemSpec(
            nodeid=self.nodeid,
            family=self.family,
            episode=self.episode,
            arm=self.arm,
            trial=self.trial,
            model=self.model,
            config_label=pastbench_run(self.config).config_label(self.model, self.mechanisms),
            dataset_hash=self.file_hash,
        )

    def measure(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Run the episode in a fresh store folder (removed after)."""
        from .engine import run

        bench = pastbench_run(self.config)
        store_root = Path(tempfile.mkdtemp(prefix="pastbench-store-"))
        try:
            self.outcome = run(
                self.spec(),
                bench.agent_for(self.mechanisms),
                bench.client(self.model),
                store_root,
                bench.budgets(),
                judge=bench.judge(),
            )
        finally:
            shutil.rmtree(store_root, ignore_errors=True)
        return self.outcome.record.model_dump(mode="json"), self.outcome.trace

    def runtest(self) -> None:
        assert self.outcome is not None
        threshold = pastbench_run(self.config).options.pass_threshold
        score = self.outcome.record.score
        if threshold is not None and self.arm == "on" and (score is None or score < threshold):
            from .losses import describe_losses

            raise BelowThreshold(score, threshold, describe_losses(self.outcome.record.losses))

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, f"{self.family.qualified_id}::{self.name}"

    def work_estimate(self) -> int:
        """How many user turns this item runs (the control arm runs only the eval sessions):
        a proxy for its model calls, used to start long items first under xdist."""
        from .schema import arm_runs_stage

        return sum(len(s.user) for s in self.episode.sessions if arm_runs_stage(self.arm, s.stage))

    def secrets(self) -> list[str]:
        from pytest_pastbench.core.trace import episode_secret_values

        return episode_secret_values(self.episode)

    def full_record(self) -> dict[str, Any]:
        """The ItemRecord as JSON; check details quote answers and reasons quote providers, so
        ``payload`` redacts it like the trace."""
        if self.record is not None:
            return self.record
        return self.blocked_record().model_dump(mode="json")

    def blocked_record(self) -> ItemRecord:
        from .engine import blocked_record

        reason = self.infra_error or "harness error (see the item's error report)"
        return blocked_record(self.spec(), pastbench_run(self.config).agent_for(self.mechanisms), reason)
