"""A plasticity item (``PlasticityItem``): measuring runs its lineage on the engine in a folder
removed after; a chess engine that is not installed skips the item with the fix (never a score);
its headline falls back to P_sat per 1,000 tokens when no price is known."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.errors import EngineMissing
from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.plasticity import engine
from pytest_pastbench.protocols.plasticity.collect import load_plasticity_family
from pytest_pastbench.protocols.plasticity.items import PlasticityItem, headline
from pytest_pastbench.resources import families_dir
from tests.protocols.stand_ins import item_of

OPTIONS = RunOptions(protocol_options={"plasticity_checkpoints": 2})


def lineage_item() -> Any:
    family = load_plasticity_family(families_dir() / "plasticity" / "chess_stockfish.yaml")
    return item_of(PlasticityItem, OPTIONS, family=family, arm="on", name="lineage[on-t0]")


def test_a_missing_chess_engine_skips_the_item_and_leaves_no_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def no_engine(
        family: Any, arm: str, agent: Any, client: Any, root: Path, budgets: Any, checkpoints: Any
    ) -> Any:
        seen.update(arm=arm, root=root, checkpoints=checkpoints, client=client)
        raise EngineMissing("stockfish is not installed: apt-get install stockfish")

    monkeypatch.setattr(engine, "run", no_engine)
    with pytest.raises(pytest.skip.Exception, match="apt-get install stockfish"):
        lineage_item().measure()
    assert (seen["arm"], seen["checkpoints"], seen["client"]) == ("on", 2, "client:pastbench/recall:0")
    assert not seen["root"].exists()


def rows(first: tuple[float, float], last: tuple[float, float]) -> list[dict[str, Any]]:
    return [{"scores": {"id": i, "ood": o}} for i, o in (first, last)]


def p_sat(usd: float | None, tokens: float | None) -> dict[str, Any]:
    return {"p_sat": {"usd_per_1000": {"value": usd}, "per_1000_tokens": {"value": tokens}}}


def test_the_headline_gives_id_and_ood_from_first_to_last_and_p_sat() -> None:
    lineage = rows((10.0, 5.0), (70.0, 40.0))
    assert headline(lineage, p_sat(1.234, 9.0)) == "ID 10→70 OOD 5→40 P_sat 1.23/$1k"
    assert headline(lineage, p_sat(None, 0.5)) == "ID 10→70 OOD 5→40 P_sat 0.50/1k tok"
    assert headline(lineage, p_sat(None, None)) == "ID 10→70 OOD 5→40 P_sat —"
