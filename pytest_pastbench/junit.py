"""JUnit XML: per-item properties and run-level summary properties.

Per-item properties travel as ``user_properties`` (they survive xdist). Run-level properties
use the junitxml plugin's object on the controller, because ``record_testsuite_property`` is
dropped under xdist; that private API is touched only here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

MECH_COMPONENTS = ("wp", "ra", "uc", "rh", "pr", "mech")


def item_properties(record: dict[str, Any]) -> list[tuple[str, Any]]:
    props: list[tuple[str, Any]] = [
        ("pastbench.family", record["family"]),
        ("pastbench.capability", record["capability"]),
        ("pastbench.episode", record["episode"]),
        ("pastbench.arm", record["arm"]),
        ("pastbench.trial", record["trial"]),
        ("pastbench.model", record["model"]),
        ("pastbench.score", record["score"]),
        ("pastbench.infra_blocked", record["infra_blocked"]),
    ]
    for session in record.get("sessions") or []:
        props.append((f"pastbench.s.{session['stage']}.{session['index']}", session["s"]))
    for name in MECH_COMPONENTS:
        value = (record.get("mech") or {}).get(name)
        if value is not None:
            props.append((f"pastbench.mech.{name}", value))
    return props


def add_summary_properties(config: pytest.Config, summary: dict[str, Any], run_dir: Path | None) -> None:
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover - pytest moved its private API
        return
    xml = config.stash.get(xml_key, None)
    if xml is None:
        return
    xml.add_global_property("pastbench.run_dir", str(run_dir))
    for config_entry in summary.get("configs", []):
        label = config_entry["label"]
        overall = config_entry["overall"]
        for key in ("s_on", "s_off", "delta", "mech", "n_episodes", "infra_blocked"):
            xml.add_global_property(f"pastbench.{label}.overall.{key}", overall.get(key))
        for name, entry in sorted(config_entry["capabilities"].items()):
            xml.add_global_property(f"pastbench.{label}.{name}.delta", entry.get("delta"))
