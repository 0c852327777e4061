"""Collection: a family file is a collector; each episode × model × trial × arm is an item.

Ids are stable and readable (``families/update/fact_correction.yaml::ep03[on-t0]``) and the
order is deterministic, which xdist needs (every worker must collect the same list).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from .loader import FamilyFileError, load_family
from .session import pastbench_session

if TYPE_CHECKING:
    from .options import RunOptions
    from .runner import ItemOutcome
    from .schema import Episode, Family


class FamilyFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        try:
            family, file_hash = load_family(self.path)
        except FamilyFileError as exc:
            raise self.CollectError(str(exc)) from None
        session = pastbench_session(self.config)
        session.note_family(family.qualified_id, file_hash)
        # Family markers are data-defined: register them so --strict-markers accepts them.
        self.config.addinivalue_line("markers", f"{family.id}: task family {family.qualified_id}")
        for episode in family.episodes:
            for model, trial, arm, suffix in item_variants(session.options):
                yield EpisodeItem.from_parent(
                    self,
                    name=f"{episode.id}[{suffix}]",
                    family=family,
                    episode=episode,
                    arm=arm,
                    trial=trial,
                    model=model,
                    file_hash=file_hash,
                )


def item_variants(options: RunOptions) -> Iterator[tuple[str, int, str, str]]:
    """(model, trial, arm, id suffix) of each item of one episode or lineage, in collection
    order: ``on-t0``, with the model appended when the run compares several."""
    multi_model = len(options.models) > 1
    for model in options.models:
        for trial in range(options.trials):
            for arm in options.arms:
                parts = [arm, f"t{trial}"] + ([model] if multi_model else [])
                yield model, trial, arm, "-".join(parts)


class EpisodeItem(pytest.Item):
    """One measurement. Setup runs the episode (an infra failure there is a pytest error);
    the call reports the score and, with a pass threshold, asserts it."""

    is_pastbench_item = True

    def __init__(
        self,
        *,
        family: Family,
        episode: Episode,
        arm: str,
        trial: int,
        model: str,
        file_hash: str,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.family = family
        self.episode = episode
        self.arm = arm
        self.trial = trial
        self.model = model
        self.file_hash = file_hash
        self.outcome: ItemOutcome | None = None
        self.infra_error: str | None = None
        for keyword in (family.capability, family.id, family.qualified_id, arm, episode.id):
            self.extra_keyword_matches.add(keyword)
        self.add_marker(family.capability)
        self.add_marker(family.id)
        self.add_marker(arm)

    def setup(self) -> None:
        pastbench_session(self.config).run(self)

    def runtest(self) -> None:
        assert self.outcome is not None
        threshold = pastbench_session(self.config).options.pass_threshold
        score = self.outcome.record.score
        if threshold is not None and self.arm == "on" and (score is None or score < threshold):
            raise BelowThreshold(score, threshold)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, BelowThreshold | ItemInfraError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)  # type: ignore[arg-type]

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, f"{self.family.qualified_id}::{self.name}"

    def secrets(self) -> list[str]:
        """Values that must never appear in any output of this item."""
        from .trace import episode_secret_values

        return episode_secret_values(self.episode)

    def payload(self) -> dict[str, Any]:
        return pastbench_session(self.config).payload(self)


class BelowThreshold(AssertionError):
    def __init__(self, score: float | None, threshold: float) -> None:
        super().__init__(f"score {score if score is None else f'{score:.3f}'} < pass threshold {threshold}")


class ItemInfraError(Exception):
    """The item could not be measured (infra_blocked); its reason is the message."""
