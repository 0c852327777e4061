"""The plasticity section of the summary, its terminal tables and its PNG, from real records."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.agents.base import Budgets, HermesAgent
from pytest_pastbench.protocols.plasticity.engine import run
from pytest_pastbench.protocols.plasticity.items import headline, headline_metrics
from pytest_pastbench.protocols.plasticity.metrics import lineage_metrics, summarize
from pytest_pastbench.protocols.plasticity.report import render, write_files

from .helpers import PolicyClient, small_family


def record(tmp_path: Path, arm: str) -> dict:
    family = small_family(splits={"train": 2, "id": 2, "ood": 1})
    result = run(family, arm, HermesAgent(), PolicyClient("recall"), tmp_path / arm, Budgets(), 1)
    metrics = lineage_metrics(result.record["checkpoints"])
    return {
        **result.record,
        "nodeid": f"families/plasticity/small_rules.yaml::lineage[{arm}-t0]",
        "family": "plasticity.small_rules",
        "model": "pastbench/recall",
        "agent": "hermes",
        "trial": 0,
        "infra_blocked": False,
        "headline": headline(result.record["checkpoints"], metrics),
        "metrics": headline_metrics(result.record, metrics),
    }


def test_summary_tables_and_plot(tmp_path: Path) -> None:
    on, off = record(tmp_path, "on"), record(tmp_path, "off")
    blocked = {**off, "nodeid": off["nodeid"].replace("off", "x"), "infra_blocked": True}
    section = summarize([on, off, blocked], seed=0)
    family = section["families"]["plasticity.small_rules"]
    assert section["blocked"] == 1 and family["blocked"] == 1
    assert list(family["lineages"]) == ["hermes@pastbench/recall[off-t0]", "hermes@pastbench/recall[on-t0]"]
    entry = family["lineages"]["hermes@pastbench/recall[on-t0]"]
    assert entry["checkpoints"] == 1 and len(entry["curves"]["id"]) == 2
    assert entry["p_sat"]["per_1000_tokens"]["status"] == "no_fit"  # 2 checkpoints: nothing to fit
    assert entry["inventory"][1]["notes"] > 0  # recall kept the train feedback as notes
    text = render(section)
    for expected in (
        "plasticity.small_rules",
        "held-out ID by checkpoint",
        "no covering artifact",
        "used, still failed",
        "blocked lineages: 1",
        "note: cost is $0",
    ):
        assert expected in text
    assert on["headline"].startswith("ID ") and "P_sat —" in on["headline"]
    assert {"id_start", "id_end", "learning_tokens"} <= set(on["metrics"])
    [png] = write_files(section, tmp_path)
    assert png == tmp_path / "plots" / "plasticity_small_rules.png"
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert render({"families": {}}) == "no plasticity lineage finished"


def test_a_flat_offline_lineage_says_why_and_its_figure_shows_every_arm_on_whole_checkpoints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default run's plasticity section: 0 0 0 0 tables with no word of why, the off arm's
    curve hidden under the on arm's, and checkpoint ticks at 0.5."""
    from matplotlib.figure import Figure

    on, off = record(tmp_path, "on"), record(tmp_path, "off")
    section = summarize([on, off], seed=0)
    lineages = section["families"]["plasticity.small_rules"]["lineages"]
    assert all(len({p["y"] for p in e["curves"]["id"]}) == 1 for e in lineages.values())  # flat
    [note] = [line for line in render(section).splitlines() if "pastbench/recall is an offline" in line]
    assert "--pastbench-model=pastbench/curator" in note
    curator = {**on, "model": "pastbench/curator"}
    assert "is an offline" not in render(summarize([curator], seed=0))  # the model that learns: no note

    drawn: list[Figure] = []
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: drawn.append(fig))
    write_files(section, tmp_path)
    curves = drawn[0].axes[0]
    drawn[0].canvas.draw()
    assert all(float(t).is_integer() for t in curves.get_xticks())
    widths = {line.get_label().rsplit(" ", 1)[0]: line.get_linewidth() for line in curves.lines}
    assert len(set(widths.values())) == 2  # the same scores: one line inside a wider one
