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
SERVELEARN_DOMAINS = (*DOMAINS, "pitch")  # ServeLearnBench's (servelearn/) add Pitch
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
                **_published(rs),
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
            **_published(list(streams.values())),
            **{name: _mean((r["metrics"].get(name) for r in measured), 8) for name in DIAGNOSTICS},
            "n_items": len(items),
            "infra_blocked": len(items) - len(measured),
        }
        configs.append(
            {
                "label": f"{harness} · {agent}@{model}",
                "windows": _window_means(measured),
                "harness": harness,
                "agent": agent,
                "model": model,
                "overall": overall,
                "tiers": tiers,
                "streams": streams,
            }
        )
    summary: dict[str, Any] = {"schema_version": 1, "seed": seed, "configs": configs}
    # What a reader must know beside the tables, one line each: a published row not found, an
    # offline model's replay-oracle-only scenarios (servelearn/collect.py); and the sample run.
    notes = sorted({note for record in records for note in record.get("notes") or ()})
    if notes:
        summary["notes"] = notes
    samples = sorted({(r["sample"]["spec"], r["sample"]["seed"]) for r in records if r.get("sample")})
    if samples:
        summary["sample"] = [{"spec": spec, "seed": seed} for spec, seed in samples]
    return summary


def _published(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """``--pastbench-stream-reference``: the published scores beside ours, over the same streams
    (records or stream cells that carry one); nothing when none does."""
    cells = [r["published"] for r in rows if r.get("published")]
    if not cells:
        return {}
    return {"published": {case: _mean(c[case] for c in cells) for case in ("hidden", "fully")}}


def _pair(cell: dict[str, Any]) -> str:
    return f"{format_number(cell['hidden'], digits=1)} / {format_number(cell['fully'], digits=1)}"


def _window_means(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Test reward per window (store frozen), averaged over trials per stream, then over the
    streams that have that window, like the tiers; the reward-per-window figure draws it."""
    per_stream: dict[int, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        for window in record.get("windows") or []:
            per_stream[window["window"]][f"{record['domain']}.{record['tier']}"].append(
                window.get("test") or {}
            )
    means = []
    for index, streams in sorted(per_stream.items()):
        row: dict[str, Any] = {"window": index, "streams": len(streams)}
        for case in ("hidden", "fully"):
            row[case] = _mean(_mean(t.get(case) for t in tests) for tests in streams.values())
        means.append(row)
    return means


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
