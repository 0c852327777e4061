"""``--pastbench-families=DOWNLOAD``: each scenario collected as stream items and reported in the
stream tables, driven by a scripted model on 127.0.0.1 (which also proves, at the wire, that no
evaluator content is ever sent to the model)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.reliability.faultserver import Fault, FaultServer

from .helpers import FIXTURES, scenarios
from .test_no_leak import evaluator_only

PITCH = "Budget-friendly price. Has only a small number of owners."


def finisher(body: dict[str, Any], index: int) -> Fault:
    """A model that finishes at once: a pitch when the tools ask for one, else an empty finish();
    told its score, it says thanks."""
    if _last_user(body).startswith("Score: "):
        return Fault("ok_text", text="Noted.")
    wants_pitch = "pitch" in json.dumps(body.get("tools") or [])
    return Fault("ok", tool="finish", arguments={"pitch": PITCH} if wants_pitch else {})


def _last_user(body: dict[str, Any]) -> str:
    return str(next(m for m in reversed(body["messages"]) if m["role"] == "user")["content"])


def run(pytester: pytest.Pytester, server: FaultServer, download: Path, *options: str) -> pytest.RunResult:
    aliases = pytester.path / "aliases.yaml"
    # priced, so every run has a known cost (a shard merge adds the ledgers up)
    prices = {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}
    spec = {"model": "openai/slb", "api_base": server.api_base, **prices}
    aliases.write_text(yaml.safe_dump({"aliases": {"slb-model": spec}}))
    return pytester.runpytest_subprocess(
        f"--pastbench-families={download}", "--pastbench-model=slb-model",
        f"--pastbench-model-aliases={aliases}", "--pastbench-run-id=r", "-v", *options,
    )  # fmt: skip


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_a_download_runs_as_stream_items_and_reports(pytester: pytest.Pytester) -> None:
    with FaultServer(finisher, max_requests=500) as server:
        # a copy: the fixtures sit in this project's tests/, whose conftest must not be collected
        download = pytester.path / "dataset"
        shutil.copytree(FIXTURES, download)
        result = run(pytester, server, download, "-n", "2")  # records and traces cross execnet
        received = [r.body for r in server.received]
    bodies = [json.dumps(b) for b in received]
    assert result.ret == 0, result.stdout.str()
    # under xdist the workers' lines arrive in any order: one pattern at a time
    result.stdout.fnmatch_lines(["*STREAM H 0.0 F 0.0 *environments/banking_l1/windows.json::blind?t0?*"])
    result.stdout.fnmatch_lines(["*STREAM H 50.0 F — *environments/pitch_l1/windows.json::oracle?t0?*"])
    result.stdout.fnmatch_lines(
        ["*pastbench: stream*", "*test reward by tier*", "*blind · hermes@slb-model*"]
    )
    # one turn per task, every task finishing at once: Blind and Oracle on the 10 test tasks, RAG on
    # all 25, own on all 25 and one more turn after each of the 15 serving tasks' score line
    assert len(bodies) == 10 + 10 + 25 + 25 + 15
    # the only feedback is the score line, its own user turn, after each serving task of "own"
    scores = [_last_user(b) for b in received if _last_user(b).startswith("Score: ")]
    assert len(scores) == 15 and all(re.fullmatch(r"Score: \d+(\.\d+)?/100\.", s) for s in scores)
    assert not any("EVAL-SECRET-" in b or "fx_" in b for b in bodies)
    # nor is anything of it written to the run's files (records, traces, summaries)
    written = "\n".join(f.read_text() for f in (pytester.path / "reports" / "r").rglob("*.json"))
    assert [s for scenario in scenarios().values() for s in evaluator_only(scenario) if s in written] == []
    results = json.loads((pytester.path / "reports" / "r" / "protocol_results.json").read_text())
    records = results["protocols"]["stream"]
    pitch = next(r for r in records if r["scenario"] == "pitch_l1" and r["harness"] == "oracle")
    assert pitch["judge"] == "pastbench/judge" and pitch["counts"] == {"windows": 2, "serving": 4, "test": 4}
    oracle_windows = [(w["window"], w["serving"]["n"], w["test"]["n"]) for w in pitch["windows"]]
    assert oracle_windows == [(0, 0, 2), (1, 0, 2)]  # Oracle runs the test sets only
    rag = next(r for r in records if r["scenario"] == "pitch_l1" and r["harness"] == "rag")
    assert [(w["serving"]["n"], w["test"]["n"]) for w in rag["windows"]] == [(2, 2), (2, 2)]
    retail = next(r for r in records if r["scenario"] == "retail_l1" and r["harness"] == "blind")
    # finish() at once is right exactly where nothing was to be done and nothing refused: never here
    assert (retail["metrics"]["hidden"], retail["family"]) == (0.0, "stream.servelearn.retail_l1")


def test_an_unreadable_scenario_is_one_error_and_the_others_run(pytester: pytest.Pytester) -> None:
    download = pytester.path / "dataset"
    shutil.copytree(FIXTURES, download)
    (download / "environments" / "retail_l1" / "system_prompt.txt").unlink()
    with FaultServer(finisher, max_requests=500) as server:
        result = run(pytester, server, download, "-k", "not pitch")
    result.stdout.fnmatch_lines(
        ["*retail_l1: *retail_l1/system_prompt.txt: missing file*", "*4 deselected, 1 error, 4 measured*"]
    )


def test_a_malformed_line_or_a_missing_windows_file_is_one_error_each(pytester: pytest.Pytester) -> None:
    download = pytester.path / "dataset"
    shutil.copytree(FIXTURES, download)
    # without windows.json the scenario is still collected (another of its files stands for it)
    (download / "environments" / "retail_l1" / "windows.json").unlink()
    test_file = download / "data" / "banking_l1" / "test.jsonl"
    lines = test_file.read_text().splitlines()
    lines[1] = lines[1].replace('"window": 1', '"window": "one"')
    test_file.write_text("\n".join(lines))
    with FaultServer(finisher, max_requests=500) as server:
        result = run(pytester, server, download)
    result.stdout.fnmatch_lines(["*banking_l1: *data/banking_l1/test.jsonl:2: window: *"])
    result.stdout.fnmatch_lines(["*retail_l1: *environments/retail_l1/windows.json: missing file*"])
    result.stdout.fnmatch_lines(["*2 errors, 4 measured*"])  # pitch_l1's four harnesses ran


def test_a_download_is_collected_only_through_pastbench_families(pytester: pytest.Pytester) -> None:
    shutil.copytree(FIXTURES, pytester.path / "dataset")
    result = pytester.runpytest_subprocess("dataset", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED, result.stdout.str()


BOARD_HEADER = (
    "model,method,retail_H_L1,retail_H_L2,retail_H_L3,retail_F_L1,retail_F_L2,retail_F_L3,banking_H_L1,"
    "banking_H_L2,banking_H_L3,banking_F_L1,banking_F_L2,banking_F_L3,pitch_H_L1,pitch_H_L2,pitch_H_L3,"
    "avg_h,avg_f,api_cost_usd"
)


def board_row(method: str, retail_h: float, retail_f: float) -> str:
    cells = [retail_h, 1, 2, retail_f, 3, 4, *range(5, 14), 10, 20, 120]
    return ",".join(["Model A", method, *(str(c) for c in cells)])


def test_a_published_leaderboard_row_is_shown_beside_ours(pytester: pytest.Pytester) -> None:
    board = pytester.path / "leaderboard.csv"
    rows = [board_row("Oracle", 100.0, 99.5), board_row("Blind", 1.7, 98.0), board_row("RAG", 65.4, 86.8)]
    board.write_text("\n".join([BOARD_HEADER, *rows]) + "\n")
    download = pytester.path / "dataset"
    shutil.copytree(FIXTURES, download)
    with FaultServer(finisher, max_requests=500) as server:
        result = run(pytester, server, download, "-k", "retail", f"--pastbench-stream-reference={board}")
    assert result.ret == 0, result.stdout.str()
    # the one-model file serves the run's model; "own" has no published method
    result.stdout.fnmatch_lines(
        [
            "*published H / F*",
            "blind · hermes@slb-model *0.0 *1.7 / 98.0*",
            "oracle · hermes@slb-model *100.0 / 99.5*",
            "own · hermes@slb-model *—",
            "rag · hermes@slb-model *65.4 / 86.8*",
            "*published in parentheses*",
            "blind · hermes@slb-model *0.0 / 0.0 (1.7 / 98.0)*",
        ]
    )
    summary = json.loads((pytester.path / "reports" / "r" / "sequence_summary.json").read_text())
    rag = next(c for c in summary["protocols"]["stream"]["configs"] if c["harness"] == "rag")
    assert rag["streams"]["retail.L1"]["published"] == {"hidden": 65.4, "fully": 86.8}


def test_a_leaderboard_that_cannot_be_read_is_a_usage_error_naming_the_line(
    pytester: pytest.Pytester,
) -> None:
    board = pytester.path / "leaderboard.csv"
    board.write_text("\n".join([BOARD_HEADER, board_row("Blind", 1.7, 98.0).replace("1.7", "n/a")]) + "\n")
    shutil.copytree(FIXTURES, pytester.path / "dataset")
    result = pytester.runpytest_subprocess(
        "--pastbench-families=dataset", f"--pastbench-stream-reference={board}", "--collect-only"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--pastbench-stream-reference={board}: {board}:2: 'n/a' is not a number*"])
