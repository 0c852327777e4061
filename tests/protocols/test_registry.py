"""The protocol registry and the gate metrics every built-in protocol exposes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_pastbench.errors import GateSyntaxError
from pytest_pastbench.protocols.base import GateMetric, ProtocolBase
from pytest_pastbench.protocols.registry import ProtocolRegistry
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.results.gates import evaluate_metric_gates, parse_gates

GOLDEN = Path(__file__).parents[1] / "golden" / "sequence_summary.json"


def test_a_non_protocol_or_a_taken_name_is_a_usage_error() -> None:
    registry = ProtocolRegistry()
    with pytest.raises(pytest.UsageError, match="is not a protocol .missing.*format_tag"):
        registry.register(object())  # type: ignore[arg-type]

    class Twin(ProtocolBase):
        name = "past"
        format_tag = "pastbench/twin-v1"

    registry.register(standalone_registry()["past"])
    with pytest.raises(pytest.UsageError, match="'past' is registered twice"):
        registry.register(Twin())


def test_every_protocol_exposes_gate_metrics_of_its_summary() -> None:
    summary = json.loads(GOLDEN.read_text())
    metrics = {p.name: p.gate_metrics(summary) for p in standalone_registry()}
    config = summary["configs"][0]
    (delta,) = [m for m in metrics["past"] if m.scope == "overall" and m.name == "delta"]
    assert (delta.value, delta.ci) == (config["overall"]["delta"], tuple(config["overall"]["delta_ci"]))
    assert [m.higher_is_better for m in metrics["past"] if m.name == "pr"][0] is False
    own = [
        m
        for m in metrics["stream"]
        if m.config.startswith("own") and m.name == "hidden" and m.scope == "stream"
    ]
    assert [m.value for m in own] == [summary["protocols"]["stream"]["configs"][2]["overall"]["hidden"]]
    rho = [m for m in metrics["intervention"] if m.name == "rho"]
    cells = [m for m in rho if "/" in m.scope]  # family/event/profile: ρ with its Wilson interval
    assert len(cells) == 6 and all(m.ci is not None for m in cells)
    assert all(not m.higher_is_better for m in rho) and {"intervention"} <= {m.scope for m in rho}
    (overall,) = [m for m in rho if m.scope == "intervention"]
    assert overall.value == pytest.approx(sum(m.value for m in cells) / len(cells))  # one family here
    assert {m.name for m in metrics["plasticity"]} == {"id_end", "ood_end", "p_sat"}
    for protocol in standalone_registry():
        assert {m.name for m in metrics[protocol.name]} <= protocol.gate_metric_names


def test_a_metric_gate_fails_on_the_worse_direction_only() -> None:
    def metric(value: float, higher: bool) -> GateMetric:
        return GateMetric("x", "cfg", "overall", "m", value, None, higher)

    (gate,) = parse_gates(["m:0.1"], {"x": frozenset({"m"})})
    assert gate.scope == "x"  # no scope: the protocol's overall
    (higher_better,) = evaluate_metric_gates([gate], [metric(0.3, True)], [metric(0.5, True)])
    (lower_better,) = evaluate_metric_gates([gate], [metric(0.3, False)], [metric(0.5, False)])
    assert higher_better.failed and not lower_better.failed
    # A value that is no mean of units (none given) has no noise estimate to speak of.
    assert higher_better.message == "x.m dropped by 0.200 (0.500 → 0.300; limit 0.1) [cfg]"
    with pytest.raises(GateSyntaxError, match="'m' is a x metric; scope it as x.m"):
        parse_gates(["other.m:0.1"], {"x": frozenset({"m"})})
    (missing,) = evaluate_metric_gates(
        parse_gates(["x.sub.m:0.1"], {"x": frozenset({"m"})}), [metric(0.3, True)], []
    )
    assert missing.error is not None and not missing.passed
