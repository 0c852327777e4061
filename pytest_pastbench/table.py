"""The terminal Δ table (tabulate), one block per configuration in the run."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

HEADERS = ("family", "capability", "n", "S_on", "S_off", "Δ [95% CI]", "Mech", "blocked")


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def _delta(entry: dict[str, Any]) -> str:
    ci = entry.get("delta_ci")
    text = _num(entry.get("delta"), signed=True)
    if ci:
        text += f" [{ci[0]:+.2f}, {ci[1]:+.2f}]"
    return text


def _row(name: str, capability: str, entry: dict[str, Any]) -> list[str]:
    return [
        name,
        capability,
        str(entry.get("n_episodes", 0)),
        _num(entry.get("s_on")),
        _num(entry.get("s_off")),
        _delta(entry),
        _num(entry.get("mech")),
        str(entry.get("infra_blocked", 0)),
    ]


def render_delta_table(summary: dict[str, Any]) -> str:
    blocks = []
    for config in summary.get("configs", []):
        rows = [
            _row(family_id, entry.get("capability", ""), entry)
            for family_id, entry in sorted(
                config["families"].items(), key=lambda kv: (kv[1].get("capability", ""), kv[0])
            )
        ]
        rows += [_row(f"[{name}]", name, entry) for name, entry in sorted(config["capabilities"].items())]
        rows.append(_row("[overall]", "all", config["overall"]))
        blocks.append(
            f"{config['label']}\n" + tabulate(rows, headers=HEADERS, tablefmt="simple", disable_numparse=True)
        )
    return "\n\n".join(blocks)
