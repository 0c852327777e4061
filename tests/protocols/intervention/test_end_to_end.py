"""A small intervention family through pytest: items per event × profile under the
``intervention`` marker, the matrix in the terminal and in sequence_summary.json, the
propagation in the trace, and the ``pastbench_profile`` fixture in a user's own test."""

from __future__ import annotations

import json

import pytest

from tests.protocols.intervention.samples import TINY

USER_TEST = """
import pytest


def test_profiles_seed_the_store(pastbench_profile, pastbench_store):
    nodes = pastbench_profile.seed(pastbench_store)
    assert "memory:currency" in nodes.values()
    assert len(pastbench_store.entries()) == len(pastbench_profile.memories) + len(pastbench_profile.skills)


@pytest.mark.parametrize("pastbench_profile", ["reimbursement:power"], indirect=True)
def test_a_chosen_profile(pastbench_profile):
    assert pastbench_profile.family.id == "reimbursement" and pastbench_profile.skills
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    (pytester.path / "families" / "interventions").mkdir(parents=True)
    (pytester.path / "families" / "interventions" / "tiny.yaml").write_text(TINY)
    pytester.makepyfile(test_user=USER_TEST)
    return pytester


def test_collection_by_marker_and_ids(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "families", "test_user.py", "--collect-only", "-q", "-m", "intervention"
    )
    out = result.stdout.str()
    assert "families/interventions/tiny.yaml::method[light-t0]" in out
    assert "families/interventions/tiny.yaml::method[power-t0]" in out
    assert "2/6 tests collected (4 deselected)" in out


def test_a_run_prints_the_matrix_and_writes_the_section(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("families", "test_user.py", "-v", "--pastbench-run-id=r")
    assert result.ret == 0, result.stdout.str()
    lines = result.stdout.lines
    # (fnmatch reads [...] as a character class: item ids are matched as plain text here)
    for expected in (
        "method[light-t0] INTERVENTION α_L 1 (m=1,T=2) γ 0.00 σ 1.00→1.00 κ 1.00 ρ 0.00 (0/2)",
        "method[power-t0] INTERVENTION α_L 3 (m=1,T=2) γ 0.00 σ 1.00→1.00 κ 1.00 ρ 0.50 (1/2)",
        "test_profiles_seed_the_store[light] PASSED",
        "test_profiles_seed_the_store[power] PASSED",
        "test_a_chosen_profile[reimbursement:power] PASSED",
        "pastbench: intervention",
        "ρ [95% CI] (k/n)",
    ):
        assert any(expected in line for line in lines), expected
    [power_row] = [line for line in lines if line.startswith("tiny/method") and " power " in line]
    assert power_row.split()[3:5] == ["1", "3"] and power_row.endswith("0.50 [0.09, 0.91] (1/2)")
    run_dir = project.path / "reports" / "r"
    section = json.loads((run_dir / "sequence_summary.json").read_text())["protocols"]["intervention"]
    power = section["configs"][0]["matrix"]["intervention.tiny"]["method"]["profiles"]["power"]
    assert (power["alpha_l"], power["m"], power["T"]) == (3, 1, 2)
    assert power["rho"]["k"] == 1 and power["rho"]["n"] == 2 and power["rho"]["ci"][0] > 0
    assert power["broken"] == ["fallback:kendall", "memory:howto", "query:corr_a", "query:corr_b"]
    trace = (
        (run_dir / "traces" / "interventions" / "tiny" / "method[power-t0].jsonl").read_text().splitlines()
    )
    [propagation] = [json.loads(line) for line in trace if '"kind": "propagation"' in line]
    assert propagation["nodes"]["query:corr_a"] == {
        "pre": True,
        "post": False,
        "broke": True,
        "targets": [False],
    }
    records = json.loads((run_dir / "protocol_results.json").read_text())["protocols"]["intervention"]
    assert [r["profile"] for r in records] == ["light", "power"]
