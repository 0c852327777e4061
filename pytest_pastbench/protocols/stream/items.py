"""A stream item: one stream × harness × model × trial × mechanism set, and how it is measured
(``StreamItem.measure`` runs the stream on ``engine.py``'s ``run``). ``collect.py`` yields them."""

from __future__ import annotations

from typing import Any

from pytest_pastbench.plugin.run_handle import pastbench_run

from ..base import ProtocolItem
from .schema import Stream


class StreamItem(ProtocolItem):
    protocol = "stream"

    def __init__(self, *, stream: Stream, harness: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stream = stream
        self.harness = harness
        self.extra_keyword_matches.update({harness, stream.family.domain, stream.family.tier})

    def measure(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        # Lazy: collection imports this module; the engine and all it loads only when an item runs.
        from pytest_pastbench.agents.mechanisms import mechanism_use

        # lazy: the engine, generator and metrics, only when an item runs
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
