"""Collection of stream families: one item per stream × harness × model × trial × mechanism set."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_pastbench.plugin.collection import config_variants
from pytest_pastbench.plugin.run_handle import pastbench_run

from ..base import ProtocolFile, ProtocolItem
from .schema import Stream, load_stream


class StreamItem(ProtocolItem):
    protocol = "stream"

    def __init__(self, *, stream: Stream, harness: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stream = stream
        self.harness = harness
        self.extra_keyword_matches.update({harness, stream.family.domain, stream.family.tier})

    def measure(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        from .engine import run
        from .generator import dataset_counts, generate
        from .metrics import stream_metrics

        bench = pastbench_run(self.config)
        scale = bench.options.stream_scale
        windows = generate(self.stream, scale)
        budgets = bench.budgets()
        stream_run = run(
            self.stream,
            windows,
            self.harness,
            self.agent(),
            bench.client(self.model, self.trial),
            budgets,
        )
        result = stream_metrics(stream_run.tickets, self.stream.family.activation)
        from pytest_pastbench.agents.mechanisms import mechanism_use

        metrics = result["metrics"]
        record = {
            "headline": _headline(metrics),
            "domain": self.stream.family.domain,
            "tier": self.stream.family.tier,
            "harness": self.harness,
            "scale": scale,
            "counts": dataset_counts(windows),
            **result,
            "activation": dict(sorted(self.stream.family.activation.items())),
            "mechanism_use": mechanism_use(stream_run.trace, stream_run.sessions),
        }
        return record, stream_run.trace


def _headline(metrics: dict[str, Any]) -> str:
    def show(value: Any) -> str:
        return "—" if value is None else f"{value:.1f}"

    return f"H {show(metrics['hidden'])} F {show(metrics['fully'])} AULC@10 {show(metrics['aulc10'])}"


def collect(parent: ProtocolFile) -> Iterator[pytest.Item]:
    stream = load_stream(parent.path)
    options = pastbench_run(parent.config).options
    for harness in stream.family.harnesses:
        for model, trial, mechanisms, parts in config_variants(options):
            yield StreamItem.from_parent(
                parent,
                name=f"{harness}[{'-'.join(parts)}]",
                stream=stream,
                harness=harness,
                model=model,
                trial=trial,
                mechanisms=mechanisms,
            )
