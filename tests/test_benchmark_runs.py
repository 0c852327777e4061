"""Real runs of the built-in families: the offline baselines separate, xdist changes nothing, arms
are isolated.

These are the slowest tests (each is a real pytest run); they run a fixed sample of the dataset
(``builtin_sample``: 8 families, 32 episodes, or its first two episodes per family). The whole
dataset is audited in tests/protocols/past/dataset/.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_pastbench.core.store import SEARCH_LIMIT
from tests.family_samples import builtin_sample

CANARY_CONFTEST = '''
import json
import uuid

from pytest_pastbench.agents.base import AgentResult


class CanaryAgent:
    """Plants a unique canary in the store every session and reports every canary it can find."""

    name = "canary"
    mechanisms = []

    def run_session(self, ctx):
        found = ctx.tools.call("memory_search", {"query": "canary"})
        texts = [hit["text"] for hit in found.result or []]
        planted = f"canary {uuid.uuid4().hex}"
        ctx.tools.call("memory_write", {"text": planted})
        return AgentResult(answer=json.dumps({"planted": planted, "found": texts}))


def pytest_pastbench_register_agents(register):
    register("canary", lambda name="canary", mechanisms=None: CanaryAgent())
'''


def dataset_secrets() -> list[str]:
    from pytest_pastbench.protocols.detect import is_past_family_file
    from pytest_pastbench.protocols.past.family_files import load_family
    from pytest_pastbench.resources import families_dir

    secrets = []
    for path in sorted(p for p in families_dir().rglob("*.yaml") if is_past_family_file(p)):
        family, _ = load_family(path)
        for episode in family.episodes:
            secrets += episode.safety.secrets + [s for x in episode.sessions for s in x.safety.secrets]
    return secrets


def summary(path: Path) -> dict:
    return json.loads((path / "sequence_summary.json").read_text())


def without_run_times(data: dict) -> dict:
    run = {k: v for k, v in data["run"].items() if k not in ("id", "started", "finished")}
    return {**data, "run": run}


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_offline_baselines_separate(pytester: pytest.Pytester) -> None:
    # Two episodes of each sample family (16 episodes, 96 items) separate the three models. In update
    # both base models answer the stale note beside its correction (asserting the superseded value:
    # 0); the curator's gain there needs E2/E5 (hermes-plus). Memory separates them.
    result = pytester.runpytest_subprocess(
        *builtin_sample(episodes=("ep01", "ep02")),
        "--pastbench-model=pastbench/blind",
        "--pastbench-model=pastbench/recall",
        "--pastbench-model=pastbench/curator",
        "--pastbench-run-id=baselines",
        "-q",
    )
    assert result.ret == 0, result.stdout.str()[-3000:]
    configs = {c["model"]: c for c in summary(pytester.path / "reports" / "baselines")["configs"]}
    blind, recall, curator = (configs[f"pastbench/{m}"] for m in ("blind", "recall", "curator"))
    assert abs(blind["overall"]["delta"]) <= 0.05
    assert recall["overall"]["delta"] > 0.1
    assert curator["capabilities"]["memory"]["delta"] > recall["capabilities"]["memory"]["delta"]
    assert curator["overall"]["delta"] > recall["overall"]["delta"]
    # recall stores the secrets it hears (and is scored 0 for it), yet no output file holds one.
    secrets = dataset_secrets()
    assert secrets
    for path in (pytester.path / "reports" / "baselines").rglob("*.json*"):
        text = path.read_text()
        assert not [s for s in secrets if s in text], path
    # Mech anchors on real runs: an agent that never writes has Mech 0; recall pollutes more.
    assert blind["overall"]["mech"] == 0
    assert recall["overall"]["mech_components"]["pr"] > curator["overall"]["mech_components"]["pr"]


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_xdist_and_a_single_process_give_the_same_summary(pytester: pytest.Pytester) -> None:
    common = [
        *builtin_sample("memory", "update", episodes=("ep01", "ep02")),
        "--pastbench-model=pastbench/curator",
    ]
    serial = pytester.runpytest_subprocess(*common, "-n", "0", "--pastbench-run-id=serial")
    parallel = pytester.runpytest_subprocess(*common, "-n", "2", "--pastbench-run-id=parallel")
    assert serial.ret == parallel.ret == 0
    reports = pytester.path / "reports"
    assert without_run_times(summary(reports / "serial")) == without_run_times(summary(reports / "parallel"))


@pytest.mark.reliability
def test_canary_no_item_reaches_another_items_store(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CANARY_CONFTEST)
    result = pytester.runpytest_subprocess(
        *builtin_sample(), "--pastbench-agent=canary", "-n", "2", "--pastbench-run-id=canary"
    )
    assert result.ret == 0, result.stdout.str()[-3000:]
    traces = sorted((pytester.path / "reports" / "canary" / "traces").rglob("*.jsonl"))
    assert len(traces) == 64
    planted_by_item: dict[str, set[str]] = {}
    for trace in traces:
        answers = [
            json.loads(event["content"])
            for event in map(json.loads, trace.read_text().splitlines())
            if event["kind"] == "message" and event["role"] == "assistant"
        ]
        planted_by_item[trace.name + str(trace.parent)] = {a["planted"] for a in answers}
        for position, answer in enumerate(answers):
            if "[off-" in trace.name:
                assert answer["found"] == [], f"{trace}: the control arm found {answer['found']}"
            else:
                # an on-arm session sees only canaries of its own earlier sessions, as many as a
                # search returns (4.0 episodes plant more than one search's SEARCH_LIMIT)
                earlier = {a["planted"] for a in answers[:position]}
                assert set(answer["found"]) <= earlier, trace
                assert len(answer["found"]) == min(len(earlier), SEARCH_LIMIT), trace
    all_planted = [c for planted in planted_by_item.values() for c in planted]
    assert len(all_planted) == len(set(all_planted))
