"""Stream collection: one item per harness × model × trial (× mechanism set), harnesses in the
family file's order, ``blind[t0]``."""

from __future__ import annotations

import pytest

from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.stream import collect as stream_collect
from pytest_pastbench.protocols.stream.schema import load_stream
from pytest_pastbench.resources import families_dir
from tests.protocols.stand_ins import Made, StandInFile

BANKING_L1 = families_dir() / "streams" / "banking_l1.yaml"


def collected(options: RunOptions, monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    monkeypatch.setattr(stream_collect, "StreamItem", Made)
    return list(stream_collect.collect(StandInFile(BANKING_L1, options)))  # type: ignore[arg-type]


def test_an_item_per_harness_and_trial_in_the_files_order(monkeypatch: pytest.MonkeyPatch) -> None:
    harnesses = load_stream(BANKING_L1).family.harnesses
    made = collected(RunOptions(trials=2), monkeypatch)
    assert [m["name"] for m in made] == [f"{h}[t{t}]" for h in harnesses for t in (0, 1)]
    assert [(m["harness"], m["trial"]) for m in made[:2]] == [(harnesses[0], 0), (harnesses[0], 1)]
    assert all(m["stream"].family.id == "banking_l1" and m["mechanisms"] is None for m in made)


def test_several_models_and_mechanism_sets_join_the_id(monkeypatch: pytest.MonkeyPatch) -> None:
    options = RunOptions(models=["pastbench/blind", "pastbench/recall"], mechanism_sets=[[], ["E1"]])
    made = collected(options, monkeypatch)
    first = load_stream(BANKING_L1).family.harnesses[0]
    assert [m["name"] for m in made][:4] == [
        f"{first}[t0-pastbench/blind-base]",
        f"{first}[t0-pastbench/blind-E1]",
        f"{first}[t0-pastbench/recall-base]",
        f"{first}[t0-pastbench/recall-E1]",
    ]
    assert [m["mechanisms"] for m in made][:2] == [[], ["E1"]]
