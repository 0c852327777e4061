"""Writing a run's files under ``<report dir>/<run id>/`` (controller only, atomically)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

RESULTS_FILE = "sequence_results.json"
SUMMARY_FILE = "sequence_summary.json"
COMPARISON_FILE = "sequence_comparison.json"
PROTOCOL_RESULTS_FILE = "protocol_results.json"  # interventions, streams, plasticity (docs/design.md §8)
TRACES_DIR = "traces"
# Crash safety: one file per finished item, written as it finishes, and the run's options at start.
ITEMS_DIR = "items"
RUN_FILE = "run.json"
TMP_SUFFIX = ".tmp"  # what a write in progress (or killed mid-write) leaves; readers skip it


def write_json_atomic(path: Path, value: Any, *, indent: int | None = 2, durable: bool = False) -> None:
    """Write-then-rename so a reader (or a crash) never sees half a file.

    ``durable`` also fsyncs the file before the rename, so the rename never lands before the
    bytes (matters on power loss, not on a killed process); used for per-item files."""
    # One string, one write: json.dump would write each of its many chunks separately.
    text = json.dumps(value, indent=indent, sort_keys=False, ensure_ascii=False) + "\n"
    write_text_atomic(path, text, durable=durable)


def write_text_atomic(path: Path, text: str, *, durable: bool = False) -> None:
    """``write_json_atomic`` for text. Like every run file, readable by its owner only (0600,
    from mkstemp): traces and the report quote the agent's conversations."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TMP_SUFFIX)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        # A failed write (disk full, Ctrl-C) leaves no stray temporary behind.
        Path(tmp).unlink(missing_ok=True)
        raise


def item_path(run_dir: Path, nodeid: str) -> Path:
    """``items/<safe nodeid>-<hash>.json``: readable, one flat folder, and unique (the hash keeps
    two node ids apart that differ only in characters the safe name replaces)."""
    safe = re.sub(r"[^A-Za-z0-9_.\[\]@+-]", "_", nodeid)[:150]
    digest = hashlib.sha256(nodeid.encode()).hexdigest()[:10]
    return run_dir / ITEMS_DIR / f"{safe}-{digest}.json"


def write_item(run_dir: Path, nodeid: str, payload: dict[str, Any]) -> Path:
    """One finished item's payload (record, trace, family hash), atomically, as it finishes.

    Compact JSON: the trace can be large and this runs on the controller for every item."""
    path = item_path(run_dir, nodeid)
    write_json_atomic(path, payload, indent=None, durable=True)
    return path


def clear_run(run_dir: Path) -> None:
    """Remove what an earlier run under this id wrote (its folder is being reused)."""
    for name in (ITEMS_DIR, TRACES_DIR):
        shutil.rmtree(run_dir / name, ignore_errors=True)
    for name in (RESULTS_FILE, PROTOCOL_RESULTS_FILE, SUMMARY_FILE, COMPARISON_FILE, RUN_FILE):
        (run_dir / name).unlink(missing_ok=True)


def trace_path(run_dir: Path, nodeid: str) -> Path:
    """``families/update/x.yaml::ep03[on-t0]`` -> ``traces/update/x/ep03[on-t0].jsonl``."""
    file_part, _, item = nodeid.partition("::")
    stem = Path(file_part)
    relative = Path(*stem.parts[-2:]).with_suffix("") if len(stem.parts) >= 2 else stem.with_suffix("")
    safe_item = re.sub(r"[^A-Za-z0-9_.\[\]@+-]", "_", item)
    return run_dir / TRACES_DIR / relative / f"{safe_item}.jsonl"


def write_documents(
    run_dir: Path, traces: dict[str, list[dict[str, Any]]], documents: dict[str, Any]
) -> Path:
    """Write a run folder: every trace (JSON lines) and every JSON document, by file name."""
    run_dir.mkdir(parents=True, exist_ok=True)
    # Reusing a run id replaces that run: no trace of an earlier run may sit beside the new ones.
    shutil.rmtree(run_dir / TRACES_DIR, ignore_errors=True)
    for nodeid, events in sorted(traces.items()):
        write_text_atomic(
            trace_path(run_dir, nodeid), "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events)
        )
    for name, document in documents.items():
        write_json_atomic(run_dir / name, document)
    return run_dir


def add_to_comparison(run_dir: Path, key: str, value: Any) -> None:
    """Add a section (e.g. the baseline comparison) to a written ``sequence_comparison.json``."""
    path = run_dir / COMPARISON_FILE
    write_json_atomic(path, {**json.loads(path.read_text()), key: value})
