"""Where -n 0's model service runs (``--pastbench-model-service``): a process of its own by
default, so the items' process never imports litellm; inline on request; the same numbers either
way; a service that cannot start blocks the items with its reason."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from tests.child_runs import CHILD_RUN_OPTIONS, expect_no_model_service_left

SELECTION = ("--pastbench-families=builtin", "-k", "fact_correction and ep01")

# Written by the child run at its end: what its own process imported.
PROBE = """
import json, sys

def pytest_sessionfinish(session):
    loaded = sorted(name for name in ("litellm", "openai") if name in sys.modules)
    with open("loaded.json", "w") as out:
        json.dump(loaded, out)
"""


def _run(
    pytester: pytest.Pytester, service: str | None, run_id: str
) -> tuple[pytest.RunResult, dict, list[str]]:
    chosen = [f"--pastbench-model-service={service}"] if service else []
    result = pytester.runpytest_subprocess(*SELECTION, *chosen, f"--pastbench-run-id={run_id}")
    summary = json.loads((pytester.path / "reports" / run_id / "sequence_summary.json").read_text())
    loaded = json.loads((pytester.path / "loaded.json").read_text())
    return result, summary, loaded


def _scores(pytester: pytest.Pytester, run_id: str) -> dict[str, float]:
    items = sorted((pytester.path / "reports" / run_id / "items").glob("*.json"))
    records = [json.loads(path.read_text())["record"] for path in items]
    return {record["nodeid"]: record["score"] for record in records}


@pytest.mark.fresh_interpreter  # the child must start without litellm to show it never loads it
def test_by_default_the_items_call_a_model_service_process_and_score_as_inline(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The suite's child runs keep the service inline (tests/conftest.py); this one gets the default.
    addopts = [o for o in CHILD_RUN_OPTIONS if "pastbench_model_service" not in o]
    monkeypatch.setenv("PYTEST_ADDOPTS", " ".join(addopts))
    pytester.makeconftest(PROBE)
    result, summary, loaded = _run(pytester, None, "own")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert loaded == []  # litellm ran in the service's process only
    calls = summary["run"]["model_calls"]["pastbench/recall"]
    assert calls["calls"] > 0 and calls["failed"] == 0
    # The service's folder (its address and the run's token) is gone with it.
    assert not list(Path(pytester.path).glob("**/gateway.json"))

    result, inline_summary, loaded = _run(pytester, "inline", "inline")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert loaded == ["litellm", "openai"]
    # Where the service runs changes nothing measured: the same calls and the same scores.
    assert inline_summary["run"]["model_calls"] == summary["run"]["model_calls"]
    scores = _scores(pytester, "own")
    assert len(scores) == 2 and scores == _scores(pytester, "inline")


@pytest.mark.parametrize("where", [["-n", "2"], ["--pastbench-model-service=process"]], ids=["xdist", "n0"])
def test_a_model_service_that_cannot_start_blocks_the_items_with_its_reason(
    pytester: pytest.Pytester, where: list[str]
) -> None:
    (pytester.path / "cache" / "responses.sqlite").mkdir(parents=True)  # not a database file
    result = pytester.runpytest_subprocess(
        *SELECTION, "--pastbench-cache=rw", "--pastbench-cache-dir=cache", *where
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.parseoutcomes().get("errors") == 2
    reason = "the model gateway did not start: OperationalError: unable to open database file"
    result.stdout.fnmatch_lines([f"*infra_blocked: {reason}*"])
    # Said once, not once per worker or per item that asked for a client.
    output = result.stdout.str() + result.stderr.str()
    assert output.count("PytestWarning: pastbench: the model gateway did not start") == 1


def test_an_unknown_place_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--pastbench-model-service=thread")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pastbench-model-service='thread': choose one of process, inline*"])


def test_the_option_alone_does_not_make_a_run_a_benchmark_run(pytester: pytest.Pytester) -> None:
    """A project may set it for every run (ini or PYTEST_ADDOPTS): a plain test run stays plain,
    with no start-up checks and no service started."""
    pytester.makepyfile(test_plain="def test_one():\n    assert True\n")
    probed = '("pytest_pastbench.models.gateway_process",)'
    pytester.makeconftest(PROBE.replace('("litellm", "openai")', probed))
    result = pytester.runpytest_subprocess("--pastbench-model-service=process")
    assert result.ret == pytest.ExitCode.OK
    assert json.loads((pytester.path / "loaded.json").read_text()) == []


def test_a_run_refused_at_start_leaves_no_model_service_running(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service starts before the start-up checks (its litellm import beside theirs); a run
    they refuse stops it again."""
    marker = f"pastbench-test-{uuid.uuid4().hex}"
    monkeypatch.setenv("PASTBENCH_TEST_RUN_MARK", marker)
    result = pytester.runpytest_subprocess(
        *SELECTION, "--pastbench-model-service=process", "--pastbench-model=pastbench/recal"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no offline model 'recal'*"])
    expect_no_model_service_left(marker)
