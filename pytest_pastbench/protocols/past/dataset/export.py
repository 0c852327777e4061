"""``pastbench export``: the whole dataset as one JSON file (past_dataset.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_pastbench.core.family_files import dataset_hash
from pytest_pastbench.protocols.past.family_files import load_family

from .audit import describe_protocol_family, family_paths

DEFAULT_EXPORT = "past_dataset.json"


def export_dataset(families_root: Path, out: Path, registry: Any) -> dict[str, Any]:
    """Write every family under ``families_root`` (validated) to ``out``; return the document.
    ``registry``: the protocols whose files under the root are not PAST's."""
    families, hashes, versions = [], {}, set()
    for path in family_paths(families_root):
        if describe_protocol_family(path, registry) is not None:
            continue  # a docs/design.md §8 protocol's file: not part of the PAST dataset
        family, file_hash = load_family(path)
        hashes[family.qualified_id] = file_hash
        versions.add(family.version)
        families.append(
            {"capability": family.capability, **family.model_dump(mode="json", exclude_defaults=True)}
        )
    document = {
        "format": "pastbench/dataset-v1",
        "dataset_hash": dataset_hash(hashes),
        # The families' own version tags (v3: one, "3.0"); a mixed set lists each.
        "dataset_versions": sorted(versions),
        "n_families": len(families),
        "n_episodes": sum(len(f["episodes"]) for f in families),
        "families": families,
    }
    out.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return document
