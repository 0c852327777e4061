"""The ``protocols.stream`` section of the summary and its terminal tables.

One config per harness × agent × model. Rewards are on test tickets (store frozen), averaged
over trials per stream, then over streams for a tier and overall (every stream has equal
weight, as in ServeLearnBench Table 2). Learning diagnostics are means over the items.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from tabulate import tabulate

from pytest_pastbench.core.stats import mean
from pytest_pastbench.results.ablation import AblationSpec
from pytest_pastbench.results.render.table import format_number

from .schema import HARNESSES

TIERS = ("L1", "L2", "L3")
DOMAINS = ("retail", "banking")
DIAGNOSTICS = (
    "serving_hidden",
    "aulc10",
    "exploration_auc",
    "ka5",
    "forgetting",
    "tokens_per_task",
    "cost_per_task",
)


def _item_tokens(record: dict[str, Any]) -> float | None:
    per_task = record["metrics"]["tokens_per_task"]
    return None if per_task is None else per_task * record["counts"]["tasks"]


# --pastbench-ablation: test reward on hidden-rule tickets (store frozen), per harness.
ABLATION = AblationSpec(
    score="test H %",
    item_score=lambda record: record["metrics"]["hidden"],
    tokens=_item_tokens,
    group=lambda record: record["harness"],
    group_name="harness",
)


def _mean(values: Any, digits: int = 2) -> float | None:
    value = mean(v for v in values if v is not None)
    return None if value is None else round(value, digits)


def summarize(records: list[dict[str, Any]], seed: int) -> dict[str, Any]:
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        groups[(record["episode"], record["agent"], record["model"])].append(record)
    order = {name: index for index, name in enumerate(HARNESSES)}
    configs = []
    for (harness, agent, model), items in sorted(
        groups.items(), key=lambda kv: (order.get(kv[0][0], 99), kv[0])
    ):
        measured = [r for r in items if not r["infra_blocked"]]
        by_stream: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in measured:
            by_stream[f"{record['domain']}.{record['tier']}"].append(record)
        streams = {
            key: {
                "hidden": _mean(r["metrics"]["hidden"] for r in rs),
                "fully": _mean(r["metrics"]["fully"] for r in rs),
                "n": len(rs),
            }
            for key, rs in sorted(by_stream.items())
        }
        tiers = {
            tier: {
                case: _mean(s[case] for key, s in streams.items() if key.endswith(f".{tier}"))
                for case in ("hidden", "fully")
            }
            for tier in TIERS
            if any(key.endswith(f".{tier}") for key in streams)
        }
        overall: dict[str, Any] = {
            "hidden": _mean(s["hidden"] for s in streams.values()),
            "fully": _mean(s["fully"] for s in streams.values()),
            **{name: _mean((r["metrics"].get(name) for r in measured), 8) for name in DIAGNOSTICS},
            "n_items": len(items),
            "infra_blocked": len(items) - len(measured),
        }
        configs.append(
            {
                "label": f"{harness} · {agent}@{model}",
                "harness": harness,
                "agent": agent,
                "model": model,
                "overall": overall,
                "tiers": tiers,
                "streams": streams,
            }
        )
    return {"schema_version": 1, "seed": seed, "configs": configs}


def render(section: dict[str, Any]) -> str:
    configs = section.get("configs", [])
    if not configs:
        return "no stream items were measured"
    tier_rows = []
    for config in configs:
        row = [config["label"]]
        for tier in TIERS:
            cell = config["tiers"].get(tier, {})
            row += [format_number(cell.get("hidden"), digits=1), format_number(cell.get("fully"), digits=1)]
        row += [
            format_number(config["overall"]["hidden"], digits=1),
            format_number(config["overall"]["fully"], digits=1),
        ]
        tier_rows.append(row)
    tier_headers = [
        "harness · agent@model",
        *(f"{t} {c}" for t in TIERS for c in ("H", "F")),
        "avg H",
        "avg F",
    ]
    domain_keys = [f"{d}.{t}" for d in DOMAINS for t in TIERS]
    domain_rows = []
    for config in configs:
        row = [config["label"]]
        for key in domain_keys:
            cell = config["streams"].get(key)
            row.append(
                "—"
                if cell is None
                else f"{format_number(cell['hidden'], digits=1)} / {format_number(cell['fully'], digits=1)}"
            )
        domain_rows.append(row)
    learning_rows = []
    for config in configs:
        overall = config["overall"]
        learning_rows.append(
            [
                config["label"],
                format_number(overall["serving_hidden"], digits=1),
                format_number(overall["aulc10"], digits=1),
                format_number(overall["exploration_auc"]),
                format_number(overall["ka5"], digits=1),
                format_number(overall["forgetting"], digits=1),
                format_number(overall["tokens_per_task"], digits=0),
                format_number(overall["cost_per_task"], digits=6),
                str(overall["n_items"]),
                str(overall["infra_blocked"]),
            ]
        )
    learning_headers = [
        "harness · agent@model",
        "serving H",
        "AULC@10",
        "explore AUC@8",
        "KA@5",
        "forgetting",
        "tokens/task",
        "$/task",
        "items",
        "blocked",
    ]

    def table(rows: list[list[str]], headers: list[str]) -> str:
        return tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)

    return "\n\n".join(
        [
            "test reward by tier, % (H = hidden rules decide, F = fully specified; store frozen)",
            table(tier_rows, tier_headers),
            "test reward by stream, % (H / F)",
            table(domain_rows, ["harness · agent@model", *domain_keys]),
            "learning from serving (hidden serving tickets; AULC, KA, forgetting in %)",
            table(learning_rows, learning_headers),
        ]
    )
