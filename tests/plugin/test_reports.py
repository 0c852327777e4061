"""An item's payload crosses from an xdist worker to the controller as one JSON string and comes
back equal; reports without a payload pass through untouched."""

from __future__ import annotations

import copy
from collections.abc import Generator
from typing import Any

from pytest_pastbench.plugin.reports import pytest_report_from_serializable, pytest_report_to_serializable
from pytest_pastbench.plugin.run_handle import PAYLOAD_ATTR

PAYLOAD = {"record": {"nodeid": "f.yaml::ep01[on]", "score": 0.5, "tags": ["é", None]}, "trace": [{"n": 1}]}


def around(wrapper: Generator[None, Any, Any], inner: Any) -> Any:
    """Run a hook wrapper around an inner result, as pluggy does."""
    next(wrapper)
    try:
        wrapper.send(inner)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the wrapper yielded twice")


def test_a_payload_travels_as_one_string_and_comes_back_equal() -> None:
    data = {"nodeid": "f.yaml::ep01[on]", PAYLOAD_ATTR: copy.deepcopy(PAYLOAD)}
    sent = around(pytest_report_to_serializable(object()), data)
    assert isinstance(sent[PAYLOAD_ATTR], str)
    received = around(pytest_report_from_serializable(sent), "the report")
    assert received == "the report"  # the inner hook's report is returned as it is
    assert sent[PAYLOAD_ATTR] == PAYLOAD


def test_reports_without_a_payload_are_left_alone() -> None:
    for data in ({"nodeid": "t.py::x"}, {"nodeid": "t.py::x", PAYLOAD_ATTR: None}, None):
        assert around(pytest_report_to_serializable(object()), copy.deepcopy(data)) == data
    plain = {"nodeid": "t.py::x"}
    around(pytest_report_from_serializable(plain), None)
    assert plain == {"nodeid": "t.py::x"}
