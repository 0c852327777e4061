"""Report figures: each PNG is real (right size, not blank, deterministic); the command's tests are
in tests/cli/test_plot.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from matplotlib.image import imread
from matplotlib.legend import Legend

from pytest_pastbench.core.records import MechScore
from pytest_pastbench.errors import PlotError
from pytest_pastbench.protocols.past.metrics import build_comparison, summarize
from pytest_pastbench.protocols.standalone import standalone_registry
from pytest_pastbench.results.item_record import ItemRecord
from pytest_pastbench.results.read import LoadedRun, load_run
from pytest_pastbench.results.render.figure_kit import Keys, label_keys, padded_limits, save
from pytest_pastbench.results.render.plots import (
    draw_capability_delta,
    draw_frontier,
    figure_specs,
    make_plots,
    plot_run,
)
from tests.family_samples import run_tiny_benchmark
from tests.report_samples import LONG, sample_summary
from tests.written_runs import write_run

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# (height, width) in pixels at 100 dpi with short labels; a key of long labels adds height only.
EXPECTED_SHAPES = {
    "capability_delta.png": (600, 1000),
    "frontier.png": (600, 800),
    "ablation_heatmap.png": (600, 1000),
}
# Per model: (on score, off score, mech) for each capability; gives clearly different Δ per config.
SCORES = {
    "pastbench/blind": {"memory": (0.3, 0.3, 0.0), "update": (0.5, 0.5, 0.0)},
    "pastbench/curator": {"memory": (0.9, 0.2, 0.95), "update": (0.8, 0.4, 0.9)},
    "pastbench/recall": {"memory": (0.7, 0.2, 0.9), "update": (0.3, 0.5, 0.8)},
}


def make_run(tmp_path: Path, models: tuple[str, ...] = tuple(SCORES)) -> Path:
    """A run folder written by the plugin's own writer from hand-made records."""
    records = []
    for model in models:
        for capability, (on, off, mech) in SCORES[model].items():
            for ep, jitter in (("ep01", 0.0), ("ep02", 0.1)):
                for arm, score in (("on", on), ("off", off)):
                    records.append(
                        ItemRecord(
                            nodeid=f"families/{capability}/fam_{capability}.yaml::{ep}[{arm}-t0-{model}]",
                            family=f"{capability}.fam_{capability}",
                            capability=capability,
                            episode=ep,
                            arm=arm,
                            model=model,
                            agent="hermes",
                            config_label=f"hermes@{model}",
                            score=min(score + jitter, 1.0) if arm == "on" else score,
                            mech=MechScore(mech=mech, wp=mech, applicable=1) if arm == "on" else None,
                        )
                    )
    run = {"id": "hand", "seed": 0}
    summary = summarize(records, run, seed=0)
    return write_run(tmp_path / "reports", "hand", run, records, {}, summary, build_comparison(summary))


def pixels(path: Path) -> np.ndarray:
    image = imread(path)
    assert image.dtype == np.float32  # PNGs read as floats in [0, 1]
    return image


def assert_shape(image: np.ndarray, name: str) -> None:
    height, width = EXPECTED_SHAPES[name]
    assert image.shape[1] == width, name  # fixed width; the key of long labels adds rows below
    assert height <= image.shape[0] <= height + 200, name


def assert_not_blank(image: np.ndarray) -> None:
    flat = image.reshape(-1, image.shape[-1])
    assert float(flat.std()) > 0
    assert bool((flat != flat[0]).any())  # more than one colour (np.unique on rows is slow)


def colour_count(image: np.ndarray, rgb: tuple[float, float, float], tolerance: float = 0.02) -> int:
    return int((np.abs(image[..., :3] - np.array(rgb)) < tolerance).all(axis=-1).sum())


def has_colour(image: np.ndarray, rgb: tuple[float, float, float], tolerance: float = 0.02) -> bool:
    return colour_count(image, rgb, tolerance) > 0


C0 = (0x1F / 255, 0x77 / 255, 0xB4 / 255)  # matplotlib's first colour cycle entry (first config)
C1 = (0xFF / 255, 0x7F / 255, 0x0E / 255)


