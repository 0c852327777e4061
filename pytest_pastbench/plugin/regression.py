"""Baselines inside pytest: ``--pastbench-save``, ``--pastbench-compare``, ``--pastbench-compare-fail``.

Checked before anything runs (a missing baseline or a typo in a gate is a usage error, not a
surprise after an hour of model calls); acted on by the controller once the run is written.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ..errors import BaselineError, GateSyntaxError
from ..results.baseline import (
    Baseline,
    check_name,
    load_baseline,
    protocol_baseline_data,
    protocol_gate_metrics,
    save_baseline,
)
from ..results.compare import render_comparison
from ..results.gates import (
    Gate,
    GateResult,
    ProtocolMetrics,
    gate_and_report,
    gate_exit_code,
    parse_gates,
    verdict_parts,
)


@dataclass
class RegressionCheck:
    storage: Path
    save_name: str | None = None
    baseline: Baseline | None = None
    gates: list[Gate] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    failed: bool = False
    results: list[GateResult] = field(default_factory=list)
    comparison: dict[str, Any] | None = None  # the baseline section of sequence_comparison.json

    @classmethod
    def from_options(
        cls,
        storage: str,
        save: str | None,
        compare: str | None,
        compare_fail: list[str],
        protocol_metrics: ProtocolMetrics,
        registry: Any,
    ) -> RegressionCheck | None:
        """Validate the options; ``None`` when none of them is used. ``registry`` reads a run folder
        given as the baseline (None when there is no --pastbench-compare)."""
        if not (save or compare or compare_fail):
            return None
        check = cls(storage=Path(storage))
        try:
            check.save_name = check_name(save) if save else None
            if compare_fail and not compare:
                raise pytest.UsageError(
                    "--pastbench-compare-fail needs a baseline: add --pastbench-compare=NAME|PATH"
                )
            # The gates first: a typo in one is reported even before there is a baseline.
            check.gates = parse_gates(compare_fail, protocol_metrics) if compare_fail else []
            check.baseline = load_baseline(compare, check.storage, registry) if compare else None
        except (BaselineError, GateSyntaxError) as exc:
            raise pytest.UsageError(str(exc)) from None
        return check

    def run(self, summary: dict[str, Any], records: dict[str, list[Any]], registry: Any, seed: int) -> None:
        """Compare and gate this run (against the baseline as loaded at start), then save it.
        Every protocol's gates are read from its gate metrics (``BenchProtocol.gate_metrics``),
        their units from its plain records or its ``baseline_data`` (PAST's per-episode scores)."""
        data = protocol_baseline_data(registry, records)
        plain = {name: [r for r in rs if isinstance(r, dict)] for name, rs in records.items()}
        gate_metrics = protocol_gate_metrics(registry, summary, plain)
        if self.baseline is not None:
            self.lines.append(f"current run vs baseline {self.baseline.name}")
            comparison = render_comparison(summary, self.baseline.summary, registry)
            self.lines.append(comparison)
            self.comparison = {
                "name": self.baseline.name,
                "rows": baseline_rows(summary, self.baseline.summary, registry),
            }
            if self.gates:
                out, err = io.StringIO(), io.StringIO()
                current = Baseline("current run", summary, data, gate_metrics=gate_metrics)
                self.results = gate_and_report(self.gates, current, self.baseline, registry, seed, out, err)
                self.comparison["gates"] = [line for line in out.getvalue().splitlines() if line]
                printed = (err.getvalue() + out.getvalue()).splitlines()
                # the comparison already carries the notes on which configs were paired
                self.lines += [line for line in dict.fromkeys(printed) if line and line not in comparison]
            # An unevaluable gate (a scope missing from the run) fails the session too.
            self.failed = bool(self.gates) and gate_exit_code(self.results) != 0
        partial = summary.get("run", {}).get("partial")
        if self.save_name and partial:
            # A baseline from part of a run gates later runs on the wrong families and means.
            self.lines.append(
                f"baseline {self.save_name!r} NOT saved: the run is partial ({partial['finished']} of "
                f"{partial['expected']} items); resume it to the end, then save"
            )
        elif self.save_name:
            path = save_baseline(self.storage, self.save_name, summary, data, gate_metrics)
            self.lines.append(f"saved baseline {self.save_name!r}: {path}")


def baseline_rows(current: dict[str, Any], baseline: dict[str, Any], registry: Any) -> list[dict[str, Any]]:
    """The baseline section's rows: each protocol's ``comparison_rows`` (PAST's: Δ and Mech per
    matched config and scope)."""
    rows = []
    for protocol in registry:
        rows_of = getattr(protocol, "comparison_rows", None)
        rows += rows_of(current, baseline) if rows_of else []
    return rows


def add_gate_verdict(terminalreporter: Any, results: list[GateResult]) -> None:
    """The gates' verdict in pytest's final line: "1 gate failed" in red, "2 gates passed"."""
    from .terminal import add_parts  # lazy: the terminal code, only when a verdict is shown

    parts = verdict_parts(results)
    markup = [(text, {"red": True, "bold": True} if bad else {"green": True}) for text, bad in parts]
    add_parts(terminalreporter, markup, failed=any(bad for _, bad in parts))
