"""The replay-oracle audit: 100 on every fixture task, and every kind of failure named by reason."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_pastbench.protocols.stream.servelearn import validate_servelearn
from pytest_pastbench.protocols.stream.servelearn.engine import run_episode, run_scenario
from pytest_pastbench.protocols.stream.servelearn.grading import grade
from pytest_pastbench.protocols.stream.servelearn.pitch import JudgeChecklist, ReferenceJudge
from pytest_pastbench.protocols.stream.servelearn.replay import ReplayAgent, audit_task

from .helpers import FIXTURES, ScriptedAgent, scenarios

SCENARIOS = scenarios()
CHECKLIST = JudgeChecklist(ReferenceJudge())
ALL_TASKS = [(s.name, t.task_id) for s in SCENARIOS.values() for t in s.tasks()]


@pytest.mark.parametrize(("scenario_name", "task_id"), ALL_TASKS)
def test_the_replay_oracle_scores_100_on_every_fixture_task(scenario_name: str, task_id: str) -> None:
    scenario = SCENARIOS[scenario_name]
    task = next(t for t in scenario.tasks() if t.task_id == task_id)
    episode = run_episode(ReplayAgent(scenario, task), scenario, task)
    assert grade(scenario, task, episode, CHECKLIST).reward == 1.0


def test_a_blind_agent_that_only_finishes_does_not_score_100() -> None:
    outcomes = [o for s in SCENARIOS.values() for o in run_scenario(s, ScriptedAgent())]
    assert len(outcomes) == sum(len(s.test) for s in SCENARIOS.values())  # Blind: the test sets only
    assert sum(o.reward for o in outcomes) < len(outcomes) / 2


def test_validate_over_the_fixtures_reports_every_task_reproduced() -> None:
    report = validate_servelearn(FIXTURES, CHECKLIST)
    assert (report.tasks, report.reproduced, report.failures, report.ok) == (25, 25, [], True)
    assert report.lines()[0] == "servelearn validate: 25 of 25 tasks replay exactly"
    verbatim = validate_servelearn(FIXTURES)  # no judge: Pitch through the verbatim checklist
    assert (verbatim.reproduced, verbatim.pitch_judge) == (25, "pastbench/verbatim")
    assert "  pitch_l1: 8 of 8 tasks replay exactly (Pitch graded by pastbench/verbatim)" in verbatim.lines()


def broken_download(tmp_path: Path, scenario: str, split: str, edit) -> Path:
    root = tmp_path / "dataset"
    shutil.copytree(FIXTURES, root)
    path = root / "data" / scenario / f"{split}.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    edit(rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_a_ground_truth_our_tools_reject_is_an_action_error_not_a_zero(tmp_path: Path) -> None:
    def cancel_a_delivered_order(rows: list[dict]) -> None:
        rows[0]["evaluator"]["actions"][0]["kwargs"]["order_id"] = "#W1000001"

    report = validate_servelearn(broken_download(tmp_path, "retail_l1", "serving", cancel_a_delivered_order))
    (failure,) = report.failures
    assert (failure.task_id, failure.reason) == ("rfx_s1", "action_error")
    assert "order status is 'delivered'" in failure.detail
    assert report.by_reason == {"action_error": 1} and not report.ok


def test_unknown_tools_and_wrong_categories_are_named(tmp_path: Path) -> None:
    def corrupt(rows: list[dict]) -> None:
        rows[0]["evaluator"]["actions"][0]["name"] = "refund_everything"
        rows[1]["category"] = "fully_specified"  # its slice is adapt: Hidden

    report = validate_servelearn(broken_download(tmp_path, "banking_l1", "serving", corrupt))
    assert report.by_reason == {"category_mismatch": 1, "unknown_tool": 1}


def test_an_unreadable_scenario_is_listed_and_the_rest_is_validated(tmp_path: Path) -> None:
    root = tmp_path / "dataset"
    shutil.copytree(FIXTURES, root)
    (root / "environments" / "retail_l1" / "tools.json").write_text("[{")
    report = validate_servelearn(root)
    assert [e.scenario for e in report.unreadable] == ["retail_l1"] and report.reproduced == 15
    assert any(line.startswith("  unreadable: retail_l1:") for line in report.lines())


def test_audit_task_is_none_for_a_reproduced_task() -> None:
    scenario = SCENARIOS["banking_l1"]
    assert audit_task(scenario, scenario.serving[3]) is None


def test_validate_prints_each_scenario_count_and_its_exceptions_grouped_by_reason(tmp_path: Path) -> None:
    def break_three(rows: list[dict]) -> None:
        rows[0]["evaluator"]["actions"][0]["kwargs"]["order_id"] = "#W1000001"  # delivered: cannot cancel
        rows[2]["timestamp"] = 99  # window 0 of the fixture ends at position 3
        rows[4]["evaluator"]["actions"][0]["kwargs"]["order_id"] = "#W1000001"  # a modify, delivered

    root = broken_download(tmp_path, "retail_l1", "serving", break_three)
    report = validate_servelearn(root)
    lines = report.lines(examples=1)
    assert lines[0] == "servelearn validate: 22 of 25 tasks replay exactly"
    at = lines.index("  retail_l1: 7 of 10 tasks replay exactly")
    assert lines[at + 1] == "    action_error: 2"
    assert lines[at + 2].startswith("      rfx_s1: cancel_pending_order: Error: order status is 'delivered'")
    assert lines[at + 3] == "    window_mismatch: 1"
    assert lines[at + 4] == "      rfx_s3: timestamp 99 is outside window 0 (1..3)"
    assert "  banking_l1: 7 of 7 tasks replay exactly" in lines and not report.ok


def test_a_pitch_sheet_without_a_liked_fact_is_named_not_scored_zero(tmp_path: Path) -> None:
    def disliked_only(rows: list[dict]) -> None:
        head, _, _ = rows[0]["instruction"].partition("Facts:")
        rows[0]["instruction"] = head + "Facts:\n  - an unlisted trait\n\nWrite your pitch."

    report = validate_servelearn(broken_download(tmp_path, "pitch_l1", "test", disliked_only))
    (failure,) = report.failures
    assert (failure.scenario, failure.reason) == ("pitch_l1", "no_liked_fact")


def test_serving_tasks_out_of_stream_order_are_named(tmp_path: Path) -> None:
    def swap_first_two(rows: list[dict]) -> None:
        rows[0], rows[1] = rows[1], rows[0]

    report = validate_servelearn(broken_download(tmp_path, "banking_l1", "serving", swap_first_two))
    (failure,) = report.failures
    assert (failure.task_id, failure.reason) == ("bfx_s1", "stream_order")
    assert failure.detail == "timestamp 1 comes after 2 in serving.jsonl"
