"""PAST against a baseline: both sides restricted to the families both measured before the
capability and overall values are compared, the comparison table and its JSON rows."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_pastbench.protocols.past.compare import (
    COMPARISON_HEADERS,
    comparison_rows,
    pair_families,
    render_comparison,
)


def scope(delta: float | None, mech: float | None = 0.5, **extra: Any) -> dict[str, Any]:
    return {"delta": delta, "mech": mech, "s_on": None, "s_off": None, **extra}


def config(label: str, families: dict[str, float | None]) -> dict[str, Any]:
    """A config whose capability and overall entries are (deliberately) not the families' mean,
    so a test sees whether they were rebuilt."""
    capabilities = {fid.partition(".")[0] for fid in families}
    return {
        "label": label,
        "overall": scope(9.0),
        "capabilities": {cap: scope(9.0) for cap in capabilities},
        "families": {fid: scope(delta, mech_components={"wp": 1.0}) for fid, delta in families.items()},
    }


def test_the_same_families_pair_as_they_are() -> None:
    now, before = config("a", {"memory.f1": 0.2}), config("a", {"memory.f1": 0.1})
    assert pair_families(now, before) == (now, before, None)


def test_other_families_are_left_out_and_the_means_rebuilt_over_the_shared_ones() -> None:
    now = config("a", {"memory.f1": 0.4, "memory.f2": 0.2, "update.f3": None})
    before = config("b", {"memory.f1": 0.1, "update.f3": 0.3, "tools.f9": 0.0})
    paired_now, paired_before, note = pair_families(now, before)
    assert set(paired_now["families"]) == set(paired_before["families"]) == {"memory.f1", "update.f3"}
    assert paired_now["overall"]["delta"] == pytest.approx(0.4)  # the unscored family is no zero
    assert paired_before["overall"]["delta"] == pytest.approx(0.2)
    assert paired_now["capabilities"]["memory"]["delta"] == pytest.approx(0.4)
    assert paired_now["overall"]["mech_components"] == {"wp": 1.0}
    assert note == (
        "comparing the 2 families in both runs; left out only in the baseline: tools.f9; "
        "only in the current run: memory.f2 [a vs baseline b]"
    )
    assert now["overall"]["delta"] == 9.0  # the inputs are not changed


def test_rows_give_each_scope_its_change_with_the_baseline_restricted() -> None:
    now = {"configs": [config("a", {"memory.f1": 0.5, "memory.f2": 0.3})]}
    before = {"configs": [config("a", {"memory.f1": 0.2})]}
    rows = {row["scope"]: row for row in comparison_rows(now, before)}
    assert list(rows) == ["overall", "memory", "memory.f1", "memory.f2"]
    assert rows["overall"]["delta"] == pytest.approx(0.5) and rows["overall"]["change"] == pytest.approx(0.3)
    assert rows["memory.f1"]["change"] == 0.3  # rounded to 4 places
    assert rows["memory.f2"]["baseline_delta"] is None and rows["memory.f2"]["change"] is None
    assert {row["label"] for row in rows.values()} == {"a"} and rows["overall"]["baseline_mech"] == 0.5


def test_the_table_names_the_baseline_when_the_labels_differ_and_notes_what_was_left_out() -> None:
    now = {"configs": [config("a", {"memory.f1": 0.5, "memory.f2": 0.3})]}
    before = {"configs": [config("b", {"memory.f1": 0.2})]}
    text = render_comparison(now, before)
    assert text.startswith("a (baseline: b)\n")
    assert all(header in text for header in COMPARISON_HEADERS)
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines()[3:7]}
    # Capability and overall over the one shared family; the other family has no baseline.
    assert (
        rows["[overall]"]
        == rows["[memory]"]
        == rows["memory.f1"]
        == ["+0.20", "+0.50", "+0.30", "0.50", "0.50"]
    )
    assert rows["memory.f2"] == ["—", "+0.30", "—", "—", "0.50"]
    assert text.splitlines()[-1].startswith("note: comparing the 1 family in both runs")


def test_no_past_config_on_either_side_is_no_table() -> None:
    assert render_comparison({"configs": []}, {}) == ""
    assert comparison_rows({"configs": []}, {"configs": []}) == []
