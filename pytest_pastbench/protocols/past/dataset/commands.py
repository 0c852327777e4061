"""What ``pastbench schema``, ``export`` and ``validate`` do for PAST's families (the protocol's
``family_schema``, ``export_dataset`` and ``validate``; the commands themselves are in cli/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .audit import audit, counts_table, shortcuts_table
from .export import export_dataset


def export_line(families_root: Path, out: Path, registry: Any) -> str:
    """Export the families under ``families_root`` to ``out``; what was written, in words."""
    document = export_dataset(families_root, out, registry)
    return (
        f"wrote {out}: {document['n_families']} families, {document['n_episodes']} episodes, "
        f"dataset hash {document['dataset_hash']}"
    )


def validate_text(
    paths: list[Path], registry: Any, *, run_policies: bool, check_counts: bool
) -> tuple[str, bool]:
    """The schema of every file, then the dataset audit: (the counts table and every failure, passed)."""
    report = audit(paths, registry, run_policies=run_policies, check_counts=check_counts)
    lines = [
        f"ok   {path} ({family.qualified_id}, {len(family.episodes)} episodes)"
        for path, family in report.families.items()
    ]
    lines += [f"ok   {path} ({described})" for path, described in report.protocol_families.items()]
    lines += ["", counts_table(report, with_expected=check_counts), ""]
    if report.shortcuts:
        lines += [shortcuts_table(report), ""]
    lines += [*map(str, report.notes), *map(str, report.findings)]  # findings print as their text
    if report.ok:
        oracle = "" if report.oracle_min is None else f"; oracle min s_e {report.oracle_min:.2f}"
        if report.empty_max is not None:
            oracle += f"; empty-answer max s_e {report.empty_max:.2f}"
        lines.append(f"audit passed: {len(report.families)} families{oracle}")
    else:
        lines.append(f"audit failed: {len(report.findings)} problem(s)")
    return "\n".join(lines), report.ok
