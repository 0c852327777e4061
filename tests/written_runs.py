"""A run folder written from records in hand, as the run writes one: what tests of the readers
(merge, baselines, plots, the HTML page) start from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_pastbench.protocols.registry import PAST
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.results.item_record import ItemRecord
from pytest_pastbench.results.run_folder import COMPARISON_FILE, SUMMARY_FILE, write_documents


def write_run(
    report_dir: Path,
    run_id: str,
    run: dict[str, Any],
    records: list[ItemRecord],
    traces: dict[str, list[dict[str, Any]]],
    summary: dict[str, Any],
    comparison: dict[str, Any],
    protocol_records: dict[str, list[dict[str, Any]]] | None = None,
) -> Path:
    """A run folder from PAST records (and other protocols' plain records); each built-in
    protocol adds its results files."""
    by_protocol = {PAST: records, **(protocol_records or {})}
    documents: dict[str, dict[str, Any]] = {SUMMARY_FILE: summary}
    for protocol in standalone_registry():
        protocol.add_to_results(documents, run, by_protocol.get(protocol.name, []), summary)
    documents[COMPARISON_FILE] = comparison
    return write_documents(report_dir / run_id, traces, documents)
