"""Gates on the stream, intervention and plasticity metrics: a weakened agent fails them end to
end and the unweakened one passes; bad gates and baselines of another dataset version."""

from __future__ import annotations

import shutil

import pytest

from pytest_pastbench import cli
from pytest_pastbench.protocols.base import GateMetric
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.resources import families_dir
from pytest_pastbench.results.gates import evaluate_metric_gates, parse_gates, registry_metrics
from pytest_pastbench.results.render.ci_summary import render_markdown
from tests.protocols.plasticity.helpers import SMALL_TEXT_FAMILY, write_family
from tests.protocols.stream.test_plugin_streams import TINY

# Weakened in what it reuses: whatever the agent saves (store writes, skills, the plasticity
# inventory's proposals) never arrives; each save becomes a search that finds nothing. The
# model, prompts and every other tool are the unweakened agent's.
FORGETFUL_AGENT = """
from pytest_pastbench import HermesAgent

SAVES = ("memory_write", "memory_update", "skill_write", "propose_note", "propose_skill", "propose_tool")


def without_saving(call):
    def wrapped(name, arguments):
        if name in SAVES:
            return call("memory_search", {"query": "no-such-entry-anywhere"})
        return call(name, arguments)

    return wrapped


class Forgetful(HermesAgent):
    def run_session(self, ctx):
        ctx.tools.call = without_saving(ctx.tools.call)
        return super().run_session(ctx)


def pytest_pastbench_register_agents(register):
    register("forgetful", lambda name="forgetful", mechanisms=None: Forgetful("forgetful", mechanisms))
"""

# One harness (own store) and 8 test tickets per window, so a lost store is beyond the noise.
STREAM = (
    TINY.replace("harnesses: [blind, oracle, own]", "harnesses: [own]")
    .replace("sample: {serving: 6, test: 3}", "sample: {serving: 8, test: 8}")
    .replace("full: {serving: 6, test: 3}", "full: {serving: 8, test: 8}")
)


def _stream(pytester: pytest.Pytester) -> None:
    (pytester.path / "families" / "streams").mkdir(parents=True)
    (pytester.path / "families" / "streams" / "tiny_retail.yaml").write_text(STREAM)


def _intervention(pytester: pytest.Pytester) -> None:
    (pytester.path / "families" / "interventions").mkdir(parents=True)
    shutil.copy(
        families_dir() / "interventions" / "analytics.yaml", pytester.path / "families" / "interventions"
    )


def _plasticity(pytester: pytest.Pytester) -> None:
    family = {**SMALL_TEXT_FAMILY, "checkpoints": 2, "splits": {"train": 2, "id": 2, "ood": 2}}
    write_family(pytester.path / "families" / "plasticity", family)


@pytest.mark.parametrize(
    ("make_family", "gate", "failed", "passed"),
    [
        (_stream, "stream.hidden:2.0", "FAIL  stream.hidden dropped by *drop exceeds noise*",
         "ok    stream.hidden unchanged*"),
        (_intervention, "intervention.rho:0.05", "FAIL  intervention.rho rose by *lower is better*",
         "ok    intervention.rho unchanged*"),
        (_plasticity, "plasticity.id_end:10", "FAIL  plasticity.id_end dropped by *drop exceeds noise*",
         "ok    plasticity.id_end unchanged*"),
    ],
    ids=["stream", "intervention", "plasticity"],
)  # fmt: skip
@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_a_weakened_agent_fails_the_protocol_gate_and_the_unweakened_passes(
    pytester: pytest.Pytester, make_family, gate: str, failed: str, passed: str
) -> None:
    make_family(pytester)
    pytester.makeconftest(FORGETFUL_AGENT)
    common = ["families", "--pastbench-model=pastbench/curator", "--pastbench-persistence=on"]
    saved = pytester.runpytest_subprocess(*common, "--pastbench-run-id=base", "--pastbench-save=main")
    assert saved.ret == 0, saved.stdout.str()
    compare = ["--pastbench-compare=main", f"--pastbench-compare-fail={gate}"]
    weakened = pytester.runpytest_subprocess(
        *common, "--pastbench-agent=forgetful", "--pastbench-run-id=weak", *compare
    )
    assert weakened.ret == pytest.ExitCode.TESTS_FAILED, weakened.stdout.str()
    weakened.stdout.fnmatch_lines(["*comparison with the baseline*", failed, "*1 gate failed*"])
    rerun = pytester.runpytest_subprocess(*common, "--pastbench-run-id=again", *compare)
    assert rerun.ret == 0, rerun.stdout.str()
    rerun.stdout.fnmatch_lines([passed, "*1 gate passed*"])
    # The same gate on the stored runs, without rerunning anything.
    # (pytester runs in its folder: the saved baseline and the run folders are found from there)
    assert cli.main(["gate", "reports/weak", "--baseline", "main", "--fail", gate]) == 1
    assert cli.main(["gate", "reports/again", "--baseline", "main", "--fail", gate]) == 0


