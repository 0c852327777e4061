"""Baselines inside pytest: save, compare, and a gate that fails the session on a real drop."""

from __future__ import annotations

import json

import pytest

from pytest_pastbench.protocols.past.metrics import summarize
from pytest_pastbench.protocols.past.protocol import PROTOCOL as PAST
from pytest_pastbench.results.baseline import save_baseline
from tests.family_samples import builtin_sample, scored_record

WEAKENED_AGENT = '''
from pytest_pastbench import HermesAgent

SAVES = ("memory_write", "memory_update", "skill_write")


def without_saving(call):
    """The session's tools, except that nothing the agent saves reaches the store: a regression
    that loses the writes (each save becomes a search that finds nothing)."""

    def wrapped(name, arguments):
        if name in SAVES:
            return call("memory_search", {"query": ""})
        return call(name, arguments)

    return wrapped


class WeakenedHermes(HermesAgent):
    def run_session(self, ctx):
        ctx.tools.call = without_saving(ctx.tools.call)
        return super().run_session(ctx)


def pytest_pastbench_register_agents(register):
    register("weakened", lambda name="weakened", mechanisms=None: WeakenedHermes("weakened", mechanisms))
'''

# Episodes where the curator scores on both sample families, so the weakened agent's drop is
# more than the bootstrap's noise.
COMMON = [
    *builtin_sample("update", episodes=("ep01", "ep07")),
    "--pastbench-model=pastbench/curator",
    "--pastbench-mechanisms=E2",
]


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_compare_fail_stops_a_regression_and_passes_an_equal_rerun(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(WEAKENED_AGENT)
    saved = pytester.runpytest_subprocess(*COMMON, "--pastbench-save=main")
    assert saved.ret == 0
    saved.stdout.fnmatch_lines(
        ["*pastbench: baseline*", "*saved baseline 'main': .pastbench/baselines/main.json*"]
    )
    # Nothing was compared, so no comparison header.
    assert "comparison with the baseline" not in saved.stdout.str()

    weakened = pytester.runpytest_subprocess(
        *COMMON,
        "--pastbench-agent=weakened",
        "--pastbench-compare=main",
        "--pastbench-compare-fail=update.delta:0.05",
        "--pastbench-run-id=weak",
        "--color=yes",
    )
    assert weakened.ret == pytest.ExitCode.TESTS_FAILED
    # The verdict is in pytest's last line, in red, and so is the line.
    last = weakened.stdout.lines[-1]
    assert "\x1b[31m\x1b[1m1 gate failed" in last and last.startswith("\x1b[31m=")
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
    rerun.stdout.fnmatch_lines(["ok    update.delta unchanged*", "*scored, * control, 1 gate passed in *"])


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
    summary = summarize(records, run, 0)
    save_baseline(pytester.path / ".pastbench" / "baselines", "main", summary, PAST.baseline_data(records))
    result = pytester.runpytest_subprocess(
        *COMMON, "--pastbench-compare=main", "--pastbench-compare-fail=update.delta=0.05"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "[SCOPE.]METRIC:THRESHOLD" in result.stderr.str()
