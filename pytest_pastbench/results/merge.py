"""``pastbench merge``: join the runs of ``--pastbench-shard=K/N`` jobs into one run folder.

Records are the source of truth: the merged run holds the union of the shards' records (and
their traces), and its summary and comparison are rebuilt from those records with the shards'
common seed, so merging the N shards of a command gives the summary of running it unsharded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.family_files import dataset_hash
from ..errors import MergeError, RunLoadError
from ..models.rate_limit import merge_rate_limits
from ..protocols.registry import ProtocolRegistry
from .aggregate import build_run_summary, write_run_folder
from .read import LoadedRun, load_run
from .run_folder import RESULTS_FILE, trace_path

# Run settings that change what is measured or how it is summarised: shards must agree on them.
PROTOCOL_KEYS = ("seed", "agent", "models", "persistence", "trials", "judge", "plugin_version")


def _load(paths: list[Path]) -> list[LoadedRun]:
    if not paths:
        raise MergeError("no runs given: pass the run folders of the shards to merge")
    runs: list[LoadedRun] = []
    seen: dict[Path, Path] = {}
    for path in paths:
        try:
            loaded = load_run(path)
        except RunLoadError as exc:
            raise MergeError(str(exc)) from None
        where = loaded.path.resolve()
        if where in seen:
            raise MergeError(
                f"{seen[where]} is given twice: a run cannot be merged with itself; "
                "pass each shard's run folder once"
            )
        seen[where] = loaded.path
        runs.append(loaded)
    return runs


def _shard(loaded: LoadedRun) -> tuple[int, int, str | None]:
    shard = loaded.run.get("shard")
    if not isinstance(shard, dict):
        raise MergeError(
            f"{loaded.path} is not a shard: it ran without --pastbench-shard=K/N; "
            "merge joins the shard runs of one command"
        )
    return int(shard["k"]), int(shard["n"]), shard.get("selection")


def _check_shards(runs: list[LoadedRun]) -> None:
    """The runs are the N distinct shards of one command: same selection, every K once."""
    first = runs[0]
    _, n, selection = _shard(first)
    by_k: dict[int, LoadedRun] = {}
    for loaded in runs:
        k, other_n, other_selection = _shard(loaded)
        if other_n != n:
            raise MergeError(
                f"{first.path} is one of {n} shards but {loaded.path} one of {other_n}: "
                "merge only the shards of one command"
            )
        if other_selection is None or other_selection != selection:
            raise MergeError(
                f"{first.path} and {loaded.path} are shards of different selections (other family "
                "folders, dataset or -k/-m): merge only the shards of one command"
            )
        if k in by_k:
            raise MergeError(f"{by_k[k].path} and {loaded.path} are both shard {k}/{n}: pass each shard once")
        by_k[k] = loaded
    missing = [f"{k}/{n}" for k in range(1, n + 1) if k not in by_k]
    if missing:
        raise MergeError(
            f"shard {', '.join(missing)} missing: the merged run would not be the command's run; "
            "pass all its shards"
        )


def _check_protocol(runs: list[LoadedRun]) -> None:
    first = runs[0]
    for other in runs[1:]:
        for key in PROTOCOL_KEYS:
            if first.run.get(key) != other.run.get(key):
                raise MergeError(
                    f"{first.path} and {other.path} differ in {key} "
                    f"({first.run.get(key)!r} vs {other.run.get(key)!r}): "
                    "merge only the shards of one command"
                )


def _families(runs: list[LoadedRun]) -> dict[str, str]:
    """Family id -> file hash over all shards. A shard's dataset hash covers only the families
    it measured, so shards are compared family by family: the same family must be the same file."""
    families: dict[str, str] = {}
    source: dict[str, Path] = {}
    for loaded in runs:
        own = loaded.run.get("families")
        if not isinstance(own, dict):
            raise MergeError(f"{loaded.path}: its run has no family hashes; cannot check its dataset")
        for family, file_hash in own.items():
            if family in families and families[family] != file_hash:
                raise MergeError(
                    f"dataset hashes differ: family {family} is {families[family][:12]} in "
                    f"{source[family]} but {file_hash[:12]} in {loaded.path}: the shards ran different "
                    "family files; rerun them from one checkout"
                )
            families.setdefault(family, file_hash)
            source.setdefault(family, loaded.path)
    return dict(sorted(families.items()))


# Set per merge from the shards' records and families, never taken from one shard.
COMPUTED_KEYS = ("id", "seed", "dataset_hash", "started", "finished", "families", "shard")


_NOT_ADDABLE = object()  # not None: an unpriced model's cost_usd is None in every shard, and adds up


def _add(values: list[Any]) -> Any:
    """Sum dicts of counters key by key (e.g. per-model call ledgers); equal labels inside them
    stay as they are; ``_NOT_ADDABLE`` if the values do not add up."""
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return sum(values)
    if all(isinstance(v, dict) for v in values):
        out: dict[str, Any] = {}
        for key in dict.fromkeys(k for v in values for k in v):
            summed = _add([v[key] for v in values if key in v])
            if summed is _NOT_ADDABLE:
                return _NOT_ADDABLE
            out[key] = summed
        return out
    return values[0] if all(v == values[0] for v in values) else _NOT_ADDABLE


def _run_values(runs: list[LoadedRun]) -> dict[str, Any]:
    """The other run-level values: equal in every shard, or per-run counters that add up
    (what N shards spent together is what the unsharded run spends)."""
    merged: dict[str, Any] = {}
    for key in dict.fromkeys(k for r in runs for k in r.run):
        if key in COMPUTED_KEYS:
            continue
        if key == "rate_limits":  # only the shards that met a 429 have one; lowest is a minimum
            merged[key] = merge_rate_limits([r.run.get(key) for r in runs])
            continue
        values = [r.run.get(key) for r in runs]
        if all(v == values[0] for v in values):
            merged[key] = values[0]
            continue
        summed = _add(values) if all(isinstance(v, dict) for v in values) else _NOT_ADDABLE
        if summed is _NOT_ADDABLE:
            raise MergeError(
                f"the runs differ in {key} ({', '.join(f'{r.path}: {r.run.get(key)!r}' for r in runs)}): "
                "merge only the shards of one command"
            )
        merged[key] = summed
    return merged


def _records(
    runs: list[LoadedRun], registry: ProtocolRegistry
) -> dict[str, dict[str, tuple[dict[str, Any], LoadedRun]]]:
    """Every protocol's records of all shards, each node id once, with the shard it came from."""
    merged: dict[str, dict[str, tuple[dict[str, Any], LoadedRun]]] = {}
    for protocol in registry:
        kept = merged[protocol.name] = {}
        for loaded in runs:
            try:
                records = protocol.read_records(loaded.path)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise MergeError(f"{loaded.path}: unreadable {protocol.name} records: {exc}") from None
            for record in records:
                nodeid = record["nodeid"]
                if nodeid in kept:
                    first, origin = kept[nodeid]
                    # dataset_hash is per shard (its own families), so it is not part of the result.
                    if protocol.comparable(first) != protocol.comparable(record):
                        raise MergeError(
                            f"{nodeid} is in {origin.path} and in {loaded.path} with different "
                            "results: the runs overlap, so they are not shards of one run"
                        )
                    continue
                kept[nodeid] = (record, loaded)
    return merged


