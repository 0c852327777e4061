"""The summary section and the terminal tables, from hand-made records."""

from __future__ import annotations

from pytest_pastbench.protocols.stream.metrics import summarize
from pytest_pastbench.protocols.stream.report import render


def record(
    harness: str, domain: str, tier: str, hidden: float, fully: float, trial: int = 0, **extra: float
) -> dict:
    metrics = {"hidden": hidden, "fully": fully, "aulc10": extra.get("aulc10"), "tokens_per_task": 100.0}
    return {
        "nodeid": f"{domain}_{tier}::{harness}[t{trial}]",
        "episode": harness,
        "agent": "hermes",
        "model": "pastbench/curator",
        "domain": domain,
        "tier": tier,
        "infra_blocked": False,
        "metrics": metrics,
    }


def test_streams_average_over_trials_then_tiers_over_streams() -> None:
    records = [
        record("own", "retail", "L1", 40.0, 90.0, aulc10=50.0),
        record("own", "retail", "L1", 60.0, 100.0, trial=1, aulc10=70.0),
        record("own", "banking", "L1", 20.0, 80.0),
        record("blind", "retail", "L1", 0.0, 100.0),
        {**record("blind", "banking", "L1", 0.0, 0.0), "infra_blocked": True, "metrics": {}},
    ]
    section = summarize(records, seed=0)
    blind, own = section["configs"]  # harness order: blind, oracle, own, rag
    assert own["label"] == "own · hermes@pastbench/curator"
    assert own["streams"]["retail.L1"] == {"hidden": 50.0, "fully": 95.0, "n": 2}
    assert own["tiers"] == {"L1": {"hidden": 35.0, "fully": 87.5}}
    assert own["overall"]["hidden"] == 35.0 and own["overall"]["aulc10"] == 60.0
    assert blind["overall"]["infra_blocked"] == 1 and blind["overall"]["n_items"] == 2
    assert blind["overall"]["hidden"] == 0.0  # the blocked item is not a zero in the mean
    assert "banking.L1" not in blind["streams"]


def test_render_prints_the_tier_stream_and_learning_tables() -> None:
    text = render(summarize([record("own", "retail", "L2", 35.5, 88.25)], seed=0))
    assert "test reward by tier" in text and "learning from serving" in text
    row = next(
        line
        for line in text.splitlines()
        if line.startswith("own · hermes@pastbench/curator") and "35.5" in line
    )
    assert "—" in row  # L1 and L3 were not run: shown as missing, not as zero
    assert "35.5 / 88.2" in text or "35.5 / 88.3" in text
    assert render({"configs": []}) == "no stream items were measured"


def test_windows_average_over_trials_per_stream_then_over_streams() -> None:
    def windowed(domain: str, trial: int, hidden: list[float]) -> dict:
        rows = [
            {
                "window": w,
                "serving": {"hidden": 0.0, "fully": 0.0, "n": 1},
                "test": {"hidden": h, "fully": 100.0, "n": 1},
            }
            for w, h in enumerate(hidden)
        ]
        return {**record("own", domain, "L1", 0.0, 100.0, trial=trial), "windows": rows}

    records = [
        windowed("retail", 0, [0.0, 40.0]),
        windowed("retail", 1, [20.0, 60.0]),
        windowed("banking", 0, [30.0]),  # a shorter stream counts in the windows it has
    ]
    (own,) = summarize(records, seed=0)["configs"]
    assert own["windows"] == [
        {"window": 0, "streams": 2, "hidden": 20.0, "fully": 100.0},  # (10 + 30) / 2
        {"window": 1, "streams": 1, "hidden": 50.0, "fully": 100.0},
    ]
