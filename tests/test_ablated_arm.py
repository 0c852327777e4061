"""The ablated arm end to end (docs/design.md §4, issue 15 item 6): --pastbench-persistence=ablated|all,
Δ_causal in the summary and the table, and the run mechanics (JUnit, shards, merge, resume)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_pastbench.cli import main
from tests.family_samples import GOOD_MEMORY, GOOD_UPDATE


def read(run_dir: Path, name: str) -> dict:
    return json.loads((run_dir / name).read_text())


def without_run_times(data: dict) -> dict:
    run = {k: v for k, v in data["run"].items() if k not in ("id", "started", "finished")}
    return {**data, "run": run}


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    for capability, name, text in (
        ("memory", "tiny_prefs", GOOD_MEMORY),
        ("update", "tiny_corrections", GOOD_UPDATE),
    ):
        path = pytester.path / "families" / capability / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return pytester


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_all_runs_three_arms_and_reports_delta_causal(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "families", "-v", "--pastbench-persistence=all", "--pastbench-run-id=all", "--junitxml=junit.xml"
    )
    assert result.ret == 0, result.stdout.str()[-3000:]
    result.stdout.fnmatch_lines(
        [
            "*ep01?ablated-t0? ABLATED [01].*",
            "*S_abl*Δ_causal ?95% CI?*σ✗ on/off/abl*",
            "*3 scored, 3 control, 3 ablated*",  # a fixed order (issue 30 item 12), not first seen
        ]
    )
    run_dir = project.path / "reports" / "all"
    config = read(run_dir, "sequence_summary.json")["configs"][0]
    memory = config["families"]["memory.tiny_prefs"]
    # recall's gain comes from the store: without the key-fact entries it scores as the control.
    assert memory["s_on"] == 1.0
    assert memory["s_ablated"] == pytest.approx(memory["s_off"])
    assert memory["delta_causal"] == pytest.approx(memory["delta"])
    assert memory["delta_causal_ci"] is not None
    assert set(memory["sigma_violations"]) == {"on", "off", "ablated"}
    assert config["overall"]["delta_causal"] is not None
    junit = (project.path / "junit.xml").read_text()
    assert 'name="pastbench.arm" value="ablated"' in junit
    # The default stays both: no ablated items, no causal figures.
    both = project.runpytest_subprocess("families", "-q", "--pastbench-run-id=both")
    assert both.ret == 0
    plain = read(project.path / "reports" / "both", "sequence_summary.json")["configs"][0]["overall"]
    assert plain["s_ablated"] is None and plain["delta_causal"] is None


def test_ablated_alone_and_a_bad_choice(project: pytest.Pytester) -> None:
    alone = project.runpytest_subprocess("families", "-q", "--pastbench-persistence=ablated")
    assert alone.ret == 0
    alone.stdout.fnmatch_lines(["*3 ablated*"])
    bad = project.runpytest_subprocess("families", "--pastbench-persistence=causal")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*choose one of both, on, off, ablated, all*"])


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_shards_of_an_all_run_merge_into_it_and_resume_keeps_every_arm(project: pytest.Pytester) -> None:
    common = ["families", "-q", "--pastbench-persistence=all"]
    assert project.runpytest_subprocess(*common, "--pastbench-run-id=full").ret == 0
    for k in (1, 2):
        assert (
            project.runpytest_subprocess(*common, f"--pastbench-shard={k}/2", f"--pastbench-run-id=s{k}").ret
            == 0
        )
    reports = project.path / "reports"
    assert main(["merge", str(reports / "s1"), str(reports / "s2"), "-o", str(reports / "m")]) == 0
    assert without_run_times(read(reports / "m", "sequence_summary.json")) == without_run_times(
        read(reports / "full", "sequence_summary.json")
    )
    resumed = project.runpytest_subprocess(*common, "--pastbench-resume=full")
    assert resumed.ret == 0, resumed.stdout.str()[-3000:]
    resumed.stdout.fnmatch_lines(["*S_abl*", "*9 deselected*"])  # every arm was finished
    arms = sorted(r["arm"] for r in read(reports / "full", "sequence_results.json")["records"])
    assert arms == ["ablated"] * 3 + ["off"] * 3 + ["on"] * 3
