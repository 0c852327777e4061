"""The ``protocols`` section of ``sequence_summary.json``: one entry per §8 protocol in the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import load_protocol


def summarize_protocols(records: dict[str, list[dict[str, Any]]], seed: int) -> dict[str, Any]:
    """Each protocol summarises its own records (sorted by node id, so the result is stable)."""
    return {
        name: load_protocol(name).summarize(sorted(items, key=lambda r: r["nodeid"]), seed)
        for name, items in sorted(records.items())
    }


def write_protocol_files(sections: dict[str, Any], run_dir: Path) -> list[Path]:
    """Files a protocol draws from its section into the run folder (optional ``write_files``,
    e.g. plasticity's PNG curves)."""
    written: list[Path] = []
    for name, section in sorted(sections.items()):
        writer = getattr(load_protocol(name), "write_files", None)
        if writer is not None:
            written.extend(writer(section, run_dir))
    return written
