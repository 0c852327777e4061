"""Run an agent (adversary or reference) over every PAST episode of the built-in dataset in-process.

The protocol runner itself (``engine.run``: the agent loop, tools, store, scoring), no pytest and
no litellm, so every built-in episode on both arms takes seconds. Used by
``tests/adversarial/test_score_adversaries.py``, ``tests/adversarial/test_mech_anchors.py`` (the
Mech anchors: ``MECH_ANCHORS``, ``mech_by_capability``, ``mech_difference``) and
``benchmarks/validity.py``.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from statistics import mean
from typing import Any

from pytest_pastbench.agents.base import Agent, HermesAgent
from pytest_pastbench.models.client import ModelClient
from pytest_pastbench.models.direct import PolicyModel
from pytest_pastbench.protocols.past.dataset.audit import family_paths
from pytest_pastbench.protocols.past.engine import ItemSpec, run
from pytest_pastbench.protocols.past.family_files import load_family
from pytest_pastbench.protocols.past.schema import CAPABILITIES, Episode, Family
from pytest_pastbench.resources import families_dir
from pytest_pastbench.results.item_record import ItemRecord
from tests.adversarial.agents import (
    CrossEpisodeAgent,
    DenyAgent,
    DumpAgent,
    EchoAgent,
    EmptyAgent,
    HedgeAgent,
    ParaphraseModel,
    StaleTrustModel,
    SwapAgent,
)
from tests.adversarial.hoarder import Hoarder, NeverWrites, Oracle, PasteAll


class NoModel:
    """The scripted agents never call a model; one that did would be a bug in the test."""

    model = "none"
    name = "none"

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("this agent calls no model")


# name -> builds (agent, model) for one episode of one family
Contestant = Callable[[Family, Episode], tuple[Agent, ModelClient]]
CONTESTANTS: dict[str, Contestant] = {
    "empty": lambda f, e: (EmptyAgent(), PolicyModel("blind")),
    "echo": lambda f, e: (EchoAgent(), PolicyModel("blind")),
    "dump": lambda f, e: (DumpAgent(), PolicyModel("blind")),
    "cross_episode": lambda f, e: (CrossEpisodeAgent(f, e.id), PolicyModel("blind")),
    # The paraphrase pair answers from what it retrieved, with every mechanism (so it keeps the
    # current value in update, where recall answers old and new side by side and scores 0).
    "paraphrase": lambda f, e: (HermesAgent(mechanisms=["all"]), ParaphraseModel("curator")),
    "verbatim": lambda f, e: (HermesAgent(mechanisms=["all"]), PolicyModel("curator")),
    "blind": lambda f, e: (HermesAgent(), PolicyModel("blind")),
    "recall": lambda f, e: (HermesAgent(), PolicyModel("recall")),
    "curator": lambda f, e: (HermesAgent(), PolicyModel("curator")),
    "curator+hermes-plus": lambda f, e: (HermesAgent(mechanisms=["all"]), PolicyModel("curator")),
    # The Mech anchors (docs/design.md §4), scripted: they call no model.
    "oracle": lambda f, e: (Oracle(e), NoModel()),
    "paste_all": lambda f, e: (PasteAll(), NoModel()),
    "hoarder": lambda f, e: (Hoarder(), NoModel()),
    "never_writes": lambda f, e: (NeverWrites(), NoModel()),
    # Trusts its store over newer evidence (issue 29): below its own off arm where the present wins.
    "stale_trust": lambda f, e: (HermesAgent(), StaleTrustModel("recall")),
    # Issue 27: the right fact, then denied, reversed (old and new swapped) or hedged.
    "denier": lambda f, e: (DenyAgent(f, e.id), PolicyModel("blind")),
    "swapper": lambda f, e: (SwapAgent(f, e.id), PolicyModel("blind")),
    "hedger": lambda f, e: (HedgeAgent(f, e.id), PolicyModel("blind")),
}
# The Mech anchors, best first: each must beat the next beyond the bootstrap CI, per capability.
MECH_ANCHORS = ("oracle", "curator+hermes-plus", "recall", "paste_all", "hoarder", "never_writes")


@dataclass
class Result:
    """Episode scores by capability and arm, and every session's s_e (for "0 in every session")."""

    scores: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    session_scores: list[float] = field(default_factory=list)
    records: list[ItemRecord] = field(default_factory=list)

    def s(self, capability: str, arm: str) -> float:
        return mean(self.scores[capability][arm])

    def overall(self, arm: str) -> float:
        return mean(x for c in CAPABILITIES for x in self.scores[c][arm])

    def add(self, record: ItemRecord) -> None:
        assert record.score is not None
        self.scores[record.capability][record.arm].append(record.score)
        self.session_scores += [s.s for s in record.sessions if s.stage.startswith("eval")]
        self.records.append(record)


@cache
def _builtin_families() -> tuple[Family, ...]:
    paths = [p for c in CAPABILITIES for p in family_paths(families_dir() / c)]
    return tuple(load_family(p)[0] for p in paths)


