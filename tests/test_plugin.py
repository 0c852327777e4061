"""The plugin end to end in throw-away projects (pytester)."""

from __future__ import annotations

import json
import socket

import pytest

from pytest_pastbench.protocols.past.dataset.audit import EXPECTED_SHAPE
from tests.family_samples import BAD_STAGE, GOOD_MEMORY, GOOD_UPDATE


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # A subprocess per run: in-process runs that import litellm leave importlib.metadata unable
    # to find entry points for the next in-process run (pytester restores sys.modules).
    return pytester.runpytest_subprocess(*args)


def make_project(pytester: pytest.Pytester, **families: str) -> None:
    for name, text in families.items():
        capability = "update" if "corrections" in name else "memory"
        path = pytester.path / "families" / capability / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    """Benchmark items count as "scored" / "control" in pytest's summary line, not "passed"."""
    return {k: v for k, v in result.parseoutcomes().items() if k not in ("seconds",)}


def summary_of(pytester: pytest.Pytester, run_id: str) -> dict:
    return json.loads((pytester.path / "reports" / run_id / "sequence_summary.json").read_text())


@pytest.mark.fresh_interpreter  # it checks that litellm is never imported
def test_a_project_that_uses_nothing_is_unchanged(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_ok():\n    assert 1 + 1 == 2\n")
    (pytester.path / "config.yaml").write_text("format: something-else\nname: x\n")
    pytester.makeconftest(
        "import sys\n"
        "def pytest_sessionfinish(session):\n"
        "    open('modules.txt', 'w').write(str(sorted(m for m in sys.modules if m.startswith('litellm'))))\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    # pytest itself lists installed plugins in its header; nothing else may mention us.
    assert not [
        line for line in result.stdout.lines if "pastbench" in line and not line.startswith("plugins:")
    ]
    assert (pytester.path / "modules.txt").read_text() == "[]"
    assert not (pytester.path / "reports").exists()


def test_items_ids_keywords_and_markers(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiny_prefs=GOOD_MEMORY, tiny_corrections=GOOD_UPDATE)
    result = run(pytester, "families", "--collect-only", "-q", "--pastbench-trials=2")
    ids = [line for line in result.stdout.lines if "::" in line]
    assert ids[:4] == [
        "families/memory/tiny_prefs.yaml::ep01[on-t0]",
        "families/memory/tiny_prefs.yaml::ep01[off-t0]",
        "families/memory/tiny_prefs.yaml::ep01[on-t1]",
        "families/memory/tiny_prefs.yaml::ep01[off-t1]",
    ]
    assert len(ids) == 12
    only_update = run(pytester, "families", "--collect-only", "-q", "-k", "update")
    selected = [line for line in only_update.stdout.lines if "::" in line]
    assert selected and all("/update/" in line for line in selected)
    marked = run(pytester, "families", "--collect-only", "-q", "-m", "memory and off", "--strict-markers")
    selected = [line for line in marked.stdout.lines if "::" in line]
    assert selected == [
        "families/memory/tiny_prefs.yaml::ep01[off-t0]",
        "families/memory/tiny_prefs.yaml::ep02[off-t0]",
    ]


def test_several_models_make_one_comparison_run(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiny_prefs=GOOD_MEMORY)
    result = run(
        pytester,
        "families",
        "--pastbench-model=pastbench/blind",
        "--pastbench-model=pastbench/recall",
        "--pastbench-run-id=cmp",
    )
    assert outcomes(result) == {"scored": 4, "control": 4}
    labels = [c["label"] for c in summary_of(pytester, "cmp")["configs"]]
    assert labels == ["hermes@pastbench/blind", "hermes@pastbench/recall"]
    # Besides one Δ table per model, one view with a column per model.
    result.stdout.fnmatch_lines(
        [
            "*pastbench: configs side by side*",
            "Δ = S_on − S_off [95% CI]",
            "scope * hermes@pastbench/blind * hermes@pastbench/recall",
            "memory.tiny_prefs *",
            "Mech",
        ]
    )
    comparison = json.loads((pytester.path / "reports/cmp/sequence_comparison.json").read_text())
    assert {row["label"] for row in comparison["rows"]} == set(labels)


def test_benchmark_run_prints_table_statuses_and_writes_files(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiny_prefs=GOOD_MEMORY)
    result = run(pytester, "families", "-v", "--pastbench-run-id=r1", "--junitxml=junit.xml")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "*ep01?on-t0? SCORED 1.00*",
            "*ep01?off-t0? CONTROL 0.*",
            "*pastbench: Δ = S_on − S_off per family*",
            "*memory.tiny_prefs*",
            "*2 scored, 2 control*",
        ]
    )
    run_dir = pytester.path / "reports" / "r1"
    results = json.loads((run_dir / "sequence_results.json").read_text())
    assert [r["arm"] for r in results["records"]] == ["off", "on", "off", "on"]
    summary = summary_of(pytester, "r1")
    family = summary["configs"][0]["families"]["memory.tiny_prefs"]
    assert family["s_on"] == 1.0 and family["delta"] > 0.5
    traces = sorted(p.name for p in (run_dir / "traces" / "memory" / "tiny_prefs").iterdir())
    assert traces == ["ep01[off-t0].jsonl", "ep01[on-t0].jsonl", "ep02[off-t0].jsonl", "ep02[on-t0].jsonl"]
    events = [json.loads(line) for line in (run_dir / "traces/memory/tiny_prefs/ep01[on-t0].jsonl").open()]
    assert {"store_snapshot", "tool_call", "message", "score"} <= {e["kind"] for e in events}
    junit = (pytester.path / "junit.xml").read_text()
    assert 'name="pastbench.score" value="1.0"' in junit
    assert 'name="pastbench.mech.wp"' in junit
    assert "pastbench.hermes@pastbench/recall.overall.delta" in junit


