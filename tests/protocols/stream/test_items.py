"""A stream item (``StreamItem``): measuring generates the stream's windows at the run's scale,
runs them on the engine with the item's harness, and its record carries the headline, the
counts, the metrics and what the mechanisms did."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.stream import engine, metrics
from pytest_pastbench.protocols.stream.generator import dataset_counts, generate
from pytest_pastbench.protocols.stream.items import StreamItem
from pytest_pastbench.protocols.stream.schema import load_stream
from pytest_pastbench.resources import families_dir
from tests.protocols.stand_ins import item_of

STREAM = load_stream(families_dir() / "streams" / "banking_l1.yaml")


def stream_item(scale: str = "sample") -> Any:
    options = RunOptions(protocol_options={"stream_scale": scale})
    return item_of(StreamItem, options, stream=STREAM, harness="rag", trial=1, name="rag[t1]")


@pytest.mark.parametrize(
    ("measured", "headline"),
    [
        ({"hidden": 61.25, "fully": 80.0, "aulc10": 12.34}, "H 61.2 F 80.0 AULC@10 12.3"),
        ({"hidden": None, "fully": 5.0, "aulc10": None}, "H — F 5.0 AULC@10 —"),
    ],
)
def test_measure_runs_the_windows_on_the_engine_and_records_the_stream(
    monkeypatch: pytest.MonkeyPatch, measured: dict[str, Any], headline: str
) -> None:
    seen: dict[str, Any] = {}

    def fake_run(stream: Any, windows: list, harness: str, agent: Any, client: Any, budgets: Any) -> Any:
        seen.update(windows=windows, harness=harness, client=client, budgets=budgets)
        trace = [{"kind": "mechanism", "mechanism": "E1", "action": "retrieved", "session": 0}]
        return SimpleNamespace(tickets=["ticket"], trace=trace, sessions=3)

    def fake_metrics(tickets: list, activation: dict[str, str]) -> dict[str, Any]:
        assert tickets == ["ticket"] and activation == STREAM.family.activation
        return {"metrics": measured, "curves": {}}

    monkeypatch.setattr(engine, "run", fake_run)
    monkeypatch.setattr(metrics, "stream_metrics", fake_metrics)
    record, trace = stream_item().measure()
    windows = generate(STREAM, "sample")
    assert len(seen["windows"]) == len(windows) and seen["harness"] == "rag"
    assert seen["client"] == "client:pastbench/recall:1" and seen["budgets"] == "budgets"
    assert record["headline"] == headline and record["metrics"] == measured
    assert (record["domain"], record["tier"], record["harness"], record["scale"]) == (
        "banking",
        "L1",
        "rag",
        "sample",
    )
    assert record["counts"] == dataset_counts(windows) and record["counts"]["test"] > 0
    assert set(record["mechanism_use"]) and trace[0]["mechanism"] == "E1"
