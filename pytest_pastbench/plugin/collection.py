"""Collection helpers every protocol shares: model × trial variants, parsable node ids, the
one-line error items, the control arms ``--lf`` reruns and the longest-first order.

A family file is collected by its protocol (protocols/base.py ``ProtocolFile``): each
protocol's ``collect.py`` yields the items of its ``items.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..compat.pytest import last_failed
from ..errors import InvalidFamily
from .run_handle import RUN_KEY

if TYPE_CHECKING:
    from .options import RunOptions


def under_families(path: Path, config: pytest.Config) -> bool:
    """Only what the user pointed --pastbench-families at: a stray dataset file is not a benchmark."""
    run = config.stash.get(RUN_KEY, None)
    chosen = [Path(f).resolve() for f in (run.options.families if run is not None else ()) if f != "builtin"]
    if not chosen:
        return False
    resolved = path.resolve()
    return any(resolved == root or root in resolved.parents for root in chosen)


def item_variants(options: RunOptions) -> Iterator[tuple[str, int, str, list[str] | None, str]]:
    """``config_variants`` × the run's arms (--pastbench-persistence): (model, trial, arm,
    mechanism set, id suffix) in collection order, the suffix ``on-t0`` with the model and the
    set's label appended as ``config_variants`` says (PAST's episodes, plasticity's lineages)."""
    for model, trial, mechanisms, parts in config_variants(options):
        for arm in options.arms:
            yield model, trial, arm, mechanisms, "-".join([arm, *parts])


def config_variants(options: Any) -> Iterator[tuple[str, int, list[str] | None, list[str]]]:
    """Every model × trial × mechanism set of one unit of work (--pastbench-model,
    --pastbench-trials, --pastbench-mechanisms / --pastbench-ablation): (model, trial, mechanisms,
    id parts). The parts are ``t0``, then the model when several run (``t0-pastbench/blind``),
    then the set's label (``base``, ``E1``, ``all``) when several run. ``mechanisms`` None: the
    agent's own set. Shared by every protocol's collection."""
    sets: list[list[str] | None] = list(options.mechanism_sets or [None])
    if len(sets) > 1:
        # Only then: the mechanisms module loads the store and the tools (collection stays light).
        # lazy: keeps pytest's start light (tests/test_lazy_start.py)
        from ..agents.mechanisms import mechanism_set_label
    multi_model = len(options.models) > 1
    for model in options.models:
        for trial in range(options.trials):
            for mechanisms in sets:
                label = [mechanism_set_label(mechanisms or [])] if len(sets) > 1 else []
                yield model, trial, mechanisms, [f"t{trial}", *([model] if multi_model else []), *label]


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


def rerun_control_arms(config: pytest.Config) -> set[Any]:
    """--lf / --ff: add the control item of each failed on item to pytest's last failures, on
    every process (xdist workers collect), so the rerun measures Δ; returns what was added."""
    known = last_failed(config)
    if not known:
        return set()
    key_type = type(next(iter(known)))  # pytest 9 keys are NodeId objects, pytest 8 strings
    parse = getattr(key_type, "parse", key_type)
    added = {parse(nodeid) for nodeid in control_arm_ids(map(str, known))} - set(known)
    known.update(dict.fromkeys(added, True))
    return added


def parametrizes(metafunc: pytest.Metafunc, argname: str) -> bool:
    """The test parametrizes ``argname`` itself (then the plugin leaves it alone)."""
    for marker in metafunc.definition.iter_markers("parametrize"):
        names = marker.args[0] if marker.args else marker.kwargs.get("argnames", "")
        if argname in ([n.strip() for n in names.split(",")] if isinstance(names, str) else names):
            return True
    return False