def test_ini_keys_configure_the_run(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiny_prefs=GOOD_MEMORY)
    pytester.makeini(
        "[pytest]\npastbench_model = pastbench/blind\npastbench_run_id = ini\npastbench_persistence = on\n"
    )
    assert outcomes(run(pytester, "families")) == {"scored": 2}
    assert summary_of(pytester, "ini")["configs"][0]["model"] == "pastbench/blind"


def test_pass_threshold_fails_low_on_items_only(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiny_prefs=GOOD_MEMORY)
    result = run(pytester, "families", "--pastbench-model=pastbench/blind", "--pastbench-pass-threshold=0.5")
    assert outcomes(result) == {"failed": 2, "control": 2}
    result.stdout.fnmatch_lines(["*score 0.* < pass threshold 0.5*"])


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
@pytest.mark.parametrize(
    ("workers", "where"), [("0", "args"), ("2", "args"), ("0", "option"), ("2", "option")]
)
def test_a_malformed_family_is_one_error_item_and_the_rest_runs(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, workers: str, where: str
) -> None:
    """The README's promise, under pytest's defaults: the bad file is one error, reported in one
    line naming the file and the field path; every other family runs; the exit code is 1. Also
    for a folder outside the project given with --pastbench-families (that run was interrupted)."""
    make_project(pytester, tiny_prefs=GOOD_MEMORY, broken=BAD_STAGE)
    if where == "args":
        result = run(pytester, "families", "-n", workers)
    else:
        outside = tmp_path_factory.mktemp("elsewhere") / "families"
        (pytester.path / "families").rename(outside)
        result = run(pytester, f"--pastbench-families={outside}", "-n", workers)
    assert outcomes(result) == {"scored": 2, "control": 2, "errors": 1}
    lines = [line for line in result.stdout.lines if not line.startswith("[gw")]  # xdist: which worker
    [header] = [
        n for n, line in enumerate(lines) if "ERROR at setup of broken.yaml::invalid_family_file" in line
    ]
    assert lines[header + 1].endswith(
        "broken.yaml: episodes.1.sessions.1.stage: "
        "Input should be 'learn', 'distractor', 'eval_near' or 'eval_far'"
    )
    assert lines[header + 2].startswith("=")  # one line, no traceback
    result.stdout.fnmatch_lines(["ERROR *broken.yaml::invalid_family_file - *"])
    assert "Interrupted" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    if (workers, where) == ("0", "args"):  # the README's way to run without the bad file
        without = run(pytester, "families", "-k", "not invalid_family_file")
        assert outcomes(without) == {"scored": 2, "control": 2, "deselected": 1} and without.ret == 0