def test_each_figure_exists_has_its_size_and_is_drawn(tmp_path: Path) -> None:
    run = load_run(make_run(tmp_path))
    written = plot_run(run, tmp_path / "plots", standalone_registry())
    assert sorted(p.name for p in written) == sorted(EXPECTED_SHAPES)
    for path in written:
        image = pixels(path)
        assert_shape(image, path.name)
        assert_not_blank(image)
    # The data itself is drawn, not just empty axes: bars far larger than a legend swatch ...
    assert colour_count(pixels(tmp_path / "plots/capability_delta.png"), C1) > 2000
    assert has_colour(pixels(tmp_path / "plots/frontier.png"), C1)  # its point (and its legend swatch)
    # ... and strongly coloured (large |Δ|) cells in the heatmap, left of its colour bar.
    heat = pixels(tmp_path / "plots/ablation_heatmap.png")[:, :800, :3]
    assert ((heat[..., 2] - heat[..., 0]) > 0.4).sum() > 1000  # blue: positive Δ (curator memory)
    assert ((heat[..., 0] - heat[..., 2]) > 0.2).sum() > 1000  # red: negative Δ (recall update)


def test_the_same_run_draws_byte_identical_files_without_metadata(tmp_path: Path) -> None:
    run = load_run(make_run(tmp_path))
    first = plot_run(run, tmp_path / "a", standalone_registry())
    second = plot_run(run, tmp_path / "b", standalone_registry())
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
        assert b"matplotlib" not in a.read_bytes()  # no Software chunk naming the version


def test_one_config_is_enough_for_every_figure(tmp_path: Path) -> None:
    run = load_run(make_run(tmp_path, models=("pastbench/curator",)))
    written = plot_run(run, tmp_path / "plots", standalone_registry())
    assert sorted(p.name for p in written) == sorted(EXPECTED_SHAPES)
    for path in written:
        assert_shape(pixels(path), path.name)
        assert_not_blank(pixels(path))


def test_a_run_without_configs_is_a_clear_value_error(tmp_path: Path) -> None:
    run = LoadedRun(path=tmp_path, run={}, records=[], summary={"schema_version": 1, "configs": []})
    with pytest.raises(ValueError, match="no PAST configs") as info:
        plot_run(run, tmp_path / "plots", standalone_registry())
    assert isinstance(info.value, PlotError)
    assert not (tmp_path / "plots").exists()


def test_importing_the_module_does_not_import_matplotlib() -> None:
    code = (
        "import sys, pytest_pastbench.results.render.plots\n"
        "sys.exit(1 if any(m.split('.')[0] == 'matplotlib' for m in sys.modules) else 0)\n"
    )
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 0


def test_heatmap_hatches_a_capability_a_config_did_not_run_unlike_a_measured_zero(tmp_path: Path) -> None:
    """A flat grey for "not run" read as the scale's pale middle, a measured Δ of 0.00."""
    from pytest_pastbench.results.render.plots import draw_ablation_heatmap

    run = load_run(make_run(tmp_path))
    first, second = run.summary["configs"][0], run.summary["configs"][1]
    del first["capabilities"]["update"]  # not run
    second["capabilities"]["update"]["delta"] = 0.0  # measured: no difference
    fig = draw_ablation_heatmap(run.summary)
    save(fig, tmp_path / "heat.png")
    image = pixels(tmp_path / "heat.png")[..., :3]
    ax = fig.axes[0]
    row = [t.get_text() for t in ax.get_yticklabels()].index("update")

    def cell(col: int) -> np.ndarray:
        """The cell's pixels left of and above its centre text (display y grows upwards)."""
        (x0, y0), (x1, y1) = ax.transData.transform([(col - 0.45, row + 0.45), (col - 0.15, row + 0.15)])
        height = image.shape[0]
        return image[int(height - y1) : int(height - y0), int(x0) : int(x1)].reshape(-1, 3)

    not_run, zero = cell(0), cell(1)
    assert len(np.unique(zero.round(2), axis=0)) == 1  # a measured 0.00: one flat colour
    assert len(np.unique(not_run.round(2), axis=0)) > 1  # hatched
    assert (not_run.min(axis=1) < 0.7).mean() > 0.05  # with lines darker than any pale grey
    texts = [t.get_text() for t in ax.texts]
    assert "not run" in texts and "+0.00" in texts


