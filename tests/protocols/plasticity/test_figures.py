"""The learning curves: a panel per family with a finished lineage, held-out ID and OOD lines per
lineage, every point inside the axes and 0–100 points in view."""

from __future__ import annotations

from typing import Any

from pytest_pastbench.protocols.plasticity.figures import FIGURES, draw_learning_curves, plasticity_families


def lineage(*scores: float) -> dict[str, Any]:
    return {"curves": {"id": [{"x": i, "y": y} for i, y in enumerate(scores)],
                       "ood": [{"x": i, "y": y / 2} for i, y in enumerate(scores)]}}  # fmt: skip


def summary(families: dict[str, Any]) -> dict[str, Any]:
    return {"protocols": {"plasticity": {"families": families}}}


def test_only_families_with_a_finished_lineage_are_drawn_in_id_order() -> None:
    runs = summary(
        {"text": {"lineages": {"on": lineage(10)}}, "chess": {"lineages": {}}, "a": {"lineages": {"x": {}}}}
    )
    assert list(plasticity_families(runs)) == ["a", "text"]
    [spec] = FIGURES
    assert spec.why_not(summary({"chess": {"lineages": {}}})) == "no plasticity lineage finished"
    assert spec.why_not(runs) is None


def test_one_panel_per_family_an_id_and_an_ood_line_per_lineage_all_in_view() -> None:
    fig = draw_learning_curves(
        summary(
            {
                "chess": {"lineages": {"on": lineage(10, 40, 130), "off": lineage(10, 10, 10)}},
                "text": {"lineages": {"on": lineage(50, 60)}},
                "empty": {"lineages": {}},
            }
        )
    )
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.lines]
    assert [ax.get_title() for ax in panels] == ["chess", "text"]
    assert [len(ax.lines) for ax in panels] == [4, 2]
    low, high = panels[0].get_ylim()
    assert low <= 0.0 and high >= 130.0  # a score above 100 is not cut off, 0 stays in view
    assert [list(line.get_ydata()) for line in panels[1].lines] == [[50.0, 60.0], [25.0, 30.0]]
