from __future__ import annotations

from pathlib import Path

import yaml

from pytest_pastbench.agents.base import HermesAgent
from pytest_pastbench.protocols.past import engine
from pytest_pastbench.protocols.past.engine import ItemSpec
from pytest_pastbench.protocols.past.mech import asserts
from pytest_pastbench.protocols.past.schema import Family
from tests.family_samples import GOOD_UPDATE
from tests.protocols.past.test_offline_policy import PolicyClient

FAMILY = Family.model_validate(yaml.safe_load(GOOD_UPDATE))
EPISODE = FAMILY.episodes[0]


def run(arm: str, tmp_path: Path, model: str = "curator", mechanisms: list[str] | None = None):
    spec = ItemSpec(
        nodeid=f"x.yaml::ep01[{arm}-t0]",
        family=FAMILY,
        episode=EPISODE,
        arm=arm,
        trial=0,
        model=f"pastbench/{model}",
        config_label="hermes@test",
        dataset_hash="h",
    )
    return engine.run(spec, HermesAgent(mechanisms=mechanisms), PolicyClient(model), tmp_path / arm)


def test_on_arm_runs_every_session_and_scores_the_evals(tmp_path: Path) -> None:
    outcome = run("on", tmp_path, mechanisms=["E2"])  # E2: the curator retires the stale fact
    record = outcome.record
    assert [s.stage for s in record.sessions] == ["eval_near"]
    assert record.score == 1.0 and record.mech is not None and record.mech.uc == 1.0
    phases = [e["phase"] for e in outcome.trace if e["kind"] == "store_snapshot"]
    assert phases == ["after:learn:0", "after:learn:1", "after:eval_near:2"]
    assert record.store_writes >= 2 and record.store_reads >= 3


def test_off_arm_runs_only_evals_from_an_empty_store(tmp_path: Path) -> None:
    outcome = run("off", tmp_path)
    sessions = [e for e in outcome.trace if e["kind"] == "session"]
    assert [e["stage"] for e in sessions] == ["eval_near"]
    searches = [e for e in outcome.trace if e["kind"] == "tool_call" and e["name"] == "memory_search"]
    assert searches and all(e["result"] == [] for e in searches)
    assert outcome.record.mech is None
    # Nothing stored, nothing to answer with: the forbids guard passes but earns no credit, and
    # r_e counts only when the task was done (c > 0), so s_e = 0.
    assert outcome.record.score == 0.0


def test_recall_keeps_the_stale_fact_and_loses_on_update(tmp_path: Path) -> None:
    record = run("on", tmp_path, model="recall").record
    # Its reads serve the stale value beside the correction: uc 0 (and ra 0: its answer, asserting
    # both, fails the check).
    assert record.mech is not None and record.mech.uc == 0.0 and record.mech.ra == 0.0
    assert record.score < 1.0


def test_ablated_arm_removes_the_key_fact_entries_before_the_first_eval(tmp_path: Path) -> None:
    outcome = run("ablated", tmp_path, mechanisms=["E2"])  # the curator that scores 1.0 on the on arm
    [ablation] = [e for e in outcome.trace if e["kind"] == "ablation"]
    assert ablation["session"] == 2 and ablation["removed"]  # between the last learn and the eval
    snapshots = [e for e in outcome.trace if e["kind"] == "store_snapshot"]
    before, after = snapshots[1]["entries"], snapshots[2]["entries"]
    assert {e["id"] for e in before} - {e["id"] for e in after} == set(ablation["removed"])
    key = EPISODE.evidence.key_facts[0]
    assert not any(asserts(e["text"], key) for e in after)
    # Only key-fact entries go; the learn sessions ran exactly as on the on arm.
    record = outcome.record
    assert record.arm == "ablated" and record.mech is None
    assert record.score < run("on", tmp_path, mechanisms=["E2"]).record.score
    assert record.store_writes == run("on", tmp_path / "again", mechanisms=["E2"]).record.store_writes
