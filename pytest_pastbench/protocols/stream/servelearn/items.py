"""A ServeLearnBench item: one scenario of a download x harness x model x trial, and how it is
measured (``ServeLearnItem.measure`` runs the run's agent one session per task under the published
turn rules, ``session.py``, on ``engine.py``'s ``run``) and reports its setting scores in the shape
the stream tables read (``metrics.hidden`` / ``metrics.fully``, per-window rewards).
``collect.py`` yields them."""

from __future__ import annotations

from typing import Any

from pytest_pastbench.judge.llm import REFERENCE_JUDGE
from pytest_pastbench.models.client import is_offline, resolve_model
from pytest_pastbench.plugin.run_handle import pastbench_run

from ...base import ProtocolItem
from .checklist import ModelChecklist
from .engine import run
from .episode import Outcome
from .leaderboard import HARNESS_METHODS, missing_row, reference_row
from .pitch import Checklist, JudgeChecklist, ReferenceJudge
from .rag import RagLearner
from .replay import replay
from .sample import sample_scenario
from .schema import Scenario
from .scoring import FULLY_SPECIFIED, HIDDEN, Row, setting_scores
from .session import SessionTasks, store_folder

# Blind and Oracle run the test tasks only (as the authors run them); ``own`` (the agent's own
# store, told each serving task's score) and RAG (their baseline) learn over the whole stream.
HARNESSES = ("blind", "oracle", "own", "rag")
LEARNING_HARNESSES = ("own", "rag")
# Domains whose bulletins are free text about records (servelearn/offline_policy.py): an offline
# model cannot act on them, so its items report the replay oracle instead of a score.
FREE_TEXT_RULES = ("retail", "banking")


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
