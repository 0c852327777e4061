"""ProtocolBase's defaults for a protocol whose records are plain JSON: identity, records in and
out of protocol_results.json, its summary section and terminal text, resume values, and the
small helpers every protocol uses; and ProtocolItem's shared step, ``measure_item``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest

from pytest_pastbench.errors import InfraError, ItemInfraError
from pytest_pastbench.plugin.option_spec import OptionGroup, OptionSpec
from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.base import (
    BenchProtocol,
    ProtocolBase,
    ProtocolItem,
    known_units,
    tool_names,
)
from pytest_pastbench.results.run_folder import PROTOCOL_RESULTS_FILE
from tests.protocols.stand_ins import item_of, run_of
from tests.recording_terminal import Terminal


class Toy(ProtocolBase):
    """The least a protocol writes: its name, a summary and its text."""

    name = "toy"
    resume_fields: ClassVar[dict[str, str]] = {"trials": "--pastbench-trials"}
    options = OptionGroup(
        "toy",
        "toy protocol",
        (
            OptionSpec("toy-level", "changes what items measure", kind=int, default=2, resume=True),
            OptionSpec("toy-colour", "only how it looks"),
        ),
    )

    def summarize(self, records: list[dict[str, Any]], seed: int) -> dict[str, Any]:
        return {"n": len(records), "seed": seed}

    def render_section(self, section: dict[str, Any]) -> str:
        return f"{section.get('n', 0)} items"


def test_a_subclass_is_a_bench_protocol_that_claims_nothing_by_default(tmp_path: Path) -> None:
    toy = Toy()
    assert isinstance(toy, BenchProtocol)
    family = tmp_path / "retail_l2.yaml"
    family.write_text("format: pastbench/toy\n")
    assert not toy.claims(family)
    identity, digest = toy.family_identity(family)
    assert identity == "toy.retail_l2" and len(digest) == 64
    family.write_text("format: pastbench/toy\n# changed\n")
    assert toy.family_identity(family)[1] != digest
    # The optional parts the shared layers ask for: none by default.
    assert (toy.offline_policy(), toy.claim_reader(), toy.family_schema(), toy.empty_world()) == (None,) * 4
    assert toy.gate_metrics({}) == [] and toy.figures() == () and toy.offline_models() == {}


def test_records_go_into_protocol_results_by_protocol_and_come_back(tmp_path: Path) -> None:
    toy, other = Toy(), Toy()
    other.name = "other"
    documents: dict[str, dict[str, Any]] = {}
    run = {"id": "r1"}
    toy.add_to_results(documents, run, [{"nodeid": "a::t"}], {})
    other.add_to_results(documents, run, [{"nodeid": "b::o"}], {})
    toy.add_to_results(documents, run, [], {})  # no records: nothing changes
    document = documents[PROTOCOL_RESULTS_FILE]
    assert list(document["protocols"]) == ["other", "toy"] and document["run"] == run
    (tmp_path / PROTOCOL_RESULTS_FILE).write_text(json.dumps(document))
    assert toy.read_records(tmp_path) == [{"nodeid": "a::t"}]
    assert Toy().read_records(tmp_path / "absent") == []


def test_a_record_needs_a_nodeid_and_volatile_fields_do_not_compare() -> None:
    toy = Toy()
    assert toy.load_record({"nodeid": "a::t", "x": 1}) == {"nodeid": "a::t", "x": 1}
    for bad in ({"x": 1}, {"nodeid": 3}, ["a::t"]):
        with pytest.raises(ValueError, match="record.nodeid"):
            toy.load_record(bad)  # type: ignore[arg-type]
    assert toy.comparable({"nodeid": "a", "wall_s": 3.2, "dataset_hash": "h", "score": 1}) == {
        "nodeid": "a",
        "score": 1,
    }


def test_the_summary_section_and_its_terminal_text() -> None:
    toy, summary = Toy(), {}
    toy.add_to_summary(summary, [], seed=1)
    assert summary == {} and toy.section(summary) is None
    terminal = Terminal()
    toy.render(terminal, summary, [])
    assert terminal.lines == []  # no items of its own: no section
    toy.add_to_summary(summary, [{"nodeid": "a"}, {"nodeid": "b"}], seed=7)
    assert toy.section(summary) == {"n": 2, "seed": 7}
    toy.render(terminal, summary, [])
    assert terminal.lines == ["== pastbench: toy", "2 items"]
    assert toy.html_section(summary).context == {"text": "2 items"}


def test_resume_values_are_the_resume_fields_and_resume_options() -> None:
    options = RunOptions(trials=3, protocol_options={"toy_colour": "red"})
    assert Toy().resume_values(options) == {"trials": 3, "toy_level": 2}  # the declared default
    given = RunOptions(trials=1, protocol_options={"toy_level": 5})
    assert Toy().resume_values(given) == {"trials": 1, "toy_level": 5}


def test_a_missing_gate_scope_names_the_scopes_there_are() -> None:
    toy = Toy()
    assert toy.gate_scope_problem("toy.L1.hidden", "toy.L1", ["toy.L2"]) == (
        "no toy.L1.hidden (scopes with hidden: toy.L2)"
    )
    assert toy.gate_scope_problem("toy.delta", "toy", []) == "no toy.delta (scopes with delta: none)"


def test_known_units_drop_empty_strata_and_tool_names_read_functions() -> None:
    assert known_units({"b": {"u1": 1.0}, "a": {}, "c": {"u2": 0.0}}) == {"b": {"u1": 1.0}, "c": {"u2": 0.0}}
    assert known_units({"a": {}}) is None and known_units({}) is None
    tools = [{"type": "function", "function": {"name": "memory_write"}}, {"type": "other"}, "junk"]
    assert tool_names(tools) == {"memory_write"}  # type: ignore[arg-type]


class Measured(ProtocolItem):
    protocol = "toy"
    outcome: Any = None

    def measure(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome

    def secrets(self) -> list[str]:
        return ["sk-live-123"]


def test_measure_item_keeps_what_the_items_measure_returned() -> None:
    item = item_of(Measured, RunOptions(), outcome=({"headline": "reward 1"}, [{"event": "served"}]))
    item.measure_item()
    assert (item.record, item.trace, item.infra_error) == (
        {"headline": "reward 1"},
        [{"event": "served"}],
        None,
    )


def test_an_infra_error_in_measure_is_a_redacted_infra_blocked_error() -> None:
    item = item_of(Measured, RunOptions(), outcome=InfraError("401: key sk-live-123 rejected"))
    with pytest.raises(ItemInfraError, match="^infra_blocked: 401: key .* rejected$") as raised:
        item.measure_item()
    assert "sk-live-123" not in str(raised.value) and "sk-live-123" not in item.infra_error
    assert item.record is None and item.full_record()["reason"] == item.infra_error
    # Any other error is the harness's: it propagates as it is (pytest reports it with its traceback).
    item.outcome = ValueError("a bug")
    with pytest.raises(ValueError, match="a bug"):
        item.measure_item()


def test_setup_hands_the_item_to_the_run_which_decides_the_thread() -> None:
    item = item_of(Measured, RunOptions(), outcome=({"headline": "reward 1"}, []))
    handed: list[Any] = []
    run_of(item).measure = handed.append  # type: ignore[attr-defined]
    item.setup()
    assert handed == [item] and item.record is None  # measured by the run, not by setup itself