def _trace(loaded: LoadedRun, nodeid: str) -> list[dict[str, Any]]:
    path = trace_path(loaded.path, nodeid)
    try:
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, json.JSONDecodeError) as exc:
        raise MergeError(f"{path}: cannot read the trace of {nodeid}: {exc}") from None


def merge_runs(paths: list[Path], out: Path, registry: ProtocolRegistry) -> Path:
    """Merge the shard runs of one command into the run folder ``out`` (its run id is its name)."""
    runs = _load([Path(p) for p in paths])
    _check_shards(runs)
    _check_protocol(runs)
    families = _families(runs)
    merged = _records(runs, registry)
    if not any(merged.values()):
        raise MergeError("the runs hold no records")
    seed = int(runs[0].run.get("seed", 0))
    data_hash = dataset_hash(families)
    out = Path(out)
    if out.resolve() in {r.path.resolve() for r in runs}:
        raise MergeError(f"{out} is one of the runs being merged: choose another -o")
    if (out / RESULTS_FILE).exists():
        raise MergeError(f"{out} already holds a run: remove it or choose another -o")
    rid = out.resolve().name

    records = {
        protocol.name: [protocol.load_record({**kept[n][0], "dataset_hash": data_hash}) for n in sorted(kept)]
        for protocol in registry
        for kept in [merged[protocol.name]]
    }
    traces = {
        nodeid: _trace(origin, nodeid)
        for kept in merged.values()
        for nodeid, (_, origin) in sorted(kept.items())
    }
    started = [r.run["started"] for r in runs if r.run.get("started")]
    finished = [r.run["finished"] for r in runs if r.run.get("finished")]
    # The first shard's key order is an unsharded run's; the values are the merged ones.
    run = {
        # The merged run is the command's whole run, not a shard.
        **{key: value for key, value in runs[0].run.items() if key != "shard"},
        **_run_values(runs),
        "id": rid,
        "seed": seed,
        "dataset_hash": data_hash,
        "started": min(started) if started else None,
        "finished": max(finished) if finished else None,
        "families": families,
    }
    summary = build_run_summary(registry, records, run, seed)
    # Resolved: the parent of "." or "runs/.." is not the folder that holds it.
    write_run_folder(registry, out.resolve(), run, records, traces, summary)
    return out