def test_a_gate_on_an_unknown_metric_is_a_usage_error_listing_the_valid_ones(
    pytester: pytest.Pytester,
) -> None:
    _stream(pytester)
    result = pytester.runpytest_subprocess(
        "families", "--pastbench-compare=main", "--pastbench-compare-fail=stream.hiden:2"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*gate 'stream.hiden:2': unknown metric 'hiden'; valid metrics: past: delta, mech, *; "
            "intervention: alpha_l, gamma, kappa, rho, sigma_ratio; plasticity: id_end, ood_end, p_sat; "
            "stream: aulc10, forgetting, fully, hidden, ka5, serving_hidden; syntax: *"
        ]
    )


def _metric(value: float, units: dict[str, dict[str, float]], higher: bool = True) -> GateMetric:
    return GateMetric("stream", "own · a@m", "stream", "hidden", value, None, higher, units)


def test_a_protocol_gate_compares_the_strata_both_runs_hold() -> None:
    (gate,) = parse_gates(["stream.hidden:5"], registry_metrics(standalone_registry()))
    both = {"t0/1": 100.0, "t0/2": 0.0, "t0/3": 100.0}
    now = _metric(50.0, {"retail.L1": both, "banking.L1": {"t0/1": 0.0, "t0/2": 0.0}})
    before = _metric(66.67, {"retail.L1": both, "retail.L2": {"t0/1": 100.0}})
    (result,) = evaluate_metric_gates([gate], [now], [before], seed=0)
    # Only retail.L1 is in both: 66.7 → 66.7, not the 50 → 66.7 of the two selections.
    assert result.passed and result.change == pytest.approx(0.0)
    # What was left out is a note beside the verdict (printed once, as PAST's families are).
    assert result.notes == (
        "comparing the 1 stratum in both runs; left out only in the baseline: retail.L2; "
        "only in the current run: banking.L1 [own · a@m]",
    )


def test_one_unit_per_stratum_gives_no_noise_estimate_rather_than_a_zero_width_one() -> None:
    (gate,) = parse_gates(["stream.hidden:5"], registry_metrics(standalone_registry()))
    (result,) = evaluate_metric_gates(
        [gate], [_metric(0.0, {"s": {"t0": 0.0}})], [_metric(100.0, {"s": {"t0": 100.0}})], seed=0
    )
    assert result.failed and result.ci is None and "too few paired units" in result.message
    (result,) = evaluate_metric_gates(
        [gate],
        [_metric(18.75, {"s": {"a": 0.0, "b": 50.0, "c": 0.0, "d": 25.0}})],
        [_metric(81.25, {"s": {"a": 100.0, "b": 100.0, "c": 50.0, "d": 75.0}})],
        seed=0,
    )
    assert result.failed and result.exceeds_noise and result.ci is not None and result.ci[1] < 0


def test_the_step_summary_shows_each_protocols_gate_metrics_and_verdicts() -> None:
    registry = standalone_registry()
    summary = {
        "run": {"id": "r"},
        "configs": [],
        "protocols": {
            "stream": {
                "configs": [
                    {
                        "label": "own · a@m",
                        "overall": {"hidden": 40.0, "fully": 100.0},
                        "tiers": {"L1": {"hidden": 40.0, "fully": 100.0}},
                        "streams": {},
                    }
                ]
            }
        },
    }
    (gate,) = parse_gates(["stream.hidden:2"], registry_metrics(registry))
    results = evaluate_metric_gates([gate], [_metric(20.0, {})], [_metric(40.0, {})])
    text = render_markdown(summary, registry, results)
    assert "### stream: gate metrics" in text
    assert "| own · a@m | `stream.L1` | hidden | 40.000 |" in text
    assert "- **FAIL** stream.hidden dropped by 20.000 (40.000 → 20.000; limit 2;" in text
    assert "**1 gate failed**" in text


def test_junit_gets_a_run_property_per_protocol_gate_metric() -> None:
    from pytest_pastbench.plugin.junit import protocol_metric_properties

    summary = {
        "configs": [],
        "protocols": {
            "plasticity": {
                "families": {
                    "plasticity.ops": {
                        "lineages": {
                            "a@m[on-t0]": {
                                "agent": "a",
                                "model": "m",
                                "arm": "on",
                                "trial": 0,
                                "scores": [
                                    {"checkpoint": 0, "id": 0.0, "ood": 0.0},
                                    {"checkpoint": 1, "id": 80.0, "ood": 40.0},
                                ],
                            }
                        }
                    }
                }
            }
        },
    }
    props = dict(protocol_metric_properties(summary, standalone_registry()))
    assert props["pastbench.plasticity.a@m[on].plasticity.id_end"] == 80.0
    assert props["pastbench.plasticity.a@m[on].plasticity.ops.ood_end"] == 40.0
    assert props["pastbench.plasticity.a@m[on].plasticity.p_sat"] is None  # no fit: no value, not 0
