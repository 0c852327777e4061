"""The plasticity section's terminal tables (``render``) and its PNG curves; the section itself
is ``metrics.summarize``.

Imports inside functions keep matplotlib and numpy out until a PNG is drawn; the metrics and
offline-policy code load with the parts that use them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tabulate import tabulate

from pytest_pastbench.results.ablation import AblationSpec
from pytest_pastbench.results.render.table import format_number

# --pastbench-ablation: held-out ID score at the lineage's last checkpoint, per arm.
ABLATION = AblationSpec(
    score="ID at last checkpoint",
    item_score=lambda record: record["checkpoints"][-1]["scores"]["id"],
    tokens=lambda record: record["learning_usage"]["tokens"] + record["eval_usage"]["tokens"],
    group=lambda record: record["arm"],
    group_name="arm",
)


def _curve_text(points: list[dict[str, Any]]) -> str:
    return " ".join(f"{p['y']:.0f}" for p in points) or "—"


def _p_sat_text(entry: dict[str, Any]) -> str:
    usd = entry["p_sat"]["usd_per_1000"]
    tok = entry["p_sat"]["per_1000_tokens"]
    if usd["value"] is not None:
        return f"{usd['value']:.1f}/$1k ({usd['status']})"
    return f"{format_number(tok['value'])}/1k tok ({tok['status']})"


def _last_p(entry: dict[str, Any]) -> str:
    p = entry["p_id"]
    usd, tok = p["usd_per_1000"][-1], p["per_1000_tokens"][-1]
    return f"{usd:.1f}/$1k" if usd is not None else f"{format_number(tok)}/1k tok"


def render(section: dict[str, Any]) -> str:
    blocks = []
    for family_id, family in section.get("families", {}).items():
        rows = []
        for label, entry in family["lineages"].items():
            cost = entry["learning_cost"]
            usd = cost["usd"][-1]
            rows.append(
                [
                    label,
                    _curve_text(entry["curves"]["id"]),
                    _curve_text(entry["curves"]["ood"]),
                    _curve_text(entry["curves"]["train"]),
                    "—" if usd is None else f"{usd:.4f}",
                    str(cost["tokens"][-1]),
                    _last_p(entry),
                    _p_sat_text(entry),
                ]
            )
        headers = (
            "lineage",
            "held-out ID by checkpoint",
            "held-out OOD",
            "train",
            "cost $",
            "tokens",
            "P_C",
            "P_sat",
        )
        table = tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)
        taxonomy_rows = []
        for label, entry in family["lineages"].items():
            for split in ("id", "ood", "train"):
                counts = entry["taxonomy"].get(split)
                if not counts:
                    continue
                taxonomy_rows.append(
                    [
                        label,
                        {"id": "held-out ID", "ood": "held-out OOD", "train": "train"}[split],
                        f"{counts['failed']}/{counts['total']}",
                        str(counts["no_covering_artifact"]),
                        str(counts["unused"]),
                        str(counts["used_still_failed"]),
                        format_number(counts["reuse_rate"]),
                    ]
                )
        taxonomy_headers = (
            "lineage",
            "split",
            "failed/decisions",
            "no covering artifact",
            "existed, unused",
            "used, still failed",
            "reuse rate",
        )
        taxonomy_table = tabulate(
            taxonomy_rows, headers=taxonomy_headers, tablefmt="simple", disable_numparse=True
        )
        notes = sorted({e["usd_na_reason"] for e in family["lineages"].values() if e["usd_na_reason"]})
        notes += flat_notes(family["lineages"])
        block = [
            f"{family_id} (points 0-100; P in points per $1,000 or per 1,000 tokens)",
            table,
            "",
            taxonomy_table,
        ]
        block += [f"note: {n}" for n in notes]
        if family["blocked"]:
            block.append(f"blocked lineages: {family['blocked']}")
        blocks.append("\n".join(block))
    return "\n\n".join(blocks) or "no plasticity lineage finished"


def flat_notes(lineages: dict[str, Any]) -> list[str]:
    """Why an offline reference model's lineage did not learn, once per model whose held-out ID
    curve is flat (the default run's recall: a table of 0 0 0 0 looked broken)."""
    from .offline_policy import flat_curve_note

    notes: list[str] = []
    for entry in lineages.values():
        ids = {p["y"] for p in entry["curves"]["id"]}
        note = flat_curve_note(str(entry["model"])) if len(ids) <= 1 else None
        if note and note not in notes:
            notes.append(note)
    return notes


def _lineage_widths(n: int) -> list[tuple[float, float]]:
    """(line width, marker size) per lineage, widest first: lineages with the same scores (the
    on and off arms of a model that does not learn) show as one line inside another, not one
    hidden under the other."""
    if n <= 1:
        return [(1.5, 6.0)] * n
    return [(1.5 + 4.5 * (n - 1 - i) / (n - 1), 5.0 + 7.0 * (n - 1 - i) / (n - 1)) for i in range(n)]


def write_files(section: dict[str, Any], run_dir: Path) -> list[Path]:
    """One PNG per family: scores by checkpoint (train, ID, OOD) and ID against learning cost."""
    written = []
    for family_id, family in section.get("families", {}).items():
        if family.get("plot"):
            written.append(_plot_family(family_id, family, run_dir / family["plot"]))
    return written


def _plot_family(family_id: str, family: dict[str, Any], path: Path) -> Path:
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from pytest_pastbench.results.render.plots import DPI, PNG_METADATA

    from .metrics import hill

    path.parent.mkdir(parents=True, exist_ok=True)
    with matplotlib.style.context("default"):
        fig = Figure(figsize=(12.0, 5.0), dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        curves_ax, cost_ax = fig.subplots(1, 2)
        styles = {"id": "-", "ood": "--", "train": ":"}
        widths = _lineage_widths(len(family["lineages"]))
        for i, (label, entry) in enumerate(family["lineages"].items()):
            colour = f"C{i % 10}"
            linewidth, markersize = widths[i]
            for split, style in styles.items():
                points = entry["curves"][split]
                if points:
                    curves_ax.plot(
                        [p["x"] for p in points],
                        [p["y"] for p in points],
                        style,
                        marker="o",
                        color=colour,
                        linewidth=linewidth,
                        markersize=markersize,
                        alpha=0.75,
                        label=f"{label} {split}",
                    )
            tokens = entry["learning_cost"]["tokens"]
            ids = [p["y"] for p in entry["curves"]["id"]]
            cost_ax.plot(
                tokens[: len(ids)],
                ids,
                "o",
                color=colour,
                markersize=markersize,
                alpha=0.75,
                label=f"{label} held-out ID",
            )
            fit = entry["p_sat"]["per_1000_tokens"].get("fit")
            if fit and tokens and max(tokens) > 0:
                import numpy as np

                xs = np.linspace(0, max(tokens) * 3, 200)
                cost_ax.plot(
                    xs, hill(xs, fit["s0"], fit["rise"], fit["c50"], fit["h"]), "-", color=colour, alpha=0.6
                )
        curves_ax.set(
            xlabel="checkpoint",
            ylabel="score (points)",
            title=f"{family_id}: learning curves",
            ylim=(-5, 105),
        )
        cost_ax.set(
            xlabel="learning cost (tokens)",
            ylabel="held-out ID (points)",
            title="held-out ID vs cost, saturating fit",
            ylim=(-5, 105),
        )
        from matplotlib.ticker import MaxNLocator

        curves_ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # checkpoints are whole: no 0.5
        for ax in (curves_ax, cost_ax):
            ax.grid(alpha=0.3)
            ax.legend(fontsize="x-small", loc="best")
        fig.savefig(path, dpi=DPI, format="png", metadata=PNG_METADATA)
    return path


HTML_HEADERS = (
    "lineage",
    "environment",
    "held-out ID by checkpoint",
    "held-out OOD",
    "train",
    "tokens",
    "rejected edits",
)


def _curve(points: list[Mapping[str, Any]]) -> str:
    return " ".join(f"{p['y']:.0f}" for p in points if isinstance(p.get("y"), int | float)) or "—"


def html_families(section: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The HTML report's table of each family: a row of text per lineage (its curves by
    checkpoint, its last learning cost), and the family's blocked lineages and notes."""
    families = []
    for family_id, family in sorted((section.get("families") or {}).items()):
        rows = []
        for label, entry in (family.get("lineages") or {}).items():
            curves = entry.get("curves") or {}
            tokens = (entry.get("learning_cost") or {}).get("tokens") or []
            rows.append(
                [
                    label,
                    str(entry.get("environment", "")),
                    _curve(curves.get("id") or []),
                    _curve(curves.get("ood") or []),
                    _curve(curves.get("train") or []),
                    str(tokens[-1]) if tokens else "—",
                    str(entry.get("rejected_edits", 0)),
                ]
            )
        families.append(
            {
                "id": family_id,
                "rows": rows,
                "blocked": family.get("blocked"),
                "notes": flat_notes(family.get("lineages") or {}),
            }
        )
    return families
