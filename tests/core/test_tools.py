"""The tools every protocol shares: specs as OpenAI function schemas, argument validation, the
memory and skill tools over one store, and calls logged as ``ToolCall`` whatever the model sends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.core.records import StoreEntry, ToolCall
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.tools import (
    MAX_ARGUMENT_CHARS,
    MAX_NAME_CHARS,
    STORE_READS,
    STORE_TOOLS,
    MemoryTools,
    ToolSpec,
    irreversible_names,
    param_spec,
    printable_name,
    record_call,
    result_text,
    result_value,
    validated,
)
from pytest_pastbench.errors import InfraError, ToolError

SEND = ToolSpec(
    "send",
    "Send a message.",
    {"to": param_spec("string", "recipient"), "n": param_spec("integer", "copies", required=False)},
    irreversible=True,
)


def test_a_spec_is_an_openai_function_with_its_required_params_and_string_arrays() -> None:
    [write] = [s for s in STORE_TOOLS if s.name == "memory_write"]
    function = write.to_openai()["function"]
    assert function["name"] == "memory_write"
    assert function["parameters"]["required"] == ["text"]  # tags are optional
    assert function["parameters"]["properties"]["tags"] == {
        "type": "array",
        "description": "optional tags",
        "items": {"type": "string"},
    }


def test_irreversible_names_are_the_specs_declared_so() -> None:
    assert irreversible_names([SEND, *STORE_TOOLS]) == frozenset({"send"})
    assert irreversible_names(STORE_TOOLS) == frozenset()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "send needs argument 'to'"),
        ({"to": 3}, "send: 'to' must be a string"),
        ({"to": "a", "n": True}, "send: 'n' must be an integer"),  # JSON true is not a number
        ({"to": "a", "cc": "b"}, "send has no argument(s) 'cc'"),
    ],
)
def test_a_bad_argument_is_a_tool_error_naming_it(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolError) as raised:
        validated(SEND, "send", arguments)
    assert str(raised.value) == message


def test_an_optional_argument_may_be_missing_or_null_and_an_unknown_tool_is_named() -> None:
    assert validated(SEND, "send", {"to": "a", "n": None}) is SEND
    with pytest.raises(ToolError, match="unknown tool 'nope'"):
        validated(None, "nope", {})


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ("{not json", "arguments are not valid JSON"),
        ("[1, 2]", "arguments must be a JSON object, not an array"),
        ("true", "arguments must be a JSON object, not a boolean"),
        (b"\xff", "arguments are not UTF-8 text"),
        ('{"to": "\\ud800"}', "arguments must be valid Unicode text (no lone surrogates)"),
        ({1: "a"}, "argument names must be strings"),
        ("x" * (MAX_ARGUMENT_CHARS + 1), "the limit is"),
    ],
)
def test_whatever_the_model_sends_is_a_logged_call_not_an_exception(raw: Any, error: str) -> None:
    ran: list[dict[str, Any]] = []
    call = record_call(4, "send", raw, ran.append)
    assert (call.index, call.name, call.ok, ran) == (4, "send", False, [])
    assert call.error is not None and error in call.error


def test_a_good_call_runs_with_its_parsed_arguments() -> None:
    call = record_call(0, "send", '{"to": "ops"}', lambda args: {"sent": args["to"]}, irreversible=True)
    assert call.ok and call.arguments == {"to": "ops"} and call.result == {"sent": "ops"}
    assert call.irreversible
    assert record_call(1, "send", None, lambda args: len(args)).result == 0  # no arguments: {}


def test_a_harness_bug_is_a_visible_tool_error_and_an_infra_failure_propagates() -> None:
    def broken(args: dict[str, Any]) -> Any:
        raise KeyError("slot")

    call = record_call(0, "send", "{}", broken)
    assert not call.ok and call.error == "internal error in tool 'send': KeyError: 'slot'"

    def down(args: dict[str, Any]) -> Any:
        raise InfraError("sandbox gone")

    with pytest.raises(InfraError):
        record_call(0, "send", "{}", down)


def test_a_protocol_refusal_reads_as_its_own_text() -> None:
    def refuse(args: dict[str, Any]) -> Any:
        raise LookupError("no such seat")

    call = record_call(
        0, "book", "{}", refuse, refusals=(LookupError,), refusal_text=lambda e: f"refused: {e}"
    )
    assert not call.ok and call.error == "refused: no such seat"


def test_printable_names_are_strings_without_surrogates_and_bounded() -> None:
    assert printable_name(["a"]) == "['a']"
    assert printable_name("x\ud800y") == "x\ufffdy"
    long = printable_name("n" * (MAX_NAME_CHARS + 50))
    assert len(long) == MAX_NAME_CHARS + 1 and long.endswith("…")


def test_the_agent_reads_json_or_the_verbatim_text() -> None:
    ok = ToolCall(index=0, name="t", result={"a": "é"})
    assert result_text(ok) == '{"a": "é"}' and result_value(ok) == {"a": "é"}
    failed = ToolCall(index=0, name="t", ok=False, error="bad")
    assert result_text(failed) == '{"error": "bad"}' and result_value(failed) == {"error": "bad"}
    raw = ToolCall(index=0, name="t", result="plain <obs>", verbatim=True)
    assert result_text(raw) == "plain <obs>" and result_value(raw) == "plain <obs>"


def test_memory_tools_write_search_and_read_through_one_store(tmp_path: Path) -> None:
    tools = MemoryTools(Store(tmp_path))
    written = tools.run("memory_write", {"text": "Dock 4B for Kestrel", "tags": ["docks"]})
    [found] = tools.run("memory_search", {"query": "Kestrel"})
    assert found == {"id": written["id"], "text": "Dock 4B for Kestrel", "tags": ["docks"]}
    assert tools.run("memory_read", {"id": written["id"]})["text"] == "Dock 4B for Kestrel"
    with pytest.raises(ToolError, match="memory_update needs argument 'text'"):
        tools.run("memory_update", {"id": written["id"]})
    with pytest.raises(ToolError, match="unknown tool 'world_call'"):
        tools.run("world_call", {})


def test_a_read_only_store_offers_the_read_tools_only(tmp_path: Path) -> None:
    tools = MemoryTools(Store(tmp_path), writable=False)
    assert {spec.name for spec in tools.specs()} == STORE_READS
    with pytest.raises(ToolError, match="unknown tool 'memory_write'"):
        tools.run("memory_write", {"text": "x"})


def test_render_offers_structured_fields_and_a_superseded_note_is_hidden(tmp_path: Path) -> None:
    tools = MemoryTools(Store(tmp_path), clock="2026-03-01T00:00:00Z")
    assert tools.read_clock() is None  # base tools: reads hide nothing but deletes
    assert "entity" not in tools.spec("memory_write").params  # type: ignore[union-attr]
    tools.render = True
    assert tools.read_clock() == "2026-03-01T00:00:00Z"
    old = tools.run("memory_write", {"text": "Kestrel uses Dock 4B", "entity": "Kestrel"})["id"]
    new = tools.run("memory_write", {"text": "Kestrel uses Dock 11", "entity": "Kestrel", "supersedes": old})
    assert new["superseded"] == old
    assert [hit["text"] for hit in tools.run("memory_search", {"query": "Kestrel"})] == [
        "Kestrel uses Dock 11"
    ]
    assert tools.run("memory_search", {"query": "Kestrel"})[0]["entity"] == "Kestrel"


def test_entries_put_in_front_of_the_agent_are_reported_and_an_empty_list_is_not(tmp_path: Path) -> None:
    heard: list[list[StoreEntry]] = []
    store = Store(tmp_path)
    tools = MemoryTools(store, on_shown=heard.append)
    entry = store.write_memory("a note")
    tools.shown([])
    tools.shown([entry])
    assert heard == [[entry]]
