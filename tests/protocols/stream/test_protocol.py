"""The stream protocol object: it describes a stream file, hands a stream file to ``collect.py``
(a ServeLearnBench download to its own collection), and gives gates H and F per tier with the
test tickets as units, leaving blocked items out."""

from __future__ import annotations

import pytest

from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.base import BenchProtocol
from pytest_pastbench.protocols.stream import collect as stream_collect
from pytest_pastbench.protocols.stream.protocol import PROTOCOL
from pytest_pastbench.resources import families_dir
from tests.protocols.stand_ins import Made, StandInFile

BANKING_L1 = families_dir() / "streams" / "banking_l1.yaml"


def test_it_describes_a_stream_file() -> None:
    assert isinstance(PROTOCOL, BenchProtocol)
    assert PROTOCOL.family_identity(BANKING_L1)[0] == "stream.banking_l1"
    assert PROTOCOL.describe(BANKING_L1).startswith("stream.banking_l1, banking L1, ")
    assert not PROTOCOL.claims(BANKING_L1)  # a stream file declares its format; only a download is claimed


def test_a_stream_file_is_collected_by_its_collect(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream_collect, "StreamItem", Made)
    made = list(PROTOCOL.collect(StandInFile(BANKING_L1, RunOptions())))  # type: ignore[arg-type]
    assert made and all(m["stream"].family.id == "banking_l1" for m in made)


def record(trial: int, tier: str, hidden: dict[str, float], blocked: bool = False) -> dict:
    return {
        "episode": "own",
        "agent": "hermes",
        "model": "m",
        "family": f"stream.retail_{tier.lower()}",
        "domain": "retail",
        "tier": tier,
        "trial": trial,
        "infra_blocked": blocked,
        "test_scores": {"hidden": hidden},
        "metrics": {"aulc10": 40.0 + trial},
    }


def test_gate_units_are_test_tickets_per_stream_and_skip_blocked_items() -> None:
    records = [
        record(0, "L1", {"3": 100.0, "4": 0.0}),
        record(1, "L1", {"3": 50.0}),
        record(2, "L1", {"3": 1.0}, blocked=True),
    ]
    units = PROTOCOL.gate_units(records)
    label = "own · hermes@m"
    expected = {"retail.L1": {"t0/3": 100.0, "t0/4": 0.0, "t1/3": 50.0}}
    assert units[(label, "stream", "hidden")] == expected == units[(label, "stream.L1", "hidden")]
    assert units[(label, "stream", "aulc10")] == {
        "items": {"stream.retail_l1/t0": 40.0, "stream.retail_l1/t1": 41.0}
    }
    assert (label, "stream", "fully") not in units  # no ticket scored F


def test_gate_metrics_give_h_and_f_overall_and_per_tier() -> None:
    config = {
        "label": "own · hermes@m",
        "overall": {"hidden": 60.0, "fully": 70.0},
        "tiers": {"L1": {"hidden": 50.0}},
    }
    metrics = {
        (m.scope, m.name): m.value
        for m in PROTOCOL.gate_metrics({"protocols": {"stream": {"configs": [config]}}})
    }
    assert metrics[("stream", "hidden")] == 60.0 and metrics[("stream.L1", "hidden")] == 50.0
    assert metrics[("stream.L1", "fully")] is None and ("stream", "aulc10") in metrics
