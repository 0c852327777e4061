"""JUnit XML: per-item properties and run-level summary properties.

Per-item properties travel as ``user_properties`` (they survive xdist). Run-level properties
use the junitxml plugin's object on the controller, because ``record_testsuite_property`` is
dropped under xdist; that private API is touched only here. The same object also receives one
summary testcase per config × family (``add_family_testcases``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..compat.pytest import junit_xml

# As in sequence_summary.json: 0.6, not the float sum's 0.6000000000000001.
DIGITS = 4


def rounded(props: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return [(name, round(value, DIGITS) if isinstance(value, float) else value) for name, value in props]


def item_properties(record: dict[str, Any], registry: Any) -> list[tuple[str, Any]]:
    """An item record's properties, as its protocol in ``registry`` gives them."""
    return rounded(registry.of_payload(record).junit_properties(record))


def protocol_metric_properties(summary: dict[str, Any], registry: Any) -> list[tuple[str, Any]]:
    """Each protocol's run-level properties: its own (``junit_summary_properties``: PAST's overall
    and capability numbers), else ``pastbench.<protocol>.<config>.<scope>.<metric>`` per gate metric
    (the intervention cells left out), named as a gate names it."""
    # lazy: the baseline code, only when a summary's properties are written
    from ..results.baseline import protocol_gate_metrics

    props: list[tuple[str, Any]] = []
    for protocol in registry:
        own = getattr(protocol, "junit_summary_properties", None)
        props += (
            own(summary)
            if own
            else [
                (f"pastbench.{m.protocol}.{m.config}.{m.scope}.{m.name}", m.value)
                for m in protocol_gate_metrics([protocol], summary)
                if "/" not in m.scope
            ]
        )
    return props


def add_summary_properties(
    config: pytest.Config, summary: dict[str, Any], run_dir: Path | None, registry: Any
) -> None:
    xml = junit_xml(config)
    if xml is None:
        return
    props = [("pastbench.run_dir", str(run_dir)), *protocol_metric_properties(summary, registry)]
    for name, value in rounded(props):
        xml.add_global_property(name, value)


SUMMARY_CLASSNAME = "pastbench.summary"
FAMILY_KEYS = ("delta", "s_on", "s_off", "mech", "n_episodes", "infra_blocked")


def family_testcase_properties(entry: dict[str, Any]) -> list[tuple[str, Any]]:
    """The properties of one family's summary testcase (values as in sequence_summary.json)."""
    ci = entry.get("delta_ci") or [None, None]
    props: list[tuple[str, Any]] = [(f"pastbench.{key}", entry.get(key)) for key in FAMILY_KEYS]
    props[1:1] = [("pastbench.delta_ci.low", ci[0]), ("pastbench.delta_ci.high", ci[1])]
    props.append(("pastbench.capability", entry.get("capability")))
    return rounded(props)


def add_family_testcases(config: pytest.Config, summary: dict[str, Any]) -> int:
    """One ``<testcase classname="pastbench.summary" name="<label>::<family>">`` per config ×
    family, its numbers as ``<property>``s, so CI dashboards that chart JUnit testcases can
    chart Δ per family. Returns how many were added.

    Called on the controller at session finish, before the junitxml plugin writes the file.
    Under xdist only the controller has the junitxml object (workers never open the file), so
    this is xdist-safe by construction. Each testcase goes through the plugin's own report
    handling (a synthetic passed ``call`` and ``teardown`` report fed to its
    ``pytest_runtest_logreport``), so counts, ``--junitprefix``, the junit family and the
    property escaping behave exactly as for a real test; only the classname and name are
    overridden, through the same attribute mechanism as ``record_xml_attribute``.
    """
    xml = junit_xml(config)
    if xml is None:
        return 0
    added = 0
    for config_entry in summary.get("configs", []):
        label = config_entry["label"]
        for family, entry in sorted(config_entry.get("families", {}).items()):
            name = f"{label}::{family}"
            # The synthetic node id only keys the plugin's bookkeeping; it never reaches the XML.
            nodeid = f"{SUMMARY_CLASSNAME}::{name}"
            location = ("sequence_summary.json", None, name)
            reports = [
                pytest.TestReport(nodeid, location, {}, "passed", None, when, user_properties=props)
                for when, props in (("call", []), ("teardown", family_testcase_properties(entry)))
            ]
            reporter = xml.node_reporter(reports[0])
            reporter.add_attribute("classname", SUMMARY_CLASSNAME)
            reporter.add_attribute("name", name)
            for report in reports:
                xml.pytest_runtest_logreport(report)
            added += 1
    return added
