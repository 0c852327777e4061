"""A small stream family end to end through pytest: collection, items per harness, -m stream,
xdist, the summary section, protocol_results.json and the terminal tables."""

from __future__ import annotations

import json

import pytest

TINY = """\
format: pastbench/stream-v1
id: tiny_retail
domain: retail
tier: L1
seed: 7
windows: 2
harnesses: [blind, oracle, own]
scale:
  sample: {serving: 6, test: 3}
  full: {serving: 6, test: 3}
rules:
  - id: D1
    meaning: Block cancellation of a pending order paid with a gift card.
    when: {action: cancel, status: pending, payment: gift_card}
    answer: refuse:payment_restricted
  - id: D2
    meaning: Block exchange of an electronics item.
    when: {action: exchange, status: delivered, category: electronics}
    answer: refuse:category_restricted
activation:
  D1: XX
  D2: -X
"""


def test_a_stream_runs_under_xdist_and_reports(pytester: pytest.Pytester) -> None:
    (pytester.path / "families" / "streams").mkdir(parents=True)
    (pytester.path / "families" / "streams" / "tiny_retail.yaml").write_text(TINY)
    result = pytester.runpytest_subprocess(
        "families", "-m", "stream", "-n", "2", "--dist", "worksteal", "-v",
        "--pastbench-model=pastbench/curator", "--pastbench-run-id=r",
    )  # fmt: skip
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*STREAM H 100.0 F 100.0*tiny_retail.yaml::oracle?t0?*",
            "*pastbench: stream*",
            "*test reward by tier*",
            "*oracle · hermes@pastbench/curator*100.0*100.0*",
            "*learning from serving*",
        ]
    )
    run = pytester.path / "reports" / "r"
    section = json.loads((run / "sequence_summary.json").read_text())["protocols"]["stream"]
    configs = {c["harness"]: c for c in section["configs"]}
    assert list(configs) == ["blind", "oracle", "own"]
    assert configs["oracle"]["overall"]["hidden"] == 100.0
    assert configs["blind"]["overall"]["fully"] == 100.0
    assert configs["blind"]["overall"]["hidden"] < configs["oracle"]["overall"]["hidden"]
    assert configs["own"]["streams"]["retail.L1"]["n"] == 1
    records = json.loads((run / "protocol_results.json").read_text())["protocols"]["stream"]
    own = next(r for r in records if r["harness"] == "own")
    assert own["family"] == "stream.tiny_retail" and own["counts"]["tasks"] == 18
    assert [w["window"] for w in own["windows"]] == [0, 1]
    assert sum(w["serving"]["n"] + w["test"]["n"] for w in own["windows"]) == 18
    trace = [json.loads(line) for line in next((run / "traces").rglob("*own*")).read_text().splitlines()]
    tickets = [e for e in trace if e["kind"] == "ticket"]
    assert len(tickets) == 18 and {t["phase"] for t in tickets} == {"serving", "test"}


def test_a_bad_stream_scale_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--pastbench-stream-scale=huge")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pastbench-stream-scale='huge': choose one of sample, full*"])


def test_a_resume_must_keep_the_stream_scale() -> None:
    from pytest_pastbench.plugin.options import RunOptions
    from pytest_pastbench.plugin.resume import check_options, run_file
    from pytest_pastbench.protocols.standalone import standalone_registry

    builtin = standalone_registry()

    recorded = run_file(RunOptions(protocol_options={"stream_scale": "sample"}), "r", "", builtin)
    with pytest.raises(pytest.UsageError, match="--pastbench-stream-scale"):
        check_options(
            "r",
            recorded,
            run_file(RunOptions(protocol_options={"stream_scale": "full"}), "r", "", builtin),
            builtin,
        )
    check_options(
        "r", recorded, run_file(RunOptions(), "r", "", builtin), builtin
    )  # the default is the sample