def test_plots_of_a_real_run(pytester: pytest.Pytester) -> None:
    run = run_tiny_benchmark(pytester, "real", "pastbench/blind", "pastbench/curator")
    assert len(run.summary["configs"]) == 2
    written = plot_run(run, pytester.path / "plots", standalone_registry())
    assert sorted(p.name for p in written) == sorted(EXPECTED_SHAPES)
    for path in written:
        image = pixels(path)
        assert_shape(image, path.name)
        assert_not_blank(image)


# -- every figure at 1, 2 and 8 configs, long labels included ----------------------------------------------
def texts_inside(fig: Figure) -> None:
    """Nothing cut off: what the figure drew (titles, ticks, keys, legends) lies inside the canvas.
    Call after saving: the save drew it and ran the layout."""
    drawn = fig.get_tightbbox(fig.canvas.get_renderer())  # inches, drawn artists only
    canvas = fig.bbox_inches
    assert drawn.x0 >= canvas.x0 - 0.01 and drawn.y0 >= canvas.y0 - 0.01, drawn
    assert drawn.x1 <= canvas.x1 + 0.01 and drawn.y1 <= canvas.y1 + 0.01, drawn


def figure_text(fig: Figure) -> str:
    from matplotlib.text import Text

    return "\n".join(t.get_text() for t in fig.findobj(Text))


def inside(limits: tuple[float, float], values: list[float]) -> bool:
    lo, hi = sorted(limits)
    return all(lo <= v <= hi for v in values)


def drawable(summary: dict[str, Any]) -> dict[str, Figure]:
    return {
        spec.name: spec.draw(summary)
        for spec in figure_specs(standalone_registry())
        if spec.why_not(summary) is None
    }


@pytest.mark.parametrize(
    ("n", "long"),
    [(1, True), (2, True), (8, True), (8, False)],
    ids=["1-long", "2-long", "8-long", "8-short"],
)
def test_every_figure_fits_its_data_and_its_canvas(n: int, long: bool, tmp_path: Path) -> None:
    summary = sample_summary(n, long)
    figures = drawable(summary)
    assert sorted(figures) == sorted(spec.name for spec in figure_specs(standalone_registry()))
    for name, fig in figures.items():
        image = pixels(save(fig, tmp_path / name))
        assert_not_blank(image)
        texts_inside(fig)
        if long:  # every full label is spelled out somewhere in the figure (the key)
            text = figure_text(fig)
            assert LONG in text.replace("\n    ", ""), name
    configs = summary["configs"]
    # Δ bars: every Δ and both ends of its CI inside the y limits.
    bars = figures["capability_delta.png"].axes[0]
    ends = [
        v
        for c in configs
        for e in (c["overall"], *c["capabilities"].values())
        for v in (*e["delta_ci"], e["delta"])
    ]
    assert inside(bars.get_ylim(), [*ends, 0.0])
    # Frontier: Δ ± CI and Mech of each config inside the axes, and 0 in view.
    frontier = figures["frontier.png"].axes[0]
    assert inside(frontier.get_xlim(), [v for c in configs for v in c["overall"]["delta_ci"]] + [0.0])
    assert inside(frontier.get_ylim(), [c["overall"]["mech"] for c in configs])
    # Learning curves and reward per window: every point inside the y limits.
    for ax in figures["learning_curves.png"].axes:
        if ax.get_visible() and ax.lines:
            assert inside(ax.get_ylim(), [y for line in ax.lines for y in line.get_ydata()])
    for ax in figures["reward_per_window.png"].axes[:2]:
        assert len(ax.lines) == n
        assert inside(ax.get_ylim(), [y for line in ax.lines for y in line.get_ydata()])
    # Intervention matrix: one row per event × profile, five metric groups of n config columns.
    matrix = figures["intervention_matrix.png"].axes[0].images[0].get_array()
    assert matrix.shape == (2 * 2 * 3, 5 * n)