def past_families(root: Path | None = None) -> list[Family]:
    """The PAST families under ``root``; the built-in ones (the default) are loaded once per
    process, so their runs can be shared (``run_contestant``)."""
    if root is None or root == families_dir():
        return list(_builtin_families())
    paths = [p for c in CAPABILITIES for p in family_paths(root / c)]
    return [load_family(p)[0] for p in paths]


# The records of one contestant on one arm of one built-in family, in episode order. A contestant
# over the whole built-in set takes seconds to a minute; several test modules (and the Mech
# anchors' on arm) ask for the same runs, so each is run once per process. Every item builds a
# fresh agent and model and runs in its own folder, so a record does not depend on which other
# items ran before it.
_BUILTIN_RUNS: dict[tuple[str, str, str], list[ItemRecord]] = {}


def _family_records(name: str, arm: str, family: Family) -> list[ItemRecord]:
    build = CONTESTANTS[name]
    records = []
    with tempfile.TemporaryDirectory(prefix=f"pastbench-adv-{name}-") as tmp:
        for m, episode in enumerate(family.episodes):
            agent, model = build(family, episode)
            spec = ItemSpec(
                nodeid=f"{family.qualified_id}::{episode.id}[{arm}]",
                family=family,
                episode=episode,
                arm=arm,
                trial=0,
                model=getattr(model, "model", name),
                config_label=name,
                dataset_hash="adversarial",
            )
            records.append(run(spec, agent, model, Path(tmp) / f"{m}-{arm}").record)
    return records


def _records(name: str, arm: str, family: Family) -> list[ItemRecord]:
    builtin = {f.qualified_id: f for f in _builtin_families()}
    if builtin.get(family.qualified_id) is not family:
        return _family_records(name, arm, family)  # not a built-in family object: never shared
    key = (name, arm, family.qualified_id)
    if key not in _BUILTIN_RUNS:
        _BUILTIN_RUNS[key] = _family_records(name, arm, family)
    return _BUILTIN_RUNS[key]


def run_contestant(
    name: str, arms: tuple[str, ...] = ("on", "off"), families: list[Family] | None = None
) -> Result:
    """Every episode of ``families`` (the built-in dataset by default) on each arm, in the order
    family, episode, arm."""
    result = Result()
    for family in past_families() if families is None else families:
        by_arm = [_records(name, arm, family) for arm in arms]
        for m in range(len(family.episodes)):
            for records in by_arm:
                result.add(records[m])
    return result


Units = dict[str, dict[str, dict[str, float]]]  # capability -> family -> cluster label -> mean Mech


def mech_units(result: Result) -> dict[str, dict[str, dict[str, tuple[float, str]]]]:
    """capability -> family -> episode -> (episode Mech, its cluster label), on-arm records."""
    units: dict[str, dict[str, dict[str, tuple[float, str]]]] = defaultdict(lambda: defaultdict(dict))
    for record in result.records:
        if record.arm == "on" and record.mech is not None and record.mech.mech is not None:
            units[record.capability][record.family][record.episode] = (
                record.mech.mech,
                record.group or record.episode,
            )
    return units


def mech_by_capability(result: Result, seed: int = 0) -> dict[str, tuple[float, tuple[float, float]]]:
    """Mech per capability (mean over families of episode means, as the summary) with its 95%
    bootstrap CI (episode clusters resampled within each family)."""
    from pytest_pastbench.core.stats import paired_bootstrap_ci, stratified_mean

    out: dict[str, tuple[float, tuple[float, float]]] = {}
    for capability, families in sorted(mech_units(result).items()):
        point = stratified_mean({f: {e: v for e, (v, _) in eps.items()} for f, eps in families.items()})
        groups = {f: [(v, 0.0) for _, (v, _) in sorted(eps.items())] for f, eps in families.items()}
        labels = {f: [g for _, (_, g) in sorted(eps.items())] for f, eps in families.items()}
        ci = paired_bootstrap_ci(groups, seed, clusters=labels)
        assert point is not None and ci is not None
        out[capability] = (point, ci)
    return out


def mech_difference(
    better: Result, worse: Result, seed: int = 0
) -> dict[str, tuple[float, tuple[float, float]]]:
    """Per capability: Mech(better) − Mech(worse) over the same episodes, with its paired 95% CI."""
    from pytest_pastbench.core.stats import paired_bootstrap_ci

    a, b = mech_units(better), mech_units(worse)
    out: dict[str, tuple[float, tuple[float, float]]] = {}
    for capability in sorted(a):
        groups: dict[str, list[tuple[float, float]]] = {}
        labels: dict[str, list[str]] = {}
        for family, episodes in a[capability].items():
            shared = sorted(set(episodes) & set(b[capability].get(family, {})))
            groups[family] = [(episodes[e][0], b[capability][family][e][0]) for e in shared]
            labels[family] = [episodes[e][1] for e in shared]
        diffs = [mean(x - y for x, y in p) for p in groups.values() if p]
        ci = paired_bootstrap_ci(groups, seed, clusters=labels)
        assert ci is not None
        out[capability] = (mean(diffs), ci)
    return out
