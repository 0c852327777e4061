"""The ``protocols.stream`` section's tables (``tables``) and their terminal text (``render``);
the section itself is ``metrics.summarize``."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from pytest_pastbench.results.ablation import AblationSpec
from pytest_pastbench.results.render.table import format_number

from .metrics import TIERS

DOMAINS = ("retail", "banking")
SERVELEARN_DOMAINS = (*DOMAINS, "pitch")  # ServeLearnBench's (servelearn/) add Pitch


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


def _pair(cell: dict[str, Any]) -> str:
    return f"{format_number(cell['hidden'], digits=1)} / {format_number(cell['fully'], digits=1)}"


def tables(section: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """The section's tables as (title, headers, rows) of text: the terminal prints them, the HTML
    report shows them."""
    configs = section.get("configs", [])
    published = any("published" in config["overall"] for config in configs)
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
        if published:
            row.append(_pair(config["overall"]["published"]) if "published" in config["overall"] else "—")
        tier_rows.append(row)
    tier_headers = [
        "harness · agent@model",
        *(f"{t} {c}" for t in TIERS for c in ("H", "F")),
        "avg H",
        "avg F",
        *(["published H / F"] if published else []),
    ]
    present = {key.split(".")[0] for config in configs for key in config["streams"]}
    domains = SERVELEARN_DOMAINS if "pitch" in present else DOMAINS
    domain_keys = [f"{d}.{t}" for d in domains for t in TIERS]
    domain_rows = []
    for config in configs:
        row = [config["label"]]
        for key in domain_keys:
            cell = config["streams"].get(key)
            shown = "—" if cell is None else _pair(cell)
            if cell is not None and "published" in cell:
                shown += f" ({_pair(cell['published'])})"
            row.append(shown)
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
    return [
        (
            "test reward by tier, % (H = hidden rules decide, F = fully specified; store frozen)",
            tier_headers,
            tier_rows,
        ),
        (
            "test reward by stream, % (H / F"
            + ("; published in parentheses, --pastbench-stream-reference)" if published else ")"),
            ["harness · agent@model", *domain_keys],
            domain_rows,
        ),
        (
            "learning from serving (hidden serving tickets; AULC, KA, forgetting in %)",
            learning_headers,
            learning_rows,
        ),
    ]


def render(section: dict[str, Any]) -> str:
    if not section.get("configs"):
        return "no stream items were measured"
    text = "\n\n".join(
        f"{title}\n{tabulate(rows, headers=headers, tablefmt='simple', disable_numparse=True)}"
        for title, headers, rows in tables(section)
    )
    lines = [
        *(
            f"sample: {s['spec']} (seed {s['seed']}; --pastbench-stream-sample)"
            for s in section.get("sample", [])
        ),
        *section.get("notes", []),
    ]
    return text + ("\n\n" + "\n".join(lines) if lines else "")
