"""Saved baselines: a run's summary and what its protocols keep of their records, under a name.

The pytest-benchmark convention (save / compare / compare-fail): ``save_baseline`` writes
``<storage>/<name>.json``; ``load_baseline`` reads a name from the storage, a baseline file, or a
finished run folder, so a gate can compare against any of them. Beside the summary travel each
protocol's ``baseline_data`` (PAST's: its per-episode scores, because a noise-aware comparison
bootstraps over episodes, not over summary means) and the protocols' gate metrics with their units.
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BaselineError, RunLoadError
from ..version import plugin_version
from .read import load_run
from .run_folder import write_json_atomic

if TYPE_CHECKING:
    from ..protocols.base import GateMetric

BASELINE_SCHEMA_VERSION = 1
# Hidden like pytest-benchmark's ``.benchmarks``; relative to the working directory.
DEFAULT_STORAGE = Path(".pastbench") / "baselines"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")

# The baseline file's own fields; any other top-level field is a protocol's ``baseline_data``.
OWN_FIELDS = frozenset(
    {
        "schema_version",
        "name",
        "saved_at",
        "machine",
        "git_commit",
        "plugin_version",
        "summary",
        "gate_metrics",
    }
)


@dataclass
class Baseline:
    name: str
    summary: dict[str, Any]
    # The protocols' ``baseline_data`` (PAST's ``episodes``), as plain JSON: their
    # ``baseline_units`` read it.
    data: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    # The protocols' gate metrics with their units (drawn from records, which a baseline file
    # does not keep); None: read them from the summary (and the protocols' ``baseline_units``).
    gate_metrics: list[GateMetric] | None = None

    @property
    def run(self) -> dict[str, Any]:
        """The ``run`` block of the summary (dataset hash, judge, models: what compatibility reads)."""
        return self.summary.get("run", {})


def check_name(name: str) -> str:
    """The storage file stem for ``name``; a trailing ``.json`` is accepted and dropped.

    Names become file names, so anything that could leave the storage folder (``../x``, ``a/b``:
    no separators, no leading dot), hide (``.x``), read as an option (``-x``) or be empty is refused.
    """
    stem = name[: -len(".json")] if name.endswith(".json") else name
    if not _NAME.match(stem):
        raise BaselineError(
            f"baseline name {name!r} is not a safe file name: use letters, digits, '.', '_' or '-' "
            "(at most 128, not starting with '.' or '-')"
        )
    return stem


def list_baselines(storage: Path) -> list[str]:
    """Names of the baselines saved in ``storage`` (sorted; empty when the folder is missing)."""
    if not storage.is_dir():
        return []
    return sorted(p.stem for p in storage.glob("*.json") if p.is_file() and _NAME.match(p.stem))


def machine_info() -> dict[str, Any]:
    # No hostname, user or kernel build string: a baseline may be committed to a public repo.
    return {
        "platform": platform.system(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "cpu_count": os.cpu_count(),
    }


def git_commit(cwd: Path | None = None) -> str | None:
    """``git rev-parse HEAD`` in ``cwd``; None when git is missing, slow, or this is no repository."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{40,64}", commit) else None


def protocol_baseline_data(registry: Any, records: Mapping[str, list[Any]]) -> dict[str, Any]:
    """Every registered protocol's ``baseline_data`` of its records (protocol -> loaded records),
    as the baseline file keeps them (plain JSON); two protocols may not claim one field."""
    data: dict[str, Any] = {}
    for protocol in registry:
        fields = protocol.baseline_data(list(records.get(protocol.name, [])))
        taken = sorted(set(fields) & (set(data) | OWN_FIELDS))
        if taken:
            raise BaselineError(
                f"protocol {protocol.name}: baseline field(s) {', '.join(taken)} already taken"
            )
        data.update(fields)
    return json.loads(json.dumps(data))  # as a baseline file gives them back (tuples as lists)


def save_baseline(
    storage: Path,
    name: str,
    summary: dict[str, Any],
    data: Mapping[str, Any],
    gate_metrics: list[GateMetric] | None = None,
) -> Path:
    """Write ``<storage>/<name>.json`` atomically and return its path (an existing one is replaced).
    ``data``: the protocols' (``protocol_baseline_data``); ``gate_metrics``: theirs with units."""
    stem = check_name(name)
    path = Path(storage) / f"{stem}.json"
    document = {
        "schema_version": BASELINE_SCHEMA_VERSION,
        "name": stem,
        "saved_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine_info(),
        "git_commit": git_commit(Path.cwd()),
        "plugin_version": plugin_version(),
        "summary": summary,
        **data,
    }
    if gate_metrics is not None:
        document["gate_metrics"] = [asdict(m) for m in gate_metrics]
    try:
        write_json_atomic(path, document)
    except (OSError, TypeError, ValueError) as exc:
        # The old file is intact (write-then-rename); drop the half-written temporary beside it.
        for leftover in path.parent.glob(f".{path.name}.*.tmp"):
            leftover.unlink(missing_ok=True)
        raise BaselineError(f"cannot save baseline {stem!r} to {path}: {exc}") from None
    return path


