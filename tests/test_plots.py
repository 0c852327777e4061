"""Report figures: each PNG is real (right size, not blank, deterministic) and the CLI's exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from matplotlib.image import imread

from pytest_pastbench.cli import main
from pytest_pastbench.core.records import MechScore
from pytest_pastbench.errors import PlotError
from pytest_pastbench.protocols.past.metrics import build_comparison, build_summary
from pytest_pastbench.results.item_record import ItemRecord
from pytest_pastbench.results.read import LoadedRun, load_run
from pytest_pastbench.results.render.plots import make_plots, plot_run
from pytest_pastbench.results.run_folder import write_run
from tests.family_samples import run_tiny_benchmark

# (height, width) in pixels: fixed figure sizes at 100 dpi.
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
    summary = build_summary(records, run, seed=0)
    return write_run(tmp_path / "reports", "hand", run, records, {}, summary, build_comparison(summary))


def pixels(path: Path) -> np.ndarray:
    image = imread(path)
    assert image.dtype == np.float32  # PNGs read as floats in [0, 1]
    return image


def assert_not_blank(image: np.ndarray) -> None:
    flat = image.reshape(-1, image.shape[-1])
    assert float(flat.std()) > 0
    assert len(np.unique(flat, axis=0)) > 1


def colour_count(image: np.ndarray, rgb: tuple[float, float, float], tolerance: float = 0.02) -> int:
    return int((np.abs(image[..., :3] - np.array(rgb)) < tolerance).all(axis=-1).sum())


def has_colour(image: np.ndarray, rgb: tuple[float, float, float], tolerance: float = 0.02) -> bool:
    return colour_count(image, rgb, tolerance) > 0


C0 = (0x1F / 255, 0x77 / 255, 0xB4 / 255)  # matplotlib's first colour cycle entry (first config)
C1 = (0xFF / 255, 0x7F / 255, 0x0E / 255)


def test_each_figure_exists_has_its_size_and_is_drawn(tmp_path: Path) -> None:
    run = load_run(make_run(tmp_path))
    written = plot_run(run, tmp_path / "plots")
    assert sorted(p.name for p in written) == sorted(EXPECTED_SHAPES)
    for path in written:
        image = pixels(path)
        assert image.shape[:2] == EXPECTED_SHAPES[path.name], path.name
        assert_not_blank(image)
    # The data itself is drawn, not just empty axes: bars far larger than a legend swatch ...
    assert colour_count(pixels(tmp_path / "plots/capability_delta.png"), C1) > 2000
    assert has_colour(pixels(tmp_path / "plots/frontier.png"), C1)  # (no legend on the frontier)
    # ... and strongly coloured (large |Δ|) cells in the heatmap, left of its colour bar.
    heat = pixels(tmp_path / "plots/ablation_heatmap.png")[:, :800, :3]
    assert ((heat[..., 2] - heat[..., 0]) > 0.4).sum() > 1000  # blue: positive Δ (curator memory)
    assert ((heat[..., 0] - heat[..., 2]) > 0.2).sum() > 1000  # red: negative Δ (recall update)


def test_the_same_run_draws_byte_identical_files_without_metadata(tmp_path: Path) -> None:
    run = load_run(make_run(tmp_path))
    first = plot_run(run, tmp_path / "a")
    second = plot_run(run, tmp_path / "b")
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
        assert b"matplotlib" not in a.read_bytes()  # no Software chunk naming the version


def test_one_config_is_enough_for_every_figure(tmp_path: Path) -> None:
    run = load_run(make_run(tmp_path, models=("pastbench/curator",)))
    written = plot_run(run, tmp_path / "plots")
    assert sorted(p.name for p in written) == sorted(EXPECTED_SHAPES)
    for path in written:
        assert pixels(path).shape[:2] == EXPECTED_SHAPES[path.name]
        assert_not_blank(pixels(path))


def test_learning_curves_only_when_the_summary_has_them(tmp_path: Path) -> None:
    run = load_run(make_run(tmp_path))
    result = make_plots(run, tmp_path / "none")
    assert "learning_curves.png" in result.skipped
    assert not (tmp_path / "none" / "learning_curves.png").exists()

    config: dict[str, Any] = run.summary["configs"][0]
    config["learning_curves"] = {"held_out": [{"x": 0, "y": 0.2}, {"x": 2, "y": 0.7}, {"x": 1, "y": 0.5}]}
    result = make_plots(run, tmp_path / "with")
    assert "learning_curves.png" not in result.skipped
    curve = tmp_path / "with" / "learning_curves.png"
    assert curve in result.written
    image = pixels(curve)
    assert image.shape[:2] == (600, 1000)
    assert_not_blank(image)
    assert has_colour(image, C0)  # the first config's line


def test_a_run_without_configs_is_a_clear_value_error(tmp_path: Path) -> None:
    run = LoadedRun(path=tmp_path, run={}, records=[], summary={"schema_version": 1, "configs": []})
    with pytest.raises(ValueError, match="no configs") as info:
        plot_run(run, tmp_path / "plots")
    assert isinstance(info.value, PlotError)
    assert not (tmp_path / "plots").exists()


def test_cli_plots_into_run_plots_and_says_what_it_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = make_run(tmp_path)
    assert main(["plot", str(run_dir)]) == 0
    out = capsys.readouterr().out.splitlines()
    for name in EXPECTED_SHAPES:
        assert str(run_dir / "plots" / name) in out
        assert (run_dir / "plots" / name).is_file()
    assert any(line.startswith("skipped learning_curves.png") for line in out)

    assert main(["plot", str(run_dir), "-o", str(tmp_path / "elsewhere")]) == 0
    assert str(tmp_path / "elsewhere" / "frontier.png") in capsys.readouterr().out
    assert (tmp_path / "elsewhere" / "frontier.png").is_file()


def test_cli_unreadable_or_empty_run_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plot", str(tmp_path / "missing")]) == 2
    captured = capsys.readouterr()
    assert "missing" in captured.err and captured.out == ""

    empty = write_run(tmp_path, "empty", {"id": "empty"}, [], {}, build_summary([], {}, 0), {"rows": []})
    assert main(["plot", str(empty)]) == 2
    assert "no configs" in capsys.readouterr().err


def test_importing_the_module_does_not_import_matplotlib() -> None:
    code = (
        "import sys, pytest_pastbench.results.render.plots\n"
        "sys.exit(1 if any(m.split('.')[0] == 'matplotlib' for m in sys.modules) else 0)\n"
    )
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 0


def test_heatmap_greys_out_a_capability_a_config_did_not_run(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path)
    run = load_run(run_dir)
    del run.summary["configs"][0]["capabilities"]["update"]
    plot_run(run, tmp_path / "plots")
    assert has_colour(pixels(tmp_path / "plots/ablation_heatmap.png"), (0xDD / 255,) * 3, tolerance=0.005)


def test_plots_of_a_real_run(pytester: pytest.Pytester) -> None:
    run = run_tiny_benchmark(pytester, "real", "pastbench/blind", "pastbench/curator")
    assert len(run.summary["configs"]) == 2
    written = plot_run(run, pytester.path / "plots")
    assert sorted(p.name for p in written) == sorted(EXPECTED_SHAPES)
    for path in written:
        image = pixels(path)
        assert image.shape[:2] == EXPECTED_SHAPES[path.name]
        assert_not_blank(image)
