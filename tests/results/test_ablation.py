"""--pastbench-mechanisms and --pastbench-ablation: one config per mechanism set in one run, the
ablation table in the terminal and in sequence_comparison.json, and misuse as usage errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.family_samples import GOOD_MEMORY, GOOD_UPDATE

CURATOR = "--pastbench-model=pastbench/curator"


def write_families(root: Path) -> None:
    for capability, name, text in (
        ("memory", "tiny_prefs", GOOD_MEMORY),
        ("update", "tiny_corrections", GOOD_UPDATE),
    ):
        path = root / "families" / capability / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def comparison(root: Path, run_id: str) -> dict[str, Any]:
    return json.loads((root / "reports" / run_id / "sequence_comparison.json").read_text())


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_ablation_runs_seven_configs_and_prints_the_table(pytester: pytest.Pytester) -> None:
    write_families(pytester.path)
    result = pytester.runpytest_subprocess(
        "families", CURATOR, "--pastbench-ablation", "--pastbench-run-id=abl", "-n", "2"
    )
    assert result.ret == 0, result.stdout.str()[-3000:]
    result.stdout.fnmatch_lines(
        [
            "*pastbench: mechanism ablation*",
            "config*mechanisms*overall Δ*update Δ*Mech*prompt tok/episode*wall s/episode",
            "hermes@pastbench/curator * none *",
            "hermes[[]E1[]]@pastbench/curator * E1 *",
            "hermes[[]E1,E2,E3,E4,E5[]]@pastbench/curator * E1,E2,E3,E4,E5 *",
        ]
    )
    rows = comparison(pytester.path, "abl")["ablation"]
    assert [r["mechanisms"] for r in rows] == [
        [],
        ["E1"],
        ["E2"],
        ["E3"],
        ["E4"],
        ["E5"],
        ["E1", "E2", "E3", "E4", "E5"],
    ]
    figures = {(r["delta"], r["update_delta"], r["mech"], r["prompt_tokens_per_episode"]) for r in rows}
    assert len(figures) == 7  # every mechanism set measured something different
    by_set = {",".join(r["mechanisms"]) or "base": r for r in rows}
    # The base curator keeps the stale fact beside its correction; E2 and E5 each retire it.
    assert by_set["E2"]["update_delta"] > by_set["base"]["update_delta"]
    assert by_set["E5"]["update_delta"] > by_set["base"]["update_delta"]
    # Item ids name the set; the set's label is a -k keyword.
    ids = [
        r["nodeid"]
        for r in json.loads((pytester.path / "reports/abl/sequence_results.json").read_text())["records"]
    ]
    assert "families/update/tiny_corrections.yaml::ep01[on-t0-E1+E5]" not in ids
    assert (
        "families/update/tiny_corrections.yaml::ep01[on-t0-E2]" in ids
        and "families/update/tiny_corrections.yaml::ep01[off-t0-all]" in ids
    )


def test_mechanisms_option_and_ini_key_pick_the_sets(pytester: pytest.Pytester) -> None:
    write_families(pytester.path)
    pytester.makeini("[pytest]\npastbench_mechanisms = E5\n")
    result = pytester.runpytest_subprocess(
        "families", CURATOR, "--pastbench-run-id=one", "-k", "update", "--collect-only", "-q"
    )
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["families/update/tiny_corrections.yaml::ep01[[]on-t0[]]"]
    )  # one set: plain ids
    result = pytester.runpytest_subprocess(
        "families",
        CURATOR,
        "--pastbench-mechanisms=none",
        "--pastbench-mechanisms=E1,E5",
        "--pastbench-run-id=two",
    )
    assert result.ret == 0, result.stdout.str()[-3000:]
    labels = [r["label"] for r in comparison(pytester.path, "two")["ablation"]]
    assert labels == ["hermes@pastbench/curator", "hermes[E1,E5]@pastbench/curator"]


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--pastbench-mechanisms=E1,E6"],
            "*--pastbench-mechanisms=E1,E6: unknown mechanism(s) E6; choose from E1 (plan)*",
        ),
        (
            ["--pastbench-ablation", "--pastbench-agent=fixed_agent:make"],
            "*agent 'fixed_agent:make' has no switchable mechanisms; use --pastbench-agent=hermes*",
        ),
    ],
)
def test_misuse_is_a_usage_error(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    write_families(pytester.path)
    pytester.makepyfile(
        fixed_agent="""
class Fixed:
    name = "fixed"
    mechanisms = []

def make():
    return Fixed()
"""
    )
    result = pytester.runpytest_subprocess("families", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
