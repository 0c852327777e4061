"""From item payloads to a written run folder, the same way for every protocol: the records by
protocol, the summary each protocol adds its section to, the JSON documents each protocol adds
its records to. Used at the end of a run (run.py's finish) and by ``pastbench merge``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..protocols.registry import ProtocolRegistry
from .run_folder import SUMMARY_FILE, write_documents

SCHEMA_VERSION = 1

Records = dict[str, list[Any]]  # protocol name -> its (validated) records, by node id


def records_by_protocol(
    registry: ProtocolRegistry, payloads: dict[str, dict[str, Any]], data_hash: str
) -> tuple[Records, dict[str, list[dict[str, Any]]]]:
    """Every payload's record, validated by its protocol and stamped with the run's dataset hash,
    and every item's trace; in node-id order."""
    records: Records = {protocol.name: [] for protocol in registry}
    traces: dict[str, list[dict[str, Any]]] = {}
    for nodeid in sorted(payloads):
        payload = payloads[nodeid]
        protocol = registry.of_payload(payload)
        traces[nodeid] = payload["trace"]
        records[protocol.name].append(protocol.load_record({**payload["record"], "dataset_hash": data_hash}))
    return records, traces


def build_run_summary(
    registry: ProtocolRegistry, records: Records, run: dict[str, Any], seed: int
) -> dict[str, Any]:
    """``sequence_summary.json``: the run block, then each protocol's section."""
    summary: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "run": run}
    for protocol in registry:
        protocol.add_to_summary(summary, records.get(protocol.name, []), seed)
    if "protocols" in summary:  # last, sorted by name
        summary["protocols"] = dict(sorted(summary.pop("protocols").items()))
    return summary


def write_run_folder(
    registry: ProtocolRegistry,
    run_dir: Path,
    run: dict[str, Any],
    records: Records,
    traces: dict[str, list[dict[str, Any]]],
    summary: dict[str, Any],
) -> Path:
    """Traces, each protocol's results documents, the summary, then each protocol's own files."""
    documents: dict[str, dict[str, Any]] = {SUMMARY_FILE: summary}
    for protocol in registry:
        protocol.add_to_results(documents, run, records.get(protocol.name, []), summary)
    write_documents(run_dir, traces, documents)
    for protocol in registry:
        protocol.write_files(summary, run_dir)
    return run_dir