def test_infra_failure_is_an_error_with_a_reason_not_a_zero(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiny_prefs=GOOD_MEMORY)
    # A local server that is not there: a model that could answer, whose every request fails.
    # (A model that never could, such as pastbench/oracle, stops the run at start instead.)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    pytester.makefile(
        ".yaml", aliases=f'aliases:\n  gone: {{model: openai/x, api_base: "http://127.0.0.1:{port}/v1"}}\n'
    )
    options = [
        "--pastbench-model-aliases=aliases.yaml",
        "--pastbench-retries=1",
        "--pastbench-request-timeout=2",
    ]
    result = run(pytester, "families", "--pastbench-model=gone", *options, "--pastbench-run-id=bad")
    assert outcomes(result) == {"errors": 4}
    # Said as what happened, with the address: litellm calls it an InternalServerError (HTTP 500).
    result.stdout.fnmatch_lines(
        [f"infra_blocked: gone: gave up after 1 attempts: connection refused at http://127.0.0.1:{port}/v1*"]
    )
    overall = summary_of(pytester, "bad")["configs"][0]["overall"]
    assert overall["infra_blocked"] == 4 and overall["s_on"] is None and overall["delta"] is None


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--pastbench-persistence=maybe", "choose one of both, on, off"),
        ("--pastbench-trials=0", "must be at least 1"),
        ("--pastbench-trials=two", "--pastbench-trials='two': expected an integer"),
        ("--pastbench-pass-threshold=high", "--pastbench-pass-threshold='high': expected a number"),
        ("--pastbench-pass-threshold=1.5", "between 0.0 and 1.0"),
        ("--pastbench-agent=nobody", "unknown agent 'nobody'; choose one of hermes"),
        ("--pastbench-agent=nomodule:factory", "cannot load agent factory"),
        ("--pastbench-agent-label=/usr/bin/python3 agent.py", "use a short name"),
        ("--pastbench-families=/no/such/dir", "no such file or folder"),
    ],
)
def test_misuse_is_a_usage_error_with_a_fix(pytester: pytest.Pytester, option: str, message: str) -> None:
    result = run(pytester, option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_a_cache_dir_that_is_a_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".txt", notadir="not a folder")
    result = run(pytester, "--pastbench-cache=rw", "--pastbench-cache-dir=notadir.txt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--pastbench-cache-dir=notadir.txt: exists and is not a folder" in result.stderr.str()


@pytest.mark.parametrize("capability", ["memory", "procedural", "gathering", "update"])
def test_builtin_families_collect_from_any_directory_and_k_selects_a_capability(
    pytester: pytest.Pytester, capability: str
) -> None:
    result = run(pytester, "--pastbench-families=builtin", "--collect-only", "-q", "-k", capability)
    ids = [line for line in result.stdout.lines if "::" in line]
    assert len(ids) == 2 * EXPECTED_SHAPE[capability][1]  # episodes × (on, off)
    assert all(line.split("::")[0].split("/")[-2] == capability for line in ids)


WORKER_MODULES_CONFTEST = """
import json, os, sys

def pytest_sessionfinish(session):
    worker = getattr(session.config, "workerinput", {}).get("workerid")
    if worker:
        with open(f"modules-{worker}.json", "w") as handle:
            json.dump(sorted(m for m in sys.modules if m.split(".")[0] == "litellm"), handle)
"""


def test_workers_use_the_gateway_and_never_import_litellm(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiny_prefs=GOOD_MEMORY)
    pytester.makeconftest(WORKER_MODULES_CONFTEST)
    result = run(pytester, "families", "-n", "2", "--pastbench-run-id=gw")
    assert outcomes(result) == {"scored": 2, "control": 2}
    reports = sorted(pytester.path.glob("modules-gw*.json"))
    assert len(reports) == 2 and all(json.loads(p.read_text()) == [] for p in reports)
    calls = summary_of(pytester, "gw")["run"]["model_calls"]["pastbench/recall"]
    assert calls["calls"] > 0 and calls["cached"] == 0


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_a_cached_rerun_makes_no_model_call_and_replay_fails_on_a_miss(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiny_prefs=GOOD_MEMORY)
    first = run(pytester, "families", "-n", "2", "--pastbench-cache=rw", "--pastbench-run-id=c1")
    second = run(pytester, "families", "--pastbench-cache=replay", "--pastbench-run-id=c2")
    assert outcomes(first) == outcomes(second) == {"scored": 2, "control": 2}
    one, two = summary_of(pytester, "c1"), summary_of(pytester, "c2")
    first_calls = one["run"]["model_calls"]["pastbench/recall"]
    second_calls = two["run"]["model_calls"]["pastbench/recall"]
    assert second_calls["calls"] == 0
    # every request of the first run (some already repeated within it) is answered from the cache
    assert second_calls["cached"] == first_calls["calls"] + first_calls["cached"]
    assert one["configs"] == two["configs"]
    miss = run(pytester, "families", "--pastbench-cache=replay", "--pastbench-model=pastbench/blind")
    assert outcomes(miss) == {"errors": 4}
    miss.stdout.fnmatch_lines(["*infra_blocked: no cached response*replay mode*"])


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_progress_letters_do_not_read_as_pytest_outcomes_and_have_a_legend(pytester: pytest.Pytester) -> None:
    make_project(pytester, tiny_prefs=GOOD_MEMORY)
    result = run(pytester, "families")
    assert result.ret == 0
    [progress] = [line for line in result.stdout.lines if line.startswith("families/memory/tiny_prefs.yaml ")]
    # Longest first: the on items (they run the learn sessions), then the control items; "S"
    # would read as pytest's skipped.
    assert progress.split()[1] == "oocc"
    from pytest_pastbench.plugin.finish import PROGRESS_LEGEND

    assert "a = ablated arm scored" in PROGRESS_LEGEND
    result.stdout.fnmatch_lines([PROGRESS_LEGEND])
    assert "progress letters" not in run(pytester, "families", "-v").stdout.str()


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_blank_line_follows_the_delta_header_with_and_without_xdist(
    pytester: pytest.Pytester, workers: str
) -> None:
    make_project(pytester, tiny_prefs=GOOD_MEMORY)
    lines = run(pytester, "families", "-n", workers).stdout.lines
    header = next(i for i, line in enumerate(lines) if "pastbench: Δ = S_on − S_off per family" in line)
    assert lines[header + 1 : header + 3] == ["", "hermes@pastbench/recall"]


def test_the_final_line_shows_the_benchmark_counts_in_a_fixed_order() -> None:
    """pytest orders words it does not know by their first report; the first item to finish may
    be a control one. The line keeps scored, control, ablated, measured wherever pytest put them."""
    from pytest_pastbench.plugin.terminal import fixed_status_order

    class Reporter:
        def build_summary_stats_line(self) -> tuple[list[tuple[str, dict[str, bool]]], str]:
            parts = ["1 failed", "8 control", "2 measured", "8 scored", "3 deselected", "8 ablated"]
            return [(text, {}) for text in parts], "red"

    reporter = Reporter()
    fixed_status_order(reporter)
    line, color = reporter.build_summary_stats_line()
    assert [text for text, _ in line] == [
        "1 failed",
        "8 scored",
        "8 control",
        "8 ablated",
        "3 deselected",
        "2 measured",
    ]
    assert color == "red"
