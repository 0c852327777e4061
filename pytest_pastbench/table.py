"""The Δ table: its rows and number formats (shared by terminal, Markdown, HTML and comparisons)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabulate import tabulate

HEADERS = ("family", "capability", "n", "S_on", "S_off", "Δ [95% CI]", "Mech", "blocked")


def format_number(value: Any, signed: bool = False, digits: int = 2) -> str:
    """``digits`` decimals (two by default); "—" for anything that is not a number (N/A,
    missing, blocked)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "—"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def format_delta(entry: Mapping[str, Any] | None) -> str:
    """``+0.25 [+0.10, +0.40]``: Δ with its 95% CI when there is one."""
    if entry is None:
        return "—"
    text = format_number(entry.get("delta"), signed=True)
    ci = entry.get("delta_ci")
    if isinstance(ci, list | tuple) and len(ci) == 2 and entry.get("delta") is not None:
        text += f" [{format_number(ci[0], True)}, {format_number(ci[1], True)}]"
    return text


def delta_rows(config: Mapping[str, Any]) -> list[tuple[str, str, Mapping[str, Any]]]:
    """(name, capability, entry): families by capability, then capabilities, then overall."""
    families = sorted(config.get("families", {}).items(), key=lambda kv: (kv[1].get("capability", ""), kv[0]))
    rows = [(fid, entry.get("capability", ""), entry) for fid, entry in families]
    rows += [(f"[{name}]", name, entry) for name, entry in sorted(config.get("capabilities", {}).items())]
    rows.append(("[overall]", "all", config.get("overall", {})))
    return rows


# Marks a row whose rubric checks were graded by their deterministic fallback (no judge configured).
FALLBACK_MARK = " †"
FALLBACK_NOTE = "† rubric checks graded by their deterministic fallback (no judge configured)"


def delta_cells(name: str, capability: str, entry: Mapping[str, Any]) -> list[str]:
    return [
        name + (FALLBACK_MARK if entry.get("rubric_fallback") else ""),
        capability,
        str(entry.get("n_episodes", 0)),
        format_number(entry.get("s_on")),
        format_number(entry.get("s_off")),
        format_delta(entry),
        format_number(entry.get("mech")),
        str(entry.get("infra_blocked", 0)),
    ]


def render_delta_table(summary: Mapping[str, Any]) -> str:
    blocks = []
    for config in summary.get("configs", []):
        rows = [delta_cells(*row) for row in delta_rows(config)]
        table = tabulate(rows, headers=HEADERS, tablefmt="simple", disable_numparse=True)
        if config.get("overall", {}).get("rubric_fallback"):
            table += "\n" + FALLBACK_NOTE
        blocks.append(f"{config['label']}\n{table}")
    return "\n\n".join(blocks)


ABLATION_HEADERS = (
    "config",
    "mechanisms",
    "overall Δ",
    "update Δ",
    "Mech",
    "prompt tok/episode",
    "wall s/episode",
)


def render_ablation_table(rows: list[Mapping[str, Any]]) -> str:
    """The mechanism ablation (rows from ``summary.ablation_rows``), as the paper prints it."""
    cells = [
        [
            row["label"],
            ",".join(row["mechanisms"]) or "none",
            format_number(row.get("delta"), signed=True),
            format_number(row.get("update_delta"), signed=True),
            format_number(row.get("mech")),
            _whole(row.get("prompt_tokens_per_episode")),
            format_number(row.get("wall_s_per_episode")),
        ]
        for row in rows
    ]
    return tabulate(cells, headers=ABLATION_HEADERS, tablefmt="simple", disable_numparse=True)


def _whole(value: Any) -> str:
    return f"{value:.0f}" if isinstance(value, int | float) and not isinstance(value, bool) else "—"
