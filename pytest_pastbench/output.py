"""Writing a run's files under ``<report dir>/<run id>/`` (controller only, atomically)."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from .item_record import ItemRecord

RESULTS_FILE = "sequence_results.json"
SUMMARY_FILE = "sequence_summary.json"
COMPARISON_FILE = "sequence_comparison.json"
TRACES_DIR = "traces"


def write_json_atomic(path: Path, value: Any) -> None:
    """Write-then-rename so a reader (or a crash) never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w") as handle:
        json.dump(value, handle, indent=2, sort_keys=False, ensure_ascii=False)
        handle.write("\n")
    os.replace(tmp, path)


def trace_path(run_dir: Path, nodeid: str) -> Path:
    """``families/update/x.yaml::ep03[on-t0]`` -> ``traces/update/x/ep03[on-t0].jsonl``."""
    file_part, _, item = nodeid.partition("::")
    stem = Path(file_part)
    relative = Path(*stem.parts[-2:]).with_suffix("") if len(stem.parts) >= 2 else stem.with_suffix("")
    safe_item = re.sub(r"[^A-Za-z0-9_.\[\]@+-]", "_", item)
    return run_dir / TRACES_DIR / relative / f"{safe_item}.jsonl"


def write_run(
    report_dir: Path,
    run_id: str,
    run: dict[str, Any],
    records: list[ItemRecord],
    traces: dict[str, list[dict[str, Any]]],
    summary: dict[str, Any],
    comparison: dict[str, Any],
) -> Path:
    run_dir = report_dir / run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    # Reusing a run id replaces that run: no trace of an earlier run may sit beside the new ones.
    shutil.rmtree(run_dir / TRACES_DIR, ignore_errors=True)
    for nodeid, events in sorted(traces.items()):
        path = trace_path(run_dir, nodeid)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events))
        os.replace(tmp, path)
    write_json_atomic(
        run_dir / RESULTS_FILE,
        {"schema_version": 1, "run": run, "records": [r.model_dump(mode="json") for r in records]},
    )
    write_json_atomic(run_dir / SUMMARY_FILE, summary)
    write_json_atomic(run_dir / COMPARISON_FILE, comparison)
    return run_dir


def add_to_comparison(run_dir: Path, key: str, value: Any) -> None:
    """Add a section (e.g. the baseline comparison) to a written ``sequence_comparison.json``."""
    path = run_dir / COMPARISON_FILE
    write_json_atomic(path, {**json.loads(path.read_text()), key: value})
