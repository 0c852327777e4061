"""A ServeLearnBench item (``ServeLearnItem``): measuring runs the scenario's tasks on the engine
with the item's harness (the learning harnesses over the whole stream, Blind and Oracle over the
test tasks) and records setting scores, per-window rewards and each test task's score; an offline
model on free-text rules reports the replay oracle, said to be that; the published column is the
leaderboard's row or one line saying none was found."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.stream.servelearn import items
from pytest_pastbench.protocols.stream.servelearn.checklist import PROMPT_HASH
from pytest_pastbench.protocols.stream.servelearn.episode import Outcome
from pytest_pastbench.protocols.stream.servelearn.items import ServeLearnItem, pitch_checklist, published
from pytest_pastbench.protocols.stream.servelearn.pitch import JudgeChecklist
from pytest_pastbench.protocols.stream.servelearn.rag import RagLearner
from pytest_pastbench.protocols.stream.servelearn.sample import parse_sample
from pytest_pastbench.protocols.stream.servelearn.scoring import FULLY_SPECIFIED, HIDDEN
from tests.protocols.stand_ins import item_of

from .helpers import scenarios

RETAIL = scenarios()["retail_l1"]
ONLINE = "openai/gpt-x"  # any model that is not offline: the item runs the agent
# The stream options an item reads, unset (no sample, no published column).
UNSET = dict.fromkeys(("stream_sample", "stream_reference", "stream_reference_model"))


def item(harness: str, model: str = ONLINE, **options: Any) -> Any:
    return item_of(
        ServeLearnItem,
        RunOptions(protocol_options={**UNSET, **options}),
        scenario=RETAIL,
        harness=harness,
        model=model,
        trial=1,
        name=f"{harness}[t1]",
    )


class Sessions:
    """Stands in for ``SessionTasks``: keeps what it was built with; its tokens and cost."""

    built: list[tuple[Any, ...]] = []

    def __init__(self, *args: Any) -> None:
        Sessions.built.append(args)
        self.tokens, self.cost_usd = 120, 0.5

    def run_task(self, task: Any, extra_system: str) -> Any:
        raise AssertionError("the engine is a stand-in here")


# Each task's reward by its place in the stream (serving, then test).
REWARDS = {"serving": [1.0, 0.0, 1.0, 0.5, 1.0, 0.0], "test": [1.0, 0.5, 0.25, 0.0]}


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """``run`` replaced: each task it is asked to run gets its ``REWARDS`` reward."""
    seen: dict[str, Any] = {}

    def run(scenario: Any, run_task: Any, *, learner: Any, oracle: bool, serving: bool) -> list[Outcome]:
        seen.update(learner=learner, oracle=oracle, serving=serving)
        splits = ("serving", "test") if serving else ("test",)
        return [
            Outcome(task.task_id, scenario.name, split, task.window, task.category, reward, {})
            for split in splits
            for task, reward in zip(getattr(scenario, split), REWARDS[split], strict=True)
        ]

    Sessions.built = []
    monkeypatch.setattr(items, "run", run)
    monkeypatch.setattr(items, "SessionTasks", Sessions)
    return seen


def test_the_fixture_scenario_is_what_the_rewards_are_written_for() -> None:
    assert [(t.window, t.category) for t in RETAIL.test] == [
        (0, FULLY_SPECIFIED),
        (0, FULLY_SPECIFIED),
        (1, HIDDEN),
        (1, FULLY_SPECIFIED),
    ]
    assert [t.category == HIDDEN for t in RETAIL.serving] == [True, True, False, True, False, False]


def test_a_learning_harness_serves_the_whole_stream_and_records_its_scores(engine: dict[str, Any]) -> None:
    record, trace = item("rag").measure()
    assert engine["serving"] and not engine["oracle"] and isinstance(engine["learner"], RagLearner)
    scenario, agent, client, budgets, _, store_root = Sessions.built[0]
    assert (scenario, client, budgets, store_root) == (RETAIL, f"client:{ONLINE}:1", "budgets", None)
    assert agent.name == "hermes"
    # Test: hidden [0.25], fully [1.0, 0.5, 0.0]; serving hidden [1.0, 0.0, 0.5]; 10 tasks, 120 tokens.
    assert record["metrics"] == {
        "hidden": 25.0,
        "fully": 50.0,
        "serving_hidden": 50.0,
        "tokens_per_task": 12.0,
        "cost_per_task": 0.05,
    }
    assert record["headline"] == "H 25.0 F 50.0"
    assert (record["scenario"], record["domain"], record["harness"]) == ("retail_l1", "retail", "rag")
    assert record["counts"] == {"windows": len(RETAIL.environment.windows), "serving": 6, "test": 4}
    assert record["windows"] == [
        {
            "window": 0,
            "serving": {"hidden": 50.0, "fully": 100.0, "n": 3},
            "test": {"hidden": None, "fully": 75.0, "n": 2},
        },
        {
            "window": 1,
            "serving": {"hidden": 50.0, "fully": 50.0, "n": 3},
            "test": {"hidden": 25.0, "fully": 0.0, "n": 2},
        },
    ]
    ids = [t.task_id for t in RETAIL.test]
    assert record["test_scores"] == {
        "hidden": {ids[2]: 25.0},
        "fully": {ids[0]: 100.0, ids[1]: 50.0, ids[3]: 0.0},
    }
    assert "notes" not in record and "published" not in record and "sample" not in record
    assert [(t["split"], t["reward"]) for t in trace][-2:] == [("test", 0.25), ("test", 0.0)]
    assert len(trace) == 10


@pytest.mark.parametrize(
    ("harness", "serving", "oracle", "own_store"),
    [("blind", False, False, False), ("oracle", False, True, False), ("own", True, False, True)],
)
def test_each_harness_runs_its_tasks_with_its_learner_and_store(
    engine: dict[str, Any], harness: str, serving: bool, oracle: bool, own_store: bool
) -> None:
    record, trace = item(harness).measure()
    assert (engine["serving"], engine["oracle"], engine["learner"]) == (serving, oracle, None)
    store_root = Sessions.built[0][-1]
    assert (store_root is not None) == own_store
    if own_store:
        assert not store_root.exists()  # the own store's scratch folder is removed after
    assert len(trace) == (10 if serving else 4)
    assert record["metrics"]["serving_hidden"] == (50.0 if serving else None)


def test_an_offline_model_on_free_text_rules_reports_the_replay_oracle_said_to_be_that(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_run(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an offline model's free-text scenario is replayed, not run")

    monkeypatch.setattr(items, "run", no_run)
    record, trace = item("blind", model="pastbench/recall").measure()
    assert record["headline"] == "replay oracle only (offline model)"
    assert record["metrics"]["hidden"] is None and record["metrics"]["fully"] is None
    assert record["metrics"]["tokens_per_task"] is None
    assert record["test_scores"] == {"hidden": {}, "fully": {}}
    oracle = record["replay_oracle"]
    # The replay oracle plays the evaluator's ground truth: every test task in full.
    assert oracle == {"hidden": 100.0, "fully": 100.0}
    assert len(trace) == len(RETAIL.test) and all(t["reward"] == 1.0 for t in trace)
    (note,) = record["notes"]
    assert "retail_l1: the offline model pastbench/recall" in note and "H 100.0 F 100.0" in note


def test_a_sample_is_recorded_with_what_it_was_drawn_from() -> None:
    record, trace = item("blind", model="pastbench/recall", stream_sample=parse_sample("1")).measure()
    assert record["sample"] == {
        "spec": "1 test tasks per scenario",
        "seed": 0,
        "serving": record["counts"]["serving"],
        "test": 1,
        "of": {"serving": 6, "test": 4},
    }
    assert record["counts"]["test"] == 1 and len(trace) == 1


def board(path: Path, rows: list[tuple[str, str, str, str]]) -> str:
    """A leaderboard CSV with retail_l1's two columns (the others empty)."""
    header = "model,method,retail_H_L1,retail_F_L1,avg_h,avg_f"
    path.write_text("\n".join([header, *(f"{m},{k},{h},{f},," for m, k, h, f in rows)]) + "\n")
    return str(path)


