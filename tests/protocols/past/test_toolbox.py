import json
from pathlib import Path

from pytest_pastbench.core.store import Store
from pytest_pastbench.core.tools import result_text
from pytest_pastbench.protocols.past.schema import WorldSeed
from pytest_pastbench.protocols.past.toolbox import ALL_TOOLS, ToolBox
from pytest_pastbench.protocols.past.world import World


def make_box(tmp_path: Path) -> ToolBox:
    return ToolBox(Store(tmp_path), World(WorldSeed()))


def test_specs_are_openai_function_schemas() -> None:
    specs = ToolBox.specs()
    assert {s["function"]["name"] for s in specs} == set(ALL_TOOLS)
    write = next(s for s in specs if s["function"]["name"] == "memory_write")
    assert write["function"]["parameters"]["required"] == ["text"]
    assert write["function"]["parameters"]["properties"]["tags"]["items"] == {"type": "string"}


def test_a_good_call_runs_and_is_logged(tmp_path: Path) -> None:
    box = make_box(tmp_path)
    call = box.call("memory_write", json.dumps({"text": "prefers metric units"}))
    assert call.ok and call.result == {"id": "m0001"} and call.index == 0
    found = box.call("memory_search", {"query": "metric units"})
    assert json.loads(result_text(found))[0]["text"] == "prefers metric units"


def test_irreversible_tools_are_flagged(tmp_path: Path) -> None:
    box = make_box(tmp_path)
    assert box.call("deploys_create", {"service": "api", "version": "1.2"}).irreversible
    assert not box.call("deploys_list", {}).irreversible


def test_malformed_calls_become_tool_errors_not_exceptions(tmp_path: Path) -> None:
    box = make_box(tmp_path)
    bad = [
        box.call("memory_write", "{not json"),
        box.call("memory_write", "[1, 2]"),
        box.call("memory_write", {}),
        box.call("memory_write", {"text": 5}),
        box.call("memory_write", {"text": "x", "colour": "red"}),
        box.call("launch_missiles", {}),
        box.call("memory_read", {"id": "m0404"}),
        box.call("tickets_create", {"title": "x", "priority": "urgent"}),
    ]
    assert all(not c.ok and c.error for c in bad)
    assert [c.index for c in box.calls] == list(range(len(bad)))
    assert "error" in json.loads(result_text(bad[0]))
