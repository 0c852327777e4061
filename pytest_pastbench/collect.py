"""Collection: a family file is a collector; each episode × model × trial × arm is an item.

Ids are stable and readable (``families/update/fact_correction.yaml::ep03[on-t0]``) and the
order is deterministic, which xdist needs (every worker must collect the same list).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from .errors import BelowThreshold, FamilyFileError, InvalidFamily, ItemInfraError
from .loader import load_family
from .mechanisms import mechanism_set_label
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
            yield InvalidFamilyItem.from_parent(self, name=INVALID_FAMILY_NAME, problem=str(exc))
            return
        session = pastbench_session(self.config)
        session.note_family(family.qualified_id, file_hash)
        # Family markers are data-defined: register them so --strict-markers accepts them.
        self.config.addinivalue_line("markers", f"{family.id}: task family {family.qualified_id}")
        # One config per mechanism set; the set's label joins the id only when there are several.
        mechanism_sets: list[list[str] | None] = list(session.options.mechanism_sets or [None])
        multi_set = len(mechanism_sets) > 1
        for episode in family.episodes:
            for model, trial, suffix in model_trials(session.options):
                for mechanisms in mechanism_sets:
                    for arm in session.options.arms:
                        parts = [arm, *suffix]
                        parts += [mechanism_set_label(mechanisms or [])] if multi_set else []
                        yield EpisodeItem.from_parent(
                            self,
                            name=f"{episode.id}[{'-'.join(parts)}]",
                            family=family,
                            episode=episode,
                            arm=arm,
                            trial=trial,
                            model=model,
                            mechanisms=mechanisms,
                            file_hash=file_hash,
                        )


def item_variants(options: RunOptions) -> Iterator[tuple[str, int, str, str]]:
    """(model, trial, arm, id suffix) of each item of one lineage, in collection order:
    ``on-t0``, with the model appended when the run compares several."""
    for model, trial, suffix in model_trials(options):
        for arm in options.arms:
            yield model, trial, arm, "-".join([arm, *suffix])


def model_trials(options: Any) -> Iterator[tuple[str, int, list[str]]]:
    """(model, trial, id parts) for every model × trial of one unit of work: ``t0``, plus the
    model when several run (``t0-pastbench/blind``). Shared by every protocol's collection."""
    multi_model = len(options.models) > 1
    for model in options.models:
        for trial in range(options.trials):
            yield model, trial, [f"t{trial}"] + ([model] if multi_model else [])


def with_parsable_nodeid(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``pytest.Item`` keyword arguments with the node id spelled out as a string.

    From a name such as ``ep03[on-t0]`` pytest 9 builds an id whose name is the whole string and
    whose params are empty, while ``--lf`` and ``--ff`` parse the ids they saved into the name
    ``ep03`` and the params ``on-t0``: the two never compared equal, and ``--lf`` reran every
    item. An id given as a string is parsed the way the cache parses it (pytest 8 keeps it as is).
    """
    kwargs.setdefault("nodeid", f"{kwargs['parent'].nodeid}::{kwargs['name']}")
    return kwargs


_ON_ARM_ID = re.compile(r"^(?P<episode>.+::[^:\[\]]+)\[on(?P<rest>-[^\]]*)?\]$")


def control_arm_ids(nodeids: Iterable[str]) -> list[str]:
    """The control-arm id of every on-arm item id: ``…::ep03[on-t0]`` -> ``…::ep03[off-t0]``.

    ``--lf`` and ``--ff`` rerun a failed on item with its episode's control item, because
    Δ = S_on − S_off of the rerun needs both arms (the control arm never fails a threshold).
    """
    twins = []
    for nodeid in nodeids:
        match = _ON_ARM_ID.match(nodeid)
        if match:
            twins.append(f"{match['episode']}[off{match['rest'] or ''}]")
    return sorted(set(twins))


class OneLineItem(pytest.Item):
    """An item whose expected failures (``one_line_errors``) are reported as their message alone;
    the plugin's makereport sends setup errors here too (pytest formats those itself)."""

    one_line_errors: tuple[type[BaseException], ...] = ()

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, self.one_line_errors):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)  # type: ignore[arg-type]


class EpisodeItem(OneLineItem):
    """One measurement. Setup runs the episode (an infra failure there is a pytest error);
    the call reports the score and, with a pass threshold, asserts it."""

    is_pastbench_item = True
    one_line_errors = (ItemInfraError, BelowThreshold)

    def __init__(
        self,
        *,
        family: Family,
        episode: Episode,
        arm: str,
        trial: int,
        model: str,
        file_hash: str,
        mechanisms: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**with_parsable_nodeid(kwargs))
        self.family = family
        self.episode = episode
        self.arm = arm
        self.trial = trial
        self.model = model
        self.mechanisms = mechanisms  # None: the agent's own set
        self.file_hash = file_hash
        self.outcome: ItemOutcome | None = None
        self.infra_error: str | None = None
        for keyword in (family.capability, family.id, family.qualified_id, arm, episode.id):
            self.extra_keyword_matches.add(keyword)
        if mechanisms is not None:
            self.extra_keyword_matches.add(mechanism_set_label(mechanisms))
        self.add_marker(family.capability)
        self.add_marker(family.id)
        self.add_marker(arm)

    def setup(self) -> None:
        pastbench_session(self.config).measure(self)

    def measure_item(self) -> None:
        """Run the episode (on any thread: see ``concurrency``)."""
        pastbench_session(self.config).run(self)

    def runtest(self) -> None:
        assert self.outcome is not None
        threshold = pastbench_session(self.config).options.pass_threshold
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
        """Values that must never appear in any output of this item."""
        from .trace import episode_secret_values

        return episode_secret_values(self.episode)

    def payload(self) -> dict[str, Any]:
        return pastbench_session(self.config).payload(self)


INVALID_FAMILY_NAME = "invalid_family_file"


class InvalidFamilyItem(OneLineItem):
    """A malformed family file as one error item. A collection error would make pytest stop the
    whole run before any item ran (its default without ``--continue-on-collection-errors``);
    as an item, the file is one counted error and every other family still runs."""

    one_line_errors = (InvalidFamily,)

    def __init__(self, *, problem: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problem = problem

    def setup(self) -> None:
        raise InvalidFamily(self.problem)

    def runtest(self) -> None:
        raise AssertionError("an invalid family file never runs")  # setup always raised

    def reportinfo(self) -> tuple[Any, int, str]:
        return self.path, 0, f"{self.path.name}::{self.name}"


def longest_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """Items that estimate their work (``work_estimate``) sorted longest first, after the others
    in their own order (their length is unknown). Handing long items out first keeps xdist's
    workers from idling while one finishes a long item at the end (longest-processing-time
    scheduling); the sort is stable, so ties keep the collection order and every worker gets
    the same order."""

    def unknown_then_longest(item: pytest.Item) -> tuple[int, int]:
        estimate = getattr(item, "work_estimate", None)
        return (0, 0) if estimate is None else (1, -estimate())

    return sorted(items, key=unknown_then_longest)
