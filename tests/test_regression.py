"""Baselines inside pytest: save, compare, and a gate that fails the session on a real drop."""

from __future__ import annotations

import json

import pytest

from pytest_pastbench.baseline import save_baseline
from pytest_pastbench.summary import build_summary
from tests.family_samples import CURATOR_EDGE_PENDING, builtin_sample, scored_record

WEAKENED_AGENT = '''
import json

from pytest_pastbench import HermesAgent


def without_supersedes(call):
    """The session's tools, except that a correction cannot retire the note it replaces."""

    def wrapped(name, arguments):
        if name == "memory_write":
            arguments = json.loads(arguments) if isinstance(arguments, str) else dict(arguments or {})
            arguments.pop("supersedes", None)
        return call(name, arguments)

    return wrapped


class WeakenedHermes(HermesAgent):
    def run_session(self, ctx):
        ctx.tools.call = without_supersedes(ctx.tools.call)
        return super().run_session(ctx)


def pytest_pastbench_register_agents(register):
    register("weakened", lambda name="weakened", mechanisms=None: WeakenedHermes("weakened", mechanisms))
'''

# E2 (render) is what lets the curator retire a corrected note; the weakened agent loses it.
COMMON = [
    *builtin_sample("update", episodes=("ep01", "ep02")),
    "--pastbench-model=pastbench/curator",
    "--pastbench-mechanisms=E2",
]


@CURATOR_EDGE_PENDING
def test_compare_fail_stops_a_regression_and_passes_an_equal_rerun(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(WEAKENED_AGENT)
    saved = pytester.runpytest_subprocess(*COMMON, "--pastbench-save=main")
    assert saved.ret == 0
    saved.stdout.fnmatch_lines(["*saved baseline 'main': .pastbench/baselines/main.json*"])

    weakened = pytester.runpytest_subprocess(
        *COMMON,
        "--pastbench-agent=weakened",
        "--pastbench-compare=main",
        "--pastbench-compare-fail=update.delta:0.05",
        "--pastbench-run-id=weak",
    )
    assert weakened.ret == pytest.ExitCode.TESTS_FAILED
    comparison = json.loads((pytester.path / "reports/weak/sequence_comparison.json").read_text())
    assert comparison["baseline"]["name"] == "main"
    assert comparison["baseline"]["gates"][0].startswith("FAIL  update.delta dropped by")
    [update] = [r for r in comparison["baseline"]["rows"] if r["scope"] == "update"]
    assert update["change"] < -0.05 and update["baseline_label"] == "hermes[E2]@pastbench/curator"
    weakened.stdout.fnmatch_lines(
        [
            "*comparison with the baseline*",
            "*current run vs baseline main*",
            # Both families drop by the same amount here: their order in the line is not the point.
            "FAIL  update.delta dropped by *families: update.* -*, update.* -*",
        ]
    )

    rerun = pytester.runpytest_subprocess(
        *COMMON, "--pastbench-compare=main", "--pastbench-compare-fail=update.delta:0.05"
    )
    assert rerun.ret == 0
    rerun.stdout.fnmatch_lines(["ok    update.delta unchanged*"])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--pastbench-compare=nothing-saved"], "nothing-saved"),
        (["--pastbench-compare-fail=delta:0.05"], "needs a baseline: add --pastbench-compare"),
        (["--pastbench-save=../escape"], "not a safe file name"),
    ],
)
def test_baseline_misuse_stops_before_running(
    pytester: pytest.Pytester, options: list[str], message: str
) -> None:
    result = pytester.runpytest_subprocess("--pastbench-families=builtin", *options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_a_bad_gate_expression_is_a_usage_error(pytester: pytest.Pytester) -> None:
    # The gate is parsed before anything runs, so a hand-made saved baseline is enough.
    records = [
        scored_record("update.fact_correction", "ep01", arm, score)
        for arm, score in (("on", 0.9), ("off", 0.2))
    ]
    run = {"id": "r", "seed": 0, "dataset_hash": "d", "judge": None, "models": ["m"]}
    save_baseline(pytester.path / ".pastbench" / "baselines", "main", build_summary(records, run, 0), records)
    result = pytester.runpytest_subprocess(
        *COMMON, "--pastbench-compare=main", "--pastbench-compare-fail=update.delta=0.05"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "[SCOPE.]METRIC:THRESHOLD" in result.stderr.str()
