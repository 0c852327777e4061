"""A PAST item: one episode × model × trial × mechanism set × arm of a family, and how it is
measured (``EpisodeItem.measure`` plays the episode on ``engine.py``'s ``run``). ``collect.py``
yields them."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_pastbench.plugin.run_handle import pastbench_run

from ...errors import BelowThreshold, ItemInfraError
from ..base import ProtocolItem
from .schema import arm_runs_stage

if TYPE_CHECKING:
    from pytest_pastbench.results.item_record import ItemRecord

    from .engine import ItemOutcome, ItemSpec
    from .schema import Episode, Family


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
            # Lazy: the mechanisms module loads the store and the tools (collection stays light).
            from pytest_pastbench.agents.mechanisms import mechanism_set_label

            self.extra_keyword_matches.add(mechanism_set_label(self.mechanisms))
        self.add_marker(family.capability)
        self.add_marker(family.id)
        self.add_marker(arm)

    def spec(self) -> ItemSpec:
        from .engine import ItemSpec  # lazy, as in measure

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
        # Lazy: collection imports this module; the engine and all it loads only when an item runs.
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
            from .losses import describe_losses  # lazy: only a failed threshold words its losses

            raise BelowThreshold(score, threshold, describe_losses(self.outcome.record.losses))

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, f"{self.family.qualified_id}::{self.name}"

    def work_estimate(self) -> int:
        """How many user turns this item runs (the control arm runs only the eval sessions):
        a proxy for its model calls, used to start long items first under xdist."""
        return sum(len(s.user) for s in self.episode.sessions if arm_runs_stage(self.arm, s.stage))

    def secrets(self) -> list[str]:
        # Lazy: redaction is asked when an item reports, not when it is collected.
        from pytest_pastbench.core.trace import episode_secret_values

        return episode_secret_values(self.episode)

    def full_record(self) -> dict[str, Any]:
        """The ItemRecord as JSON; check details quote answers and reasons quote providers, so
        ``payload`` redacts it like the trace."""
        if self.record is not None:
            return self.record
        return self.blocked_record().model_dump(mode="json")

    def blocked_record(self) -> ItemRecord:
        from .engine import blocked_record  # lazy, as in measure

        reason = self.infra_error or "harness error (see the item's error report)"
        return blocked_record(self.spec(), pastbench_run(self.config).agent_for(self.mechanisms), reason)
