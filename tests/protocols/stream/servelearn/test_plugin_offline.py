"""Whole runs over the fixture download: the offline default serves (one call per task, the replay
oracle where its rules cannot be read offline, a sample recorded), and the published column
appears for a model named by its litellm string, or says in one line that no row matches."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from tests.reliability.faultserver import FaultServer

from .helpers import FIXTURES
from .test_plugin import BOARD_HEADER, finisher


@pytest.mark.slow  # a whole pytest run
def test_the_offline_default_serves_a_sample_and_reports_the_replay_oracle_where_it_cannot_act(
    pytester: pytest.Pytester,
) -> None:
    shutil.copytree(FIXTURES, pytester.path / "dataset")
    result = pytester.runpytest_subprocess(
        "--pastbench-families=dataset", "--pastbench-stream-sample=0.5", "--pastbench-seed=7",
        "--pastbench-run-id=r", "-n", "2", "-v",
    )  # fmt: skip
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*replay oracle only (offline model)*retail_l1/windows.json::blind?t0?*"])
    result.stdout.fnmatch_lines(
        [
            "sample: 0.5 of each window (seed 7; --pastbench-stream-sample)",
            "banking_l1: the offline model pastbench/recall cannot follow a free-text bulletin without a "
            "language model; reported: the replay oracle (H 100.0 F 100.0), no agent score",
        ]
    )
    records = json.loads((pytester.path / "reports" / "r" / "protocol_results.json").read_text())
    by = {(r["scenario"], r["harness"]): r for r in records["protocols"]["stream"]}
    retail = by[("retail_l1", "blind")]
    assert retail["metrics"]["hidden"] is retail["metrics"]["fully"] is None  # no agent score
    assert retail["replay_oracle"] == {"hidden": None, "fully": 100.0}  # no hidden test task was drawn
    assert retail["sample"] == {
        "spec": "0.5 of each window", "seed": 7, "serving": 4, "test": 2, "of": {"serving": 6, "test": 4}
    }  # fmt: skip
    blind, oracle = by[("pitch_l1", "blind")]["metrics"], by[("pitch_l1", "oracle")]["metrics"]
    assert oracle["hidden"] > blind["hidden"]  # the offline pitcher acts on the bulletin it is shown


@pytest.mark.slow  # a whole pytest run
def test_the_published_column_is_found_for_a_litellm_model_string(pytester: pytest.Pytester) -> None:
    board = pytester.path / "leaderboard.csv"
    cells = ",".join(["50.0"] * 15)
    rows = [
        f"{m},{meth},{cells},50.0,50.0,1" for m in ("GLM-5.3 Flash", "Opus 5") for meth in ("Blind", "RAG")
    ]
    board.write_text("\n".join([BOARD_HEADER, *rows]) + "\n")
    shutil.copytree(FIXTURES, pytester.path / "dataset")
    with FaultServer(finisher, max_requests=500) as server:
        aliases = {
            "flash": {"model": "openai/glm-5p3-flash", "api_base": server.api_base},
            "other": {"model": "openai/some-model", "api_base": server.api_base},
        }
        (pytester.path / "aliases.yaml").write_text(yaml.safe_dump({"aliases": aliases}))
        result = pytester.runpytest_subprocess(
            "--pastbench-families=dataset", "--pastbench-model=flash,other",
            "--pastbench-model-aliases=aliases.yaml",
            f"--pastbench-stream-reference={board}", "-k", "retail and (blind or rag)",
        )  # fmt: skip
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*published H / F*", "blind · hermes@flash *50.0 / 50.0*"])
    result.stdout.fnmatch_lines(["blind · hermes@other *—"])
    result.stdout.fnmatch_lines(
        [
            "published column: leaderboard.csv has no Blind row for model 'other'; its Blind rows: "
            "GLM-5.3 Flash, Opus 5 (name one with --pastbench-stream-reference-model)"
        ]
    )
