"""Reading a finished run back from disk (for the CLI, comparisons, merges and reports)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import RunLoadError
from .item_record import ItemRecord
from .run_folder import COMPARISON_FILE, RESULTS_FILE, SUMMARY_FILE, TRACES_DIR


@dataclass
class LoadedRun:
    path: Path
    run: dict[str, Any]
    records: list[ItemRecord]
    summary: dict[str, Any]

    @property
    def traces_dir(self) -> Path:
        return self.path / TRACES_DIR

    def comparison(self) -> dict[str, Any] | None:
        path = self.path / COMPARISON_FILE
        return json.loads(path.read_text()) if path.is_file() else None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise RunLoadError(f"{path}: missing (is {path.parent} a pastbench run folder?)") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise RunLoadError(f"{path}: unreadable: {exc}") from None


def load_run(path: str | Path) -> LoadedRun:
    """Load ``<run>/sequence_results.json`` and ``sequence_summary.json``.

    ``path`` may be the run folder or any file inside it.
    """
    folder = Path(path)
    if folder.is_file():
        folder = folder.parent
    results = _read_json(folder / RESULTS_FILE)
    summary = _read_json(folder / SUMMARY_FILE)
    try:
        records = [ItemRecord.model_validate(r) for r in results.get("records", [])]
    except (AttributeError, ValidationError) as exc:
        raise RunLoadError(f"{folder / RESULTS_FILE}: not a results file: {exc}") from None
    return LoadedRun(path=folder, run=results.get("run", {}), records=records, summary=summary)
