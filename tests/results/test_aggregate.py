"""From item payloads to a run folder, the same way for every protocol: shown here with two
stand-in protocols, so what is checked is the order and the hand-offs, not a protocol's numbers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pytest_pastbench.results.aggregate import (
    SCHEMA_VERSION,
    build_run_summary,
    records_by_protocol,
    write_run_folder,
)
from pytest_pastbench.results.run_folder import SUMMARY_FILE, trace_path


class StandIn:
    def __init__(self, name: str) -> None:
        self.name = name
        self.calls: list[str] = []

    def load_record(self, record: dict[str, Any]) -> dict[str, Any]:
        return {**record, "loaded_by": self.name}

    def add_to_summary(self, summary: dict[str, Any], records: list[Any], seed: int) -> None:
        summary.setdefault("protocols", {})[self.name] = {"n": len(records), "seed": seed}

    def add_to_results(self, documents: dict, run: dict, records: list[Any], summary: dict) -> None:
        documents[f"{self.name}_results.json"] = {"run": run, "records": records}

    def write_files(self, summary: dict[str, Any], run_dir: Path) -> None:
        # Its own files come after the documents: the summary is already on disk.
        assert (run_dir / SUMMARY_FILE).is_file()
        (run_dir / f"{self.name}.txt").write_text(str(summary["protocols"][self.name]["n"]))


class Registry:
    def __init__(self, *protocols: StandIn) -> None:
        self.protocols = protocols

    def __iter__(self) -> Iterator[StandIn]:
        return iter(self.protocols)

    def of_payload(self, payload: dict[str, Any]) -> StandIn:
        return next(p for p in self.protocols if p.name == payload["protocol"])


def payload(protocol: str, nodeid: str) -> dict[str, Any]:
    return {"protocol": protocol, "record": {"nodeid": nodeid}, "trace": [{"event": nodeid}]}


def test_records_are_validated_by_their_protocol_stamped_and_in_node_id_order() -> None:
    registry = Registry(StandIn("zeta"), StandIn("alpha"))
    payloads = {
        "b.yaml::e1": payload("zeta", "b"),
        "a.yaml::e1": payload("zeta", "a"),
        "c.yaml::e1": payload("alpha", "c"),
    }
    records, traces = records_by_protocol(registry, payloads, data_hash="h1")
    assert records == {
        "zeta": [
            {"nodeid": "a", "dataset_hash": "h1", "loaded_by": "zeta"},
            {"nodeid": "b", "dataset_hash": "h1", "loaded_by": "zeta"},
        ],
        "alpha": [{"nodeid": "c", "dataset_hash": "h1", "loaded_by": "alpha"}],
    }
    assert list(traces) == ["a.yaml::e1", "b.yaml::e1", "c.yaml::e1"]
    assert records_by_protocol(registry, {}, "h1") == ({"zeta": [], "alpha": []}, {})


def test_the_summary_starts_with_the_run_and_ends_with_the_protocols_by_name() -> None:
    registry = Registry(StandIn("zeta"), StandIn("alpha"))
    summary = build_run_summary(registry, {"zeta": [1, 2]}, {"run_id": "r"}, seed=7)
    assert list(summary) == ["schema_version", "run", "protocols"]
    assert summary["schema_version"] == SCHEMA_VERSION
    assert summary["protocols"] == {"alpha": {"n": 0, "seed": 7}, "zeta": {"n": 2, "seed": 7}}
    assert list(summary["protocols"]) == ["alpha", "zeta"]


def test_the_folder_holds_traces_each_protocols_documents_the_summary_then_its_own_files(
    tmp_path: Path,
) -> None:
    registry = Registry(StandIn("alpha"))
    records = {"alpha": [{"nodeid": "x"}]}
    summary = build_run_summary(registry, records, {"run_id": "r"}, seed=0)
    traces = {"families/u/x.yaml::ep01[on]": [{"event": 1}]}
    run_dir = write_run_folder(registry, tmp_path / "r", {"run_id": "r"}, records, traces, summary)
    assert json.loads((run_dir / SUMMARY_FILE).read_text()) == summary
    assert json.loads((run_dir / "alpha_results.json").read_text())["records"] == [{"nodeid": "x"}]
    assert trace_path(run_dir, "families/u/x.yaml::ep01[on]").read_text() == '{"event": 1}\n'
    assert (run_dir / "alpha.txt").read_text() == "1"
