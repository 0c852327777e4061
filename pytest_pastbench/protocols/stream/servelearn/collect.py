"""A ServeLearnBench download collected as stream items, through the stream protocol's
``claims`` (protocols/stream/protocol.py): no special case in the plugin's hooks.

``--pastbench-families=DOWNLOAD`` (the ``dataset/`` folder or one scenario folder) makes pytest
walk the download; one file of each scenario (``environments/<scenario>/windows.json`` when it
exists) stands for the scenario, with one item per harness x model x trial. An item runs the
run's agent (``--pastbench-agent``: Hermes, a factory's, an external program) one session per task
under the published turn rules (``session.py``) and reports its setting scores in the shape
the stream tables read (``metrics.hidden`` / ``metrics.fully``, per-window rewards). A scenario
that cannot be read is one error item naming the file and the line; the others still run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.errors import FamilyFileError
from pytest_pastbench.judge.llm import REFERENCE_JUDGE
from pytest_pastbench.models.client import is_offline, resolve_model
from pytest_pastbench.plugin.collection import config_variants
from pytest_pastbench.plugin.run_handle import pastbench_run

from ...base import ProtocolFile, ProtocolItem
from .checklist import ModelChecklist
from .engine import run
from .episode import Outcome
from .leaderboard import HARNESS_METHODS, missing_row, reference_row
from .pitch import Checklist, JudgeChecklist, ReferenceJudge
from .rag import RagLearner
from .replay import replay
from .sample import sample_scenario
from .schema import DOC_FILES, ENV_FILES, TASK_FILES, Scenario, ScenarioError, is_servelearn, read_scenario
from .scoring import FULLY_SPECIFIED, HIDDEN, Row, setting_scores
from .session import SessionTasks, store_folder

# Blind and Oracle run the test tasks only (as the authors run them); ``own`` (the agent's own
# store, told each serving task's score) and RAG (their baseline) learn over the whole stream.
HARNESSES = ("blind", "oracle", "own", "rag")
LEARNING_HARNESSES = ("own", "rag")
# Domains whose bulletins are free text about records (servelearn/offline_policy.py): an offline
# model cannot act on them, so its items report the replay oracle instead of a score.
FREE_TEXT_RULES = ("retail", "banking")


# The one file that stands for a scenario in collection: the first of these that exists, so a
# scenario missing any of its files is still collected, as its one error.
ANCHORS = (
    ("environments", "windows.json"),
    *(("environments", f) for f in (*ENV_FILES, *DOC_FILES) if f != "windows.json"),
    *(("data", f) for f in TASK_FILES),
)


def _scenario_of(path: Path) -> tuple[Path, str] | None:
    """(download root, scenario name) of a file of ``data/<s>/`` or ``environments/<s>/``."""
    if len(path.parents) < 3 or path.parent.parent.name not in ("data", "environments"):
        return None
    root = path.parents[2]
    return (root, path.parent.name) if is_servelearn(root) else None


def is_scenario_anchor(path: Path) -> bool:
    """True for the file that stands for its scenario (``environments/<s>/windows.json`` when present)."""
    found = _scenario_of(path)
    if found is None:
        return False
    root, name = found
    anchor = next((root / d / name / f for d, f in ANCHORS if (root / d / name / f).is_file()), None)
    return anchor == path


def scenario_identity(path: Path) -> tuple[str, str]:
    """(``stream.servelearn.<scenario>``, SHA-256 over the scenario's files) of its anchor file."""
    found = _scenario_of(path)
    assert found is not None, "asked only of a claimed file"
    root, name = found
    return f"stream.servelearn.{name}", scenario_hash(root, name)


def scenario_hash(root: Path, name: str) -> str:
    digest = hashlib.sha256()
    files = [root / "data" / name / f for f in TASK_FILES]
    env_dir = root / "environments" / name
    files += sorted(env_dir.iterdir()) if env_dir.is_dir() else []
    for file in files:
        if file.is_file():
            digest.update(file.name.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def collect(parent: ProtocolFile) -> Iterator[pytest.Item]:
    """One item per harness x model x trial; a scenario that cannot be read is a
    ``FamilyFileError`` naming the file and the line (one error item; the others still run)."""
    found = _scenario_of(parent.path)
    assert found is not None, "asked only of a claimed file"
    scenario = read_scenario(*found)
    if isinstance(scenario, ScenarioError):
        raise FamilyFileError(str(scenario))
    options = pastbench_run(parent.config).options
    for harness in HARNESSES:
        for model, trial, mechanisms, parts in config_variants(options):
            yield ServeLearnItem.from_parent(
                parent,
                name=f"{harness}[{'-'.join(parts)}]",
                scenario=scenario,
                harness=harness,
                model=model,
                trial=trial,
                mechanisms=mechanisms,
            )


class ServeLearnItem(ProtocolItem):
    protocol = "stream"

    def __init__(self, *, scenario: Scenario, harness: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.harness = harness
        self.extra_keyword_matches.update({harness, scenario.domain, "servelearn"})

    def measure(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        bench = pastbench_run(self.config)
        options = bench.options
        scenario = self.scenario
        if options.stream_sample is not None:
            scenario = sample_scenario(scenario, options.stream_sample, options.seed)
        checklist = pitch_checklist(bench)
        serving = self.harness in LEARNING_HARNESSES
        offline = is_offline(self.model) and scenario.domain in FREE_TEXT_RULES
        tasks: SessionTasks | None = None
        if offline:
            outcomes = _replayed(scenario, serving)
        else:
            learner = RagLearner() if self.harness == "rag" else None
            with store_folder(self.harness == "own") as store_root:
                tasks = SessionTasks(
                    scenario,
                    self.agent(),
                    bench.client(self.model, self.trial),
                    bench.budgets(),
                    checklist,
                    store_root,
                )
                outcomes = run(
                    scenario,
                    tasks.run_task,
                    learner=learner,
                    oracle=self.harness == "oracle",
                    serving=serving,
                )
        rows = [Row(o.scenario, o.split, o.category, o.reward) for o in outcomes]
        scores = setting_scores(rows).get(scenario.name, {})
        serving_hidden = [o.reward for o in outcomes if o.split == "serving" and o.category == HIDDEN]
        metrics = {
            "hidden": _round(scores.get(HIDDEN)),
            "fully": _round(scores.get(FULLY_SPECIFIED)),
            "serving_hidden": _round(
                100 * sum(serving_hidden) / len(serving_hidden) if serving_hidden else None
            ),
            "tokens_per_task": round(tasks.tokens / len(outcomes), 1) if tasks else None,
            "cost_per_task": None
            if tasks is None or tasks.cost_usd is None
            else tasks.cost_usd / len(outcomes),
        }
        notes = []
        if offline:
            # No agent score: the replay oracle's, said to be that (issue 33, item 2).
            replay_scores = {k: metrics[k] for k in ("hidden", "fully")}
            metrics.update(hidden=None, fully=None, serving_hidden=None)
            notes.append(
                f"{scenario.name}: the offline model {self.model} cannot follow a free-text bulletin "
                f"without a language model; reported: the replay oracle (H {_show(replay_scores['hidden'])}"
                f" F {_show(replay_scores['fully'])}), no agent score"
            )
        headline = f"H {_show(metrics['hidden'])} F {_show(metrics['fully'])}"
        record: dict[str, Any] = {
            "headline": "replay oracle only (offline model)" if offline else headline,
            "source": "servelearnbench",
            "scenario": scenario.name,
            "domain": scenario.domain,
            "tier": scenario.serving[0].tier,
            "harness": self.harness,
            "judge": checklist.name if scenario.domain == "pitch" else None,
            "counts": {
                "windows": len(scenario.environment.windows),
                "serving": len(scenario.serving),
                "test": len(scenario.test),
            },  # fmt: skip
            "metrics": metrics,
            "windows": _per_window(outcomes),
            # Each test task's reward on the metric's scale: the units a gate's noise estimate pairs.
            "test_scores": {
                case: {
                    o.task_id: 100 * o.reward
                    for o in outcomes
                    if o.split == "test" and o.category == category
                }
                for case, category in (("hidden", HIDDEN), ("fully", FULLY_SPECIFIED))
            }
            if not offline
            else {"hidden": {}, "fully": {}},
        }
        if offline:
            record["replay_oracle"] = replay_scores
        if options.stream_sample is not None:
            record["sample"] = {
                "spec": str(options.stream_sample),
                "seed": options.seed,
                "serving": len(scenario.serving),
                "test": len(scenario.test),
                "of": {"serving": len(self.scenario.serving), "test": len(self.scenario.test)},
            }
        if options.stream_reference is not None:
            found = published(
                options.stream_reference,
                [self.model, resolve_model(self.model).model],
                self.harness,
                scenario.name,
                options.stream_reference_model,
            )
            if found is not None:
                record["published"] = found
            elif self.harness in HARNESS_METHODS:
                notes.append(
                    missing_row(
                        options.stream_reference, self.model, self.harness, options.stream_reference_model
                    )
                )
        if notes:
            record["notes"] = notes
        trace = [
            {"kind": "task", "id": o.task_id, "split": o.split, "window": o.window, "reward": o.reward}
            for o in outcomes
        ]
        return record, trace


def _replayed(scenario: Scenario, serving: bool) -> list[Outcome]:
    """The replay oracle's outcomes over the tasks a harness runs (test only, or the whole stream)."""
    tasks = [*scenario.serving, *scenario.test] if serving else scenario.test
    return [replay(scenario, task)[1] for task in tasks]


def published(
    reference: str, models: list[str], harness: str, scenario: str, explicit: str | None = None
) -> dict[str, Any] | None:
    """The leaderboard's setting scores of this scenario for the harness's method and the model
    (``models``: the run's name and what it resolves to; ``explicit``: the option's)."""
    row = reference_row(reference, models, harness, explicit)
    scores = row.settings.get(scenario) if row is not None else None
    if row is None or scores is None:
        return None
    return {
        "model": row.model,
        "method": row.method,
        "hidden": scores[HIDDEN],
        "fully": scores[FULLY_SPECIFIED],
    }


def pitch_checklist(bench: Any) -> Checklist:
    """A real judge model classes facts M / C / N with invented claims; the offline one per fact."""
    model = bench.options.judge_model
    if model is None or model == REFERENCE_JUDGE:
        return JudgeChecklist(ReferenceJudge())
    return ModelChecklist(bench.client(model))


def _per_window(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    """Per window and phase: reward x 100 by category and the task count (the stream tables' shape)."""

    def phase(w: int, split: str) -> dict[str, Any]:
        tasks = [o for o in outcomes if o.window == w and o.split == split]
        return {"hidden": _reward(tasks, HIDDEN), "fully": _reward(tasks, FULLY_SPECIFIED), "n": len(tasks)}

    return [
        {"window": w, "serving": phase(w, "serving"), "test": phase(w, "test")}
        for w in sorted({o.window for o in outcomes})
    ]


def _reward(outcomes: list[Outcome], category: str) -> float | None:
    rewards = [o.reward for o in outcomes if o.category == category]
    return _round(100 * sum(rewards) / len(rewards)) if rewards else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _show(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"