def test_one_config_with_a_zero_width_ci_is_a_visible_point_on_sensible_axes() -> None:
    """The bug seen on main: Δ +0.80 with a zero-width CI gave x ticks −10…1 and a cut-off title."""
    summary = sample_summary(1)
    assert summary["configs"][0]["overall"]["delta_ci"] == [0.8, 0.8]
    fig = draw_frontier(summary)
    fig.canvas.draw()
    ax = fig.axes[0]
    lo, hi = ax.get_xlim()
    assert lo <= 0.0 and hi > 0.8 and hi - lo < 1.5  # fits the data, not a sliver of −10…1
    point = next(line for line in ax.lines if list(line.get_xdata()) == [0.8])
    assert point.get_marker() == "o" and point.get_markersize() >= 6  # seen without any CI bar
    texts_inside(fig)
    bars = draw_capability_delta(summary).axes[0]
    dots = [line for line in bars.lines if line.get_marker() == "o"]
    assert dots and 0.8 in list(dots[0].get_ydata())  # the Δ dot marks a zero-width CI


def test_long_labels_become_keys_spelled_out_under_the_plot() -> None:
    keys = label_keys([LONG, "short"])
    assert keys.shown == {LONG: "C1", "short": "C2"}
    assert keys.lines == [f"C1  {LONG}", "C2  short"]
    assert label_keys(["a", "b"]) == Keys({"a": "a", "b": "b"}, [])
    fig = draw_capability_delta(sample_summary(2))
    (legend_box,) = fig.findobj(Legend)
    legend = [t.get_text() for t in legend_box.get_texts()]
    assert legend == ["C1", "C2"]


def test_padded_limits_contain_the_values_and_widen_a_single_point() -> None:
    assert padded_limits([0.8, 0.8]) == pytest.approx((-0.064, 0.864))  # 0 included, 8% pad
    lo, hi = padded_limits([5.0], include=())
    assert lo < 5.0 < hi and hi - lo == pytest.approx(0.1 * 1.16)
    assert padded_limits([float("nan")], include=()) == (-0.1, 0.1)
    lo, hi = padded_limits([-3.0, 2.0], include=(0.0, 10.0))
    assert lo < -3.0 and hi > 10.0


def test_a_run_of_the_other_protocols_draws_their_figures_only(tmp_path: Path) -> None:
    summary = sample_summary(2, protocols=("intervention", "plasticity", "stream"))
    run = LoadedRun(path=tmp_path, run={}, records=[], summary=summary)
    result = make_plots(run, tmp_path / "plots", standalone_registry())
    assert sorted(p.name for p in result.written) == [
        "intervention_matrix.png",
        "learning_curves.png",
        "reward_per_window.png",
    ]
    assert list(result.absent) == ["past"]
    assert result.absent["past"].startswith("this run has no PAST configs: capability_delta.png")
    only = make_plots(run, tmp_path / "only", standalone_registry(), only="stream")
    assert [p.name for p in only.written] == ["reward_per_window.png"] and not only.absent


def test_the_frontier_names_short_labels_in_a_legend_and_keys_only_long_ones(tmp_path: Path) -> None:
    """A 23-character config label was drawn as "C1" beside its point."""
    run = load_run(make_run(tmp_path))
    fig = draw_frontier(run.summary)
    (legend_box,) = fig.findobj(Legend)
    labels = [str(c["label"]) for c in run.summary["configs"]]
    assert [t.get_text() for t in legend_box.get_texts()] == labels
    assert not fig.axes[0].texts  # no key beside the points
    save(fig, tmp_path / "frontier.png")
    texts_inside(fig)
    long_fig = draw_frontier(sample_summary(2))  # labels past the key length: keyed, spelled out below
    assert [t.get_text() for t in long_fig.axes[0].texts] == ["C1", "C2"]
