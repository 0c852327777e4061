"""Comparison tables (a run against a reference, several side by side); the command's tests are in
tests/cli/test_compare.py."""

from __future__ import annotations

import re
from typing import Any

from pytest_pastbench.core.records import MechScore
from pytest_pastbench.protocols.past.metrics import summarize
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.results.compare import render_comparison, render_side_by_side
from pytest_pastbench.results.item_record import ItemRecord
from tests.family_samples import scored_record

RUN = {"id": "r", "seed": 0, "dataset_hash": "d1", "judge": None, "models": ["m"]}
Spec = dict[str, dict[str, tuple[float, float]]]

# Δ per family: fact 0.4, rules 0.2, prefs 0.1 → [update] 0.3, [memory] 0.1, overall 0.2333.
BASE: Spec = {
    "update.fact": {"ep1": (0.9, 0.5)},
    "update.rules": {"ep1": (0.6, 0.4)},
    "memory.prefs": {"ep1": (0.5, 0.4)},
}
# fact 0.1 (−0.3), rules 0.2 (±0), prefs missing, gathering.notes new (0.5).
CURRENT: Spec = {
    "update.fact": {"ep1": (0.6, 0.5)},
    "update.rules": {"ep1": (0.6, 0.4)},
    "gathering.notes": {"ep1": (0.7, 0.2)},
}


def records_from(spec: Spec, label: str = "hermes@m", mech: float = 1.0) -> list[ItemRecord]:
    return [
        scored_record(
            family,
            episode,
            arm,
            score,
            model=label.partition("@")[2],
            config_label=label,
            mech=MechScore(mech=mech) if arm == "on" else None,
        )
        for family, episodes in spec.items()
        for episode, scores in episodes.items()
        for arm, score in zip(("on", "off"), scores, strict=True)
    ]


def summary_of(spec: Spec, label: str = "hermes@m", mech: float = 1.0) -> dict[str, Any]:
    return summarize(records_from(spec, label, mech), RUN, seed=0)


def rows(text: str) -> dict[str, list[str]]:
    """First cell -> the other cells of each table row (columns are separated by 2+ spaces)."""
    table = {}
    for line in text.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) > 1 and not set(line.strip()) <= {"-", " "}:
            table[cells[0]] = cells[1:]
    return table


def test_comparison_rows_per_family_capability_and_overall() -> None:
    text = render_comparison(summary_of(CURRENT, mech=0.5), summary_of(BASE), standalone_registry())
    assert text.splitlines()[0] == "hermes@m"
    table = rows(text)
    assert table["scope"] == ["baseline Δ", "current Δ", "change", "baseline Mech", "current Mech"]
    assert table["update.fact"] == ["+0.40", "+0.10", "-0.30", "1.00", "0.50"]
    assert table["update.rules"] == ["+0.20", "+0.20", "+0.00", "1.00", "0.50"]
    assert table["memory.prefs"] == ["+0.10", "—", "—", "1.00", "—"]
    assert table["gathering.notes"] == ["—", "+0.50", "—", "—", "0.50"]
    assert table["[update]"] == ["+0.30", "+0.15", "-0.15", "1.00", "0.50"]
    # Capabilities and overall over the families both measured (update.fact, update.rules): not
    # +0.23 (with memory.prefs) against +0.27 (with gathering.notes).
    assert table["[overall]"] == ["+0.30", "+0.15", "-0.15", "1.00", "0.50"]
    assert table["[memory]"] == ["—"] * 5 and table["[gathering]"] == ["—"] * 5
    assert (
        "note: comparing the 2 families in both runs; left out only in the baseline: memory.prefs; "
        "only in the current run: gathering.notes [hermes@m]"
    ) in text
    # Families first (by capability), then capabilities, overall last.
    order = [line.split()[0] for line in text.split("\n\n")[0].splitlines()[3:]]
    assert order == [
        "gathering.notes", "memory.prefs", "update.fact", "update.rules",
        "[gathering]", "[memory]", "[update]", "[overall]",
    ]  # fmt: skip


def test_comparison_of_differently_labelled_single_configs_says_so() -> None:
    text = render_comparison(
        summary_of(CURRENT, "hermes@new"), summary_of(BASE, "hermes@old"), standalone_registry()
    )
    assert text.splitlines()[0] == "hermes@new (baseline: hermes@old)"
    assert "note: comparing hermes@new with baseline hermes@old" in text


def test_comparison_notes_configs_only_on_one_side() -> None:
    current = summarize(records_from(CURRENT, "a@x") + records_from(BASE, "b@y"), RUN, seed=0)
    text = render_comparison(current, summary_of(BASE, "a@x"), standalone_registry())
    assert text.splitlines()[0] == "a@x"
    assert "note: b@y: only in the current run, not compared" in text
    assert "b@y\n" not in text


def test_side_by_side_has_one_column_per_run_and_config() -> None:
    two = summarize(records_from(BASE, "a@x") + records_from(CURRENT, "b@y", mech=0.25), RUN, seed=0)
    text = render_side_by_side([("ref", summary_of(BASE, "a@x")), ("pr", two)])
    delta_part, mech_part = text.split("\nMech\n")
    assert delta_part.startswith("Δ = S_on − S_off [95% CI]")
    header_names, header_labels = delta_part.splitlines()[1:3]
    assert header_names.split() == ["scope", "ref", "pr", "pr"]
    assert header_labels.split() == ["a@x", "a@x", "b@y"]
    table = rows(delta_part)
    # One episode per family: no noise estimate, so no CI (``stats.estimates_noise``).
    assert table["update.fact"] == ["+0.40", "+0.40", "+0.10"]
    assert table["gathering.notes"] == ["—", "—", "+0.50"]
    assert rows(mech_part)["[overall]"] == ["1.00", "1.00", "0.25"]
    assert render_side_by_side([]) == "no configurations to compare"


def test_a_fall_below_zero_shows_as_a_change_and_the_hurt_family_is_marked() -> None:
    hurt: Spec = {
        "update.fact": {"ep1": (0.2, 0.5), "ep2": (0.1, 0.5), "ep3": (0.3, 0.6)},
        "update.rules": {"ep1": (0.6, 0.4), "ep2": (0.6, 0.4), "ep3": (0.6, 0.4)},
    }
    base: Spec = {
        "update.fact": {"ep1": (0.9, 0.5), "ep2": (0.8, 0.5), "ep3": (0.9, 0.6)},
        "update.rules": {"ep1": (0.6, 0.4), "ep2": (0.6, 0.4), "ep3": (0.6, 0.4)},
    }
    table = rows(render_comparison(summary_of(hurt), summary_of(base), standalone_registry()))
    assert table["update.fact ▼"][:3] == ["+0.33", "-0.33", "-0.67"]
    assert "update.rules" in table  # Δ above 0: no mark
    side = render_side_by_side([("", summary_of(hurt))])
    fact = next(line for line in side.splitlines() if line.startswith("update.fact"))
    assert fact.endswith("memory hurt here")
    assert "memory hurt" not in next(line for line in side.splitlines() if line.startswith("update.rules"))
