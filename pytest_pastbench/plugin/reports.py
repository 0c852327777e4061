"""An item's payload on its pytest reports: the status it shows, and how it travels from an xdist
worker to the controller.

It travels as one JSON string. execnet writes a report's attributes in pure Python, value by
value, and a payload (the item's record and its whole trace) is thousands of values: measured on
the memory families' payloads (about 7 KB of JSON each), execnet took 0.55 ms to write one and
0.74 ms to read it, json 0.07 ms and 0.09 ms. A payload is JSON already (it is written to the run
folder as JSON), so the round trip gives back an equal value.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .run_handle import PAYLOAD_ATTR, pastbench_run


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    payload = getattr(report, PAYLOAD_ATTR, None)
    if not payload or report.when != "call" or not report.passed:
        return None
    pastbench = pastbench_run(config)
    return pastbench.registry.of_payload(payload).test_status(payload["record"], config.get_verbosity())


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(report: Any) -> Any:
    data = yield
    if isinstance(data, dict) and isinstance(data.get(PAYLOAD_ATTR), dict):
        data[PAYLOAD_ATTR] = json.dumps(data[PAYLOAD_ATTR])  # a copy of the report's dict: it keeps its own
    return data


@pytest.hookimpl(wrapper=True)
def pytest_report_from_serializable(data: dict[str, Any]) -> Any:
    if isinstance(data.get(PAYLOAD_ATTR), str):
        data[PAYLOAD_ATTR] = json.loads(data[PAYLOAD_ATTR])
    return (yield)
