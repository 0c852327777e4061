"""The ``protocols`` section of ``sequence_summary.json``: one entry per §8 protocol in the run."""

from __future__ import annotations

from typing import Any

from . import load_protocol


def summarize_protocols(records: dict[str, list[dict[str, Any]]], seed: int) -> dict[str, Any]:
    """Each protocol summarises its own records (sorted by node id, so the result is stable)."""
    return {
        name: load_protocol(name).summarize(sorted(items, key=lambda r: r["nodeid"]), seed)
        for name, items in sorted(records.items())
    }
