"""The versioned domain service and the tool set agents get."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pytest_pastbench.errors import ToolError
from pytest_pastbench.protocols.intervention.schema import Event, Service
from pytest_pastbench.protocols.intervention.service import SERVICE_INFO_TOOL, DomainService

SERVICE = Service.model_validate(
    {
        "name": "stats-api",
        "version": "v1",
        "tools": {
            "correlation": {
                "description": "Correlation.",
                "params": {"x": {"type": "string"}, "y": {"type": "string"}},
                "returns": {"r": 0.5, "x": "{x}"},
            },
            "save_report": {
                "description": "Save.",
                "params": {"title": {"type": "string"}, "days": {"type": "integer", "required": False}},
                "returns": {"saved": "{title}"},
            },
        },
    }
)
EVENT = Event.model_validate(
    {
        "id": "v2",
        "kind": "schema_change",
        "version": "v2",
        "description": "method required; days gone; export removed",
        "targets": ["q"],
        "changes": {
            "correlation": {
                "description": "Correlation; method=pearson.",
                "params": {"x": {}, "y": {}, "method": {"enum": ["pearson", "spearman"]}},
            },
            "save_report": {
                "description": "Save.",
                "params": {"title": {}},
                "legacy_params": {"days": "ignored since v2"},
            },
            "export_pdf": {"description": "Removed; use export_csv.", "removed": "PDF export is gone"},
        },
    }
)


def test_the_service_validates_against_the_version_in_force() -> None:
    service = DomainService(SERVICE)
    assert service.call("correlation", {"x": "a", "y": "b"}) == {
        "service": "stats-api",
        "version": "v1",
        "r": 0.5,
        "x": "a",
    }
    service.apply(EVENT)
    with pytest.raises(
        ToolError, match=r"stats-api v2: correlation needs argument 'method' \(one of pearson, spearman\)"
    ):
        service.call("correlation", {"x": "a", "y": "b"})
    with pytest.raises(ToolError, match="'method' must be one of pearson, spearman"):
        service.call("correlation", {"x": "a", "y": "b", "method": "kendall"})
    with pytest.raises(ToolError, match="stats-api v2: export_pdf is gone \\(410\\): PDF export is gone"):
        service.call("export_pdf", {})
    with pytest.raises(ToolError, match="has no argument 'colour'"):
        service.call("save_report", {"title": "t", "colour": "red"})
    assert service.call("save_report", {"title": "t", "days": 9})["warnings"] == [
        "days ignored: ignored since v2"
    ]
    assert service.call(SERVICE_INFO_TOOL, {}) == {
        "service": "stats-api",
        "version": "v2",
        "changelog": ["stats-api v2: method required; days gone; export removed"],
    }


def test_types_are_checked() -> None:
    service = DomainService(SERVICE)
    with pytest.raises(ToolError, match="'days' must be of type integer"):
        service.call("save_report", {"title": "t", "days": True})
    with pytest.raises(ToolError, match="'x' must be of type string"):
        service.call("correlation", {"x": 1, "y": "b"})


def test_specs_carry_the_version_tag_and_hide_legacy_parameters() -> None:
    service = DomainService(SERVICE)
    service.apply(EVENT)
    specs = {s["function"]["name"]: s["function"] for s in service.specs()}
    assert specs["correlation"]["description"] == "Correlation; method=pearson. [stats-api v2]"
    assert specs["correlation"]["parameters"]["required"] == ["x", "y", "method"]
    assert specs["correlation"]["parameters"]["properties"]["method"]["enum"] == ["pearson", "spearman"]
    assert list(specs["save_report"]["parameters"]["properties"]) == ["title"]
    assert SERVICE_INFO_TOOL in specs


def test_an_event_that_adds_a_tool(tmp_path: Path) -> None:
    data = yaml.safe_load(EVENT.model_dump_json())
    data["changes"]["request_legal_hold"] = {"description": "Hold.", "params": {"title": {}}}
    service = DomainService(SERVICE)
    service.apply(Event.model_validate(data))
    assert service.call("request_legal_hold", {"title": "t"}) == {"service": "stats-api", "version": "v2"}
