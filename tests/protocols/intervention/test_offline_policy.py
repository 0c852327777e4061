"""The intervention reference policies after a schema change, one session each through the real
agent loop: blind builds every call from the current schema, recall follows its stored procedure
literally and reports the error, the curator sees the stale version tag, rebuilds the call and
repairs the note, and acknowledges what it cannot do with the alternative the service names."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.agents.base import HermesAgent
from pytest_pastbench.agents.session_runner import run_session
from pytest_pastbench.core.records import SessionRecord
from pytest_pastbench.core.store import Store
from pytest_pastbench.protocols.intervention.collect import load_intervention_family
from pytest_pastbench.protocols.intervention.engine import seed_store
from pytest_pastbench.protocols.intervention.schema import InterventionFamily
from pytest_pastbench.protocols.intervention.service import DomainService
from pytest_pastbench.protocols.intervention.toolbox import DomainToolBox
from tests.protocols.intervention.samples import TINY, InterventionPolicyClient

ASK = "Compute the correlation between x=a and y=b."


@pytest.fixture
def tiny(tmp_path: Path) -> InterventionFamily:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return load_intervention_family(path)


def after_the_event(
    family: InterventionFamily, root: Path, policy: str, ask: str = ASK
) -> tuple[SessionRecord, Store]:
    """One session of ``policy`` on the power profile's store (a v1-tagged correlation procedure)
    once the service is at v2, where correlation requires ``method``."""
    store = Store(root / policy)
    seed_store(store, family.profiles["power"])
    service = DomainService(family.service)
    service.apply(family.event("method"))
    store.session = 1
    run = run_session(HermesAgent(), InterventionPolicyClient(policy), DomainToolBox(store, service), [ask])
    return run, store


def domain_calls(run: SessionRecord) -> list[tuple[str, dict, bool]]:
    return [(c.name, c.arguments, c.ok) for c in run.tool_calls if c.name == "correlation"]


def howto(store: Store) -> str:
    return next(e.text for e in store.entries() if "call correlation" in e.text)


def test_blind_never_reads_the_store_and_fills_a_required_enum_from_the_schema(
    tiny: InterventionFamily, tmp_path: Path
) -> None:
    run, _ = after_the_event(tiny, tmp_path, "blind")
    assert domain_calls(run) == [("correlation", {"x": "a", "y": "b", "method": "pearson"}, True)]
    assert not any(c.name.startswith(("memory_", "skill_")) for c in run.tool_calls)


def test_recall_follows_the_stale_procedure_literally_and_never_repairs_it(
    tiny: InterventionFamily, tmp_path: Path
) -> None:
    run, store = after_the_event(tiny, tmp_path, "recall")
    assert [(name, args) for name, args, _ in domain_calls(run)] == [("correlation", {"x": "a", "y": "b"})]
    assert not domain_calls(run)[0][2] and "I could not complete this with correlation" in run.answer
    assert "Next step" not in run.answer  # the static policy proposes nothing
    assert "stats-api v1" in howto(store)


def test_the_curator_rebuilds_a_stale_procedure_and_rewrites_it_with_the_new_tag(
    tiny: InterventionFamily, tmp_path: Path
) -> None:
    run, store = after_the_event(tiny, tmp_path, "curator")
    assert domain_calls(run) == [("correlation", {"x": "a", "y": "b", "method": "pearson"}, True)]
    repaired = howto(store)
    assert "stats-api v2" in repaired and '"method": "pearson"' in repaired and '"<x>"' in repaired


def test_the_curator_acknowledges_an_unsupported_request_and_names_the_allowed_values(
    tiny: InterventionFamily, tmp_path: Path
) -> None:
    ask = "Compute the correlation between x=a and y=b with method=kendall."
    run, _ = after_the_event(tiny, tmp_path, "curator", ask)
    assert "I could not complete this with correlation" in run.answer
    assert "Next step: use one of" in run.answer and "pearson" in run.answer.split("Next step")[1]
