"""Run an agent (adversary or reference) over every PAST episode of the built-in dataset in-process.

The protocol runner itself (``run_item``: the agent loop, tools, store, scoring), no pytest and
no litellm, so all 204 episodes on both arms take seconds. Used by
``tests/adversarial/test_score_adversaries.py`` and ``benchmarks/validity.py``.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean

from pytest_pastbench.agents.base import Agent, HermesAgent
from pytest_pastbench.core.family_files import load_family
from pytest_pastbench.models.client import ModelClient
from pytest_pastbench.models.direct import PolicyModel
from pytest_pastbench.protocols.past.dataset.audit import family_paths
from pytest_pastbench.protocols.past.engine import ItemSpec, run_item
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
    SwapAgent,
)

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
    # Issue 27: the right fact, then denied, reversed (old and new swapped) or hedged.
    "denier": lambda f, e: (DenyAgent(f, e.id), PolicyModel("blind")),
    "swapper": lambda f, e: (SwapAgent(f, e.id), PolicyModel("blind")),
    "hedger": lambda f, e: (HedgeAgent(f, e.id), PolicyModel("blind")),
}


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


def past_families(root: Path | None = None) -> list[Family]:
    root = root or families_dir()
    paths = [p for c in CAPABILITIES for p in family_paths(root / c)]
    return [load_family(p)[0] for p in paths]


def run_contestant(name: str, arms: tuple[str, ...] = ("on", "off")) -> Result:
    build = CONTESTANTS[name]
    result = Result()
    with tempfile.TemporaryDirectory(prefix=f"pastbench-adv-{name}-") as tmp:
        for n, family in enumerate(past_families()):
            for m, episode in enumerate(family.episodes):
                for arm in arms:
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
                    record = run_item(spec, agent, model, Path(tmp) / f"{n}-{m}-{arm}").record
                    assert record.score is not None
                    result.scores[family.capability][arm].append(record.score)
                    result.session_scores += [s.s for s in record.sessions if s.stage.startswith("eval")]
                    result.records.append(record)
    return result