def test_published_is_the_row_of_the_harnesss_method_and_model(tmp_path: Path) -> None:
    reference = board(tmp_path / "board.csv", [("GPT-X", "RAG", "40.5", "80"), ("Other", "RAG", "1", "2")])
    assert published(reference, ["gpt-x"], "rag", "retail_l1") == {
        "model": "GPT-X",
        "method": "RAG",
        "hidden": 40.5,
        "fully": 80.0,
    }
    assert published(reference, ["nobody"], "rag", "retail_l1") is None
    assert published(reference, ["gpt-x"], "blind", "retail_l1") is None
    assert published(reference, ["nobody"], "rag", "retail_l1", explicit="Other")["hidden"] == 1.0


def test_a_missing_published_row_is_said_for_a_method_the_leaderboard_has(
    engine: dict[str, Any], tmp_path: Path
) -> None:
    reference = board(tmp_path / "board.csv", [("Someone", "RAG", "1", "2"), ("Other", "Blind", "1", "2")])
    found = item("rag", stream_reference=reference).measure()[0]
    assert found["notes"] == [
        f"published column: board.csv has no RAG row for model {ONLINE!r}; its RAG rows: Someone "
        "(name one with --pastbench-stream-reference-model)"
    ]
    # "own" has no published method: nothing to find, nothing to say.
    own = item("own", stream_reference=reference).measure()[0]
    assert "notes" not in own and "published" not in own
    matched = item("rag", stream_reference=reference, stream_reference_model="Someone").measure()[0]
    assert matched["published"] == {"model": "Someone", "method": "RAG", "hidden": 1.0, "fully": 2.0}


def test_a_real_judge_model_gets_the_checklist_and_the_offline_judge_the_per_fact_seam() -> None:
    class Bench:
        def __init__(self, judge_model: str | None) -> None:
            self.options = type("Options", (), {"judge_model": judge_model})()

        def client(self, model: str) -> Any:
            return SimpleNamespace(model=model)

    assert isinstance(pitch_checklist(Bench(None)), JudgeChecklist)
    assert pitch_checklist(Bench("pastbench/judge")).name == "pastbench/judge"
    assert pitch_checklist(Bench("openai/gpt-x")).name == f"openai/gpt-x (checklist {PROMPT_HASH})"