def _is_baseline_document(data: Any) -> bool:
    # A run folder's files hold no "summary" field beside "saved_at".
    return isinstance(data, dict) and "summary" in data and "saved_at" in data


def _from_file(path: Path) -> Baseline:
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"{path}: unreadable baseline: {exc}") from None
    if not _is_baseline_document(data):
        raise BaselineError(f"{path}: not a pastbench baseline (no 'summary' and 'saved_at')")
    version = data.get("schema_version")
    if version != BASELINE_SCHEMA_VERSION:
        raise BaselineError(f"{path}: baseline schema_version {version!r}, this plugin reads 1")
    summary = data["summary"]
    if not isinstance(summary, dict) or not isinstance(summary.get("configs"), list):
        raise BaselineError(f"{path}: 'summary' is not a sequence_summary document")
    meta = {k: v for k, v in data.items() if k in OWN_FIELDS - {"summary", "gate_metrics"}}
    return Baseline(
        name=str(data.get("name") or path.stem),
        summary=summary,
        data={k: v for k, v in data.items() if k not in OWN_FIELDS},
        meta={**meta, "source": str(path), "kind": "baseline"},
        gate_metrics=_gate_metrics_from_json(data.get("gate_metrics"), path),
    )


def _gate_metrics_from_json(raw: Any, source: Path) -> list[GateMetric] | None:
    # lazy: the protocol interface, only when a baseline lists gate metrics
    from ..protocols.base import GateMetric

    if raw is None:
        return None  # saved before gate metrics were kept: they are read from the summary
    try:
        return [GateMetric(**{**m, "ci": tuple(m["ci"]) if m.get("ci") else None}) for m in raw]
    except (TypeError, KeyError, AttributeError):
        raise BaselineError(f"{source}: 'gate_metrics' is not a list of gate metrics") from None


def _from_run(path: Path, registry: Any) -> Baseline:
    try:
        run = load_run(path)
    except RunLoadError as exc:
        raise BaselineError(str(exc)) from None
    records = {protocol.name: protocol.read_records(run.path) for protocol in registry}
    loaded = {name: [registry[name].load_record(r) for r in plain] for name, plain in records.items()}
    return Baseline(
        name=run.path.name,
        summary=run.summary,
        data=protocol_baseline_data(registry, loaded),
        meta={"source": str(run.path), "kind": "run", "run": run.run},
        gate_metrics=protocol_gate_metrics(registry, run.summary, records),
    )


def load_baseline(ref: str, storage: Path, registry: Any) -> Baseline:
    """A baseline from a NAME saved in ``storage``, a baseline JSON file, or a run folder (read
    by ``registry``'s protocols).

    A saved name wins over a same-named path in the working directory: names are what CI passes.
    """
    storage = Path(storage)
    if not ref.strip():
        # Path("") is the working directory; an empty ref must not quietly load it as a run.
        raise BaselineError(
            f"empty baseline reference: give a name saved in {storage}, a file or a run folder"
        )
    try:
        stem = check_name(ref)
    except BaselineError:
        stem = None
    if stem is not None and (storage / f"{stem}.json").is_file():
        return _from_file(storage / f"{stem}.json")
    path = Path(ref)
    if path.is_dir():
        return _from_run(path, registry)
    if path.is_file():
        try:
            data = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BaselineError(f"{path}: unreadable: {exc}") from None
        # Any other file is taken as a file inside a run folder (e.g. its sequence_summary.json).
        return _from_file(path) if _is_baseline_document(data) else _from_run(path, registry)
    names = list_baselines(storage)
    available = ", ".join(names) if names else "none"
    looked = f"no {stem}.json in {storage}" if stem is not None else "not a safe baseline name"
    raise BaselineError(
        f"no baseline {ref!r}: {looked} and no such baseline file or run folder "
        f"(saved in {storage}: {available})"
    )


def protocol_gate_metrics(
    registry: Any, summary: Mapping[str, Any], records: Mapping[str, list[Any]] | None = None
) -> list[GateMetric]:
    """Every registered protocol's gate metrics in ``summary``, with the units its ``gate_units``
    draws from ``records`` (protocol -> plain records) where the summary holds none."""

    metrics = []
    for protocol in registry:
        units_of = getattr(protocol, "gate_units", None)
        units = units_of(list((records or {}).get(protocol.name, []))) if units_of and records else {}
        for metric in protocol.gate_metrics(summary):
            extra = units.get((metric.config, metric.scope, metric.name))
            metrics.append(replace(metric, units=extra) if extra else metric)
    return metrics
