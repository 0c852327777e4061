"""An intervention item (``InterventionItem``): measuring hands its event, profile and the run's
--pastbench-intervention-m/-tau to the engine in a store folder removed after, and even a blocked
item's record places it in its matrix cell."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.errors import InfraError
from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.intervention import engine
from pytest_pastbench.protocols.intervention.collect import load_intervention_family
from pytest_pastbench.protocols.intervention.items import InterventionItem
from pytest_pastbench.resources import families_dir
from tests.protocols.stand_ins import item_of, run_of

OPTIONS = RunOptions(trials=2, protocol_options={"intervention_m": 3, "intervention_tau": 0.5})


def intervention_item() -> Any:
    family = load_intervention_family(families_dir() / "interventions" / "analytics.yaml")
    event = family.events[1]
    return item_of(
        InterventionItem,
        OPTIONS,
        family=family,
        event=event,
        profile="power",
        trial=1,
        name=f"{event.id}[power-t1]",
        family_id="intervention.analytics",
        protocol="intervention",
    )


def test_measure_runs_the_plan_on_the_engine_in_a_store_folder_removed_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    item = intervention_item()
    seen: dict[str, Any] = {}

    def fake_run(plan: Any, agent: Any, client: Any, store_root: Path, budgets: Any, judge: Any) -> Any:
        seen.update(plan=plan, client=client, store=store_root, existed=store_root.is_dir(), budgets=budgets)
        return {"headline": "pass 3/4"}, [{"event": "phase"}]

    monkeypatch.setattr(engine, "run", fake_run)
    assert item.measure() == ({"headline": "pass 3/4"}, [{"event": "phase"}])
    plan = seen["plan"]
    assert (plan.event.id, plan.profile, plan.m, plan.tau) == ("strict_retention", "power", 3, 0.5)
    assert seen["client"] == "client:pastbench/recall:1" and seen["budgets"] == "budgets"
    assert seen["existed"] and not seen["store"].exists()


def test_the_store_folder_goes_when_the_engine_fails_too(monkeypatch: pytest.MonkeyPatch) -> None:
    stores: list[Path] = []

    def failing_run(plan: Any, agent: Any, client: Any, store_root: Path, *args: Any) -> Any:
        stores.append(store_root)
        raise InfraError("provider down")

    monkeypatch.setattr(engine, "run", failing_run)
    with pytest.raises(InfraError):
        intervention_item().measure()
    assert stores and not stores[0].exists()


def test_a_blocked_items_record_still_names_its_matrix_cell() -> None:
    item = intervention_item()
    item.infra_error = "provider down"
    record = item.full_record()
    assert record["infra_blocked"] is True and record["reason"] == "provider down"
    assert (record["domain"], record["event"], record["event_kind"], record["profile"]) == (
        "analytics/reporting",
        "strict_retention",
        "policy_change",
        "power",
    )
    assert record["config_label"] == "hermes[]@pastbench/recall" and run_of(item).options is OPTIONS
