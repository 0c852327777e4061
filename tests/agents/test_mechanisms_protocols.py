"""Hermes' mechanisms on the stream, intervention and plasticity tool boxes, and their
--pastbench-ablation tables: E1 holds a call the box declares irreversible, E2 hides a superseded
entry, a mechanism that cannot act on a box says why, and each protocol prints its table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_pastbench.agents.base import HermesAgent
from pytest_pastbench.agents.mechanisms import mechanism_use
from pytest_pastbench.agents.session_runner import run_session
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.trace import TraceRecorder
from pytest_pastbench.protocols.intervention.schema import Service
from pytest_pastbench.protocols.intervention.service import DomainService
from pytest_pastbench.protocols.intervention.toolbox import DomainToolBox
from pytest_pastbench.protocols.plasticity.artifacts import Inventory
from pytest_pastbench.protocols.plasticity.toolbox import ArtifactToolBox
from pytest_pastbench.protocols.stream.toolbox import StoreTools
from tests.agents.test_base import ScriptedModel, answer, call
from tests.protocols.intervention.samples import TINY, InterventionPolicyClient
from tests.protocols.plasticity.helpers import SMALL_TEXT_FAMILY, write_family

SHARE_SERVICE = Service.model_validate(
    {
        "name": "reports-api",
        "version": "v1",
        "tools": {
            "share_report": {
                "description": "Share a saved report with another party.",
                "params": {"title": {"type": "string"}, "audience": {"type": "string"}},
                "returns": {"shared": "{title}"},
                "irreversible": True,
            },
            "mean": {"description": "Mean of a series.", "params": {"series": {"type": "string"}}},
        },
    }
)


def mechanism_events(trace: TraceRecorder) -> list[dict[str, Any]]:
    return [e for e in trace.events if e["kind"] == "mechanism"]


# -- the mechanisms on the boxes ------------------------------------------------------------------


def test_e1_holds_a_call_the_intervention_box_declares_irreversible(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_memory("Reports shared with external parties must be redacted first.")
    box = DomainToolBox(store, DomainService(SHARE_SERVICE))
    assert box.irreversible == {"share_report"}
    share = call("share_report", title="q3 revenue", audience="external")
    model = ScriptedModel([share, share, call("mean", series="a"), answer("shared")])
    trace = TraceRecorder()
    run_session(
        HermesAgent(mechanisms=["E1"]), model, box, ["Share the q3 revenue report externally."], trace=trace
    )
    held = json.loads(model.seen[1][-1]["content"])
    assert held["held"] == "E1 plan" and "redacted" in held["notes"][0]["text"]
    # The re-issued call ran once; the reversible one was never held.
    assert [(c.name, c.irreversible) for c in box.calls] == [("share_report", True), ("mean", False)]
    assert [(e["mechanism"], e["action"], e.get("tool")) for e in mechanism_events(trace)] == [
        ("E1", "held", "share_report")
    ]


def test_the_offline_intervention_policy_re_issues_a_held_call(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write_memory("Team reports are shared on Fridays, after the review.")
    box = DomainToolBox(store, DomainService(SHARE_SERVICE))
    trace = TraceRecorder()
    turn = ["Share the report with title=q3 and audience=team."]
    run_session(HermesAgent(mechanisms=["E1"]), InterventionPolicyClient("recall"), box, turn, trace=trace)
    assert [(e["mechanism"], e["action"]) for e in mechanism_events(trace)] == [("E1", "held")]
    shares = [c for c in box.calls if c.name == "share_report"]
    assert len(shares) == 1 and shares[0].ok and shares[0].arguments == {"title": "q3", "audience": "team"}


def test_e1_cannot_apply_where_nothing_is_irreversible(tmp_path: Path) -> None:
    box = StoreTools(Store(tmp_path))
    trace = TraceRecorder()
    run_session(HermesAgent(mechanisms=["E1"]), ScriptedModel([answer("ok")]), box, ["hi"], trace=trace)
    assert [(e["action"], e["why"]) for e in mechanism_events(trace)] == [
        ("cannot_apply", "no tool of the session is declared irreversible")
    ]


def test_e2_hides_a_superseded_entry_in_the_stream_box(tmp_path: Path) -> None:
    store = Store(tmp_path)
    old = store.write_memory("Gift card orders: cancel them when asked.")
    new = store.write_memory("Gift card orders: refuse cancellation (payment_restricted).")
    store.update_memory(old.id, superseded_by=new.id)
    search = call("memory_search", query="gift card orders cancel")
    for mechanisms, shown in (([], {old.id, new.id}), (["E2"], {new.id})):
        box = StoreTools(store)
        trace = TraceRecorder()
        run_session(
            HermesAgent(mechanisms=mechanisms), ScriptedModel([search, answer("ok")]), box, ["?"], trace=trace
        )
        assert {hit["id"] for hit in box.calls[0].result} == shown
        hid = [e["entries"] for e in mechanism_events(trace) if e["action"] == "hid"]
        assert hid == ([[old.id]] if mechanisms else [])


def test_a_frozen_store_and_a_read_only_inventory_say_why_e2_and_e5_cannot_apply(tmp_path: Path) -> None:
    inventory = Inventory(tmp_path / "inventory")
    inventory.store.write_skill("shipping charge", ["weigh the parcel", "apply the tariff"], ["shipping"])
    boxes = {
        "frozen": StoreTools(Store(tmp_path / "s"), persists=False),
        "inventory": ArtifactToolBox(inventory),
    }
    reasons = {}
    for name, box in boxes.items():
        trace = TraceRecorder()
        turn = ["What shipping charge applies to a 3 kg parcel?"]
        run_session(
            HermesAgent(mechanisms=["E2", "E3", "E5"]), ScriptedModel([answer("ok")]), box, turn, trace=trace
        )
        reasons[name] = mechanism_use(trace.events, sessions=1)
    assert reasons["frozen"]["cannot_apply"] == {
        "E5": {
            "sessions": 1,
            "why": "what the session writes is discarded when it ends (no later session sees it)",
        }
    }
    assert set(reasons["inventory"]["cannot_apply"]) == {"E2", "E5"}
    assert reasons["inventory"]["cannot_apply"]["E5"]["why"].startswith("the session's memory is read-only")
    # E3 offered the inventory's skill, and the plasticity taxonomy counts it as used.
    assert reasons["inventory"]["acted"]["E3"] == 1
    assert boxes["inventory"].used == ["skill:shipping charge"]
    # A read-only box offers no write tool, and refuses one.
    names = {t["function"]["name"] for t in boxes["inventory"].specs()}
    assert "memory_write" not in names and boxes["inventory"].memory.spec("memory_write") is None


def test_e4_counts_the_inventory_s_own_reads_as_a_look_at_what_is_kept(tmp_path: Path) -> None:
    inventory = Inventory(tmp_path / "inventory")
    inventory.store.write_memory("Shipping charge: 3.5 + 0.8 per kg + 0.05 per km.")
    turn = ["What shipping charge applies to a 3 kg parcel sent 100 km?"]
    sent_back = {}
    for first in ("tool_list", None):
        script = [call(first), answer("8.9"), answer("8.9")] if first else [answer("8.9"), answer("8.9")]
        trace = TraceRecorder()
        run_session(
            HermesAgent(mechanisms=["E4"]),
            ScriptedModel(script),
            ArtifactToolBox(inventory),
            turn,
            trace=trace,
        )
        sent_back[first] = [e["action"] for e in mechanism_events(trace)]
    assert sent_back == {"tool_list": [], None: ["sent_back"]}


def test_e3_offers_skills_for_a_request_longer_than_a_store_query(tmp_path: Path) -> None:
    # A plasticity reflection prompt runs to thousands of characters; the store refuses such a
    # query, so the runtime searches with the request's first words instead of failing the item.
    inventory = Inventory(tmp_path / "inventory")
    inventory.store.write_skill("shipping charge", ["weigh the parcel", "apply the tariff"], ["shipping"])
    box = ArtifactToolBox(inventory, reflection=True)
    turn = ["Reflection on the shipping charge episodes. " + "Episode feedback follows. " * 200]
    trace = TraceRecorder()
    model = ScriptedModel([answer("ok"), answer("ok")])
    run_session(HermesAgent(mechanisms=["E3", "E4"]), model, box, turn, trace=trace)
    actions = [(e["mechanism"], e["action"]) for e in mechanism_events(trace)]
    assert actions == [("E3", "injected"), ("E4", "sent_back")]


# -- the tables through pytest --------------------------------------------------------------------

TINY_STREAM = {
    "format": "pastbench/stream-v1",
    "id": "tiny_retail",
    "version": 1,
    "domain": "retail",
    "tier": "L1",
    "seed": 5,
    "windows": 2,
    "scale": {"sample": {"serving": 6, "test": 3}, "full": {"serving": 6, "test": 3}},
    "harnesses": ["blind", "own"],
    "rules": [
        {
            "id": "D1",
            "meaning": "Block cancellation of a pending order paid with a gift card.",
            "when": {"action": "cancel", "status": "pending", "payment": "gift_card"},
            "answer": "refuse:payment_restricted",
        }
    ],
    "activation": {"D1": "XX"},
}
CURATOR = "--pastbench-model=pastbench/curator"
TABLE_HEAD = "*mechanisms*n*Δ vs none [[]95% CI[]]*acted in (sessions)*note*"


def ablation_section(pytester: pytest.Pytester, protocol: str) -> dict[str, Any]:
    summary = json.loads((pytester.path / "reports" / "abl" / "sequence_summary.json").read_text())
    return summary["protocols"][protocol]["ablation"]


def run_ablation(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    result = pytester.runpytest_subprocess(
        "families", CURATOR, "--pastbench-ablation", "--pastbench-run-id=abl", *args
    )
    assert result.ret == 0, result.stdout.str()[-3000:]
    return result


def set_names(rows: list[dict[str, Any]]) -> list[list[str]]:
    return [r["mechanisms"] for r in rows]


ALL = ["E1", "E2", "E3", "E4", "E5"]
SEVEN = [[], ["E1"], ["E2"], ["E3"], ["E4"], ["E5"], ALL]


def test_the_stream_ablation_table(pytester: pytest.Pytester) -> None:
    folder = pytester.path / "families" / "streams"
    folder.mkdir(parents=True)
    (folder / "tiny_retail.yaml").write_text(yaml.safe_dump(TINY_STREAM, sort_keys=False))
    result = run_ablation(pytester)
    result.stdout.fnmatch_lines(
        [
            "*pastbench: stream mechanism ablation*",
            "harness*" + TABLE_HEAD.lstrip("*"),
            "blind*none*(reference)*",
            "blind*all*E1, E2, E3, E4, E5 cannot apply: the session offers no memory or skill tools",
            "own*E1 * E1 cannot apply: no tool of the session is declared irreversible",
            "own*E5 * E5 cannot apply in */* sessions: what the session writes is discarded when it ends*",
        ]
    )
    section = ablation_section(pytester, "stream")
    rows = section["rows"]
    assert [r["group"] for r in rows] == ["blind"] * 7 + ["own"] * 7
    assert set_names(rows[7:]) == SEVEN
    own = {",".join(r["mechanisms"]) or "none": r for r in rows[7:]}
    # Test tickets are frozen (E5 blocked there) but serving sessions keep what they write.
    assert 0 < own["E5"]["cannot_apply"]["E5"]["sessions"] < own["E5"]["sessions"]
    assert "E3" not in own["E3"]["cannot_apply"] and own["none"]["delta"] is None
    trace_dir = pytester.path / "reports" / "abl" / "traces"
    traces = "\n".join(p.read_text() for p in sorted(trace_dir.rglob("*")) if p.is_file())
    assert '"kind": "mechanism"' in traces and '"cannot_apply"' in traces


# The power profile also keeps a procedure as a skill (E3 offers it when a request matches it).
WITH_SKILL = """    skills:
      - id: corr
        name: compute correlation
        steps: ['call correlation {"x": "<x>", "y": "<y>"}']
        tags: [stats-api v1]
        depends_on: [tool:correlation]
