"""End to end through pytest: a plasticity family file is collected, an offline reference model
runs 5 checkpoints of the text environment, and the run reports curves, P_sat and the taxonomy
(terminal, sequence_summary.json, protocol_results.json, a PNG)."""

from __future__ import annotations

import json

import pytest

from .helpers import SMALL_TEXT_FAMILY, write_family


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    # The file says C = 2; the run asks for 5 with --pastbench-plasticity-checkpoints. One
    # held-out task per kind and split keeps the run short.
    family = {**SMALL_TEXT_FAMILY, "checkpoints": 2, "splits": {"train": 2, "id": 2, "ood": 2}}
    write_family(pytester.path / "families" / "plasticity", family)
    return pytester


def _section(pytester: pytest.Pytester, run_id: str) -> dict:
    summary = json.loads((pytester.path / "reports" / run_id / "sequence_summary.json").read_text())
    return summary["protocols"]["plasticity"]


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_five_checkpoints_rise_with_artifacts_and_stay_flat_without_reflection(
    project: pytest.Pytester,
) -> None:
    result = project.runpytest_subprocess(
        "families",
        "-v",
        "-m",
        "plasticity",
        "--pastbench-model=pastbench/curator",
        "--pastbench-plasticity-checkpoints=5",
        "--pastbench-run-id=r",
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*small_rules.yaml::lineage?on-t0? PLASTICITY ID 0→100*",
            "*small_rules.yaml::lineage?off-t0? PLASTICITY ID 0→0*",
            "*pastbench: plasticity*",
            "*no covering artifact*existed, unused*used, still failed*reuse rate*",
            "*note: cost is $0*per-1,000-token*",
        ]
    )
    family = _section(project, "r")["families"]["plasticity.small_rules"]
    on = family["lineages"]["hermes@pastbench/curator[on-t0]"]
    off = family["lineages"]["hermes@pastbench/curator[off-t0]"]
    on_id = [p["y"] for p in on["curves"]["id"]]
    assert len(on_id) == 6  # checkpoints 0..5
    assert on_id == sorted(on_id) and on_id[-1] - on_id[0] >= 50
    assert {p["y"] for p in off["curves"]["id"]} == {0.0}
    assert on["p_sat"]["per_1000_tokens"]["value"] > 0 and on["p_sat"]["per_1000_tokens"]["fit"]
    assert off["p_sat"]["per_1000_tokens"]["status"] == "floor"
    assert on["p_sat"]["usd_per_1000"]["value"] is None and "$0" in on["p_sat"]["usd_per_1000"]["reason"]
    assert on["taxonomy"]["id"]["reuse_rate"] == 1.0
    # OOD: the swapped phrasing defeats the learned tool ("used, still failed").
    assert on["taxonomy"]["ood"]["used_still_failed"] > 0
    png = project.path / "reports" / "r" / family["plot"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    records = json.loads((project.path / "reports" / "r" / "protocol_results.json").read_text())
    assert sorted(r["arm"] for r in records["protocols"]["plasticity"]) == ["off", "on"]


def test_a_bad_checkpoint_option_is_a_usage_error(project: pytest.Pytester) -> None:
    bad = project.runpytest_subprocess("families", "--pastbench-plasticity-checkpoints=0")
    bad.stderr.fnmatch_lines(["*--pastbench-plasticity-checkpoints=0: must be between 1 and 200*"])