"""


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_the_intervention_ablation_table(pytester: pytest.Pytester) -> None:
    folder = pytester.path / "families" / "interventions"
    folder.mkdir(parents=True)
    (folder / "tiny.yaml").write_text(TINY + WITH_SKILL)
    result = run_ablation(pytester)
    result.stdout.fnmatch_lines(
        [
            "*pastbench: intervention mechanism ablation*",
            "mechanisms*n*ρ [[]95% CI[]]*Δ vs none*",
            "none * 2 * (reference)*",
            "E1 * 2 * E1 cannot apply: no tool of the session is declared irreversible",
            "E3 * 2 * —",
        ]
    )
    rows = ablation_section(pytester, "intervention")["rows"]
    assert set_names(rows) == SEVEN
    assert all(r["n"] == 2 and r["score_ci"] is not None for r in rows)  # ρ's Wilson interval
    assert all(r["delta_ci"] is not None for r in rows[1:])  # two paired profiles: a bootstrap CI
    # E3 offers the power profile's stored procedure at the start of its correlation sessions.
    assert rows[3]["mechanisms"] == ["E3"] and rows[3]["acted"]["E3"] > 0


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_the_plasticity_ablation_table(pytester: pytest.Pytester) -> None:
    family = {**SMALL_TEXT_FAMILY, "checkpoints": 1, "splits": {"train": 2, "id": 2, "ood": 1}}
    write_family(pytester.path / "families" / "plasticity", family)
    result = run_ablation(pytester)
    result.stdout.fnmatch_lines(
        [
            "*pastbench: plasticity mechanism ablation*",
            "arm*mechanisms*n*ID at last checkpoint*",
            "off*E2 * E2 cannot apply: the session's memory is read-only (nothing is written, superseded*",
            "on*all * E1 cannot apply: *; E2 cannot apply: *; E5 cannot apply: *read-only (nothing to write)",
        ]
    )
    rows = ablation_section(pytester, "plasticity")["rows"]
    assert [r["group"] for r in rows] == ["off"] * 7 + ["on"] * 7
    assert set_names(rows[7:]) == SEVEN
