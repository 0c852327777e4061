"""Stream metrics (ServeLearnBench §5), each a small function of plain sequences so the unit
tests can check them on hand-made data.

A *policy* is one activation run of a hidden rule: the consecutive windows in which it is active
(a rule that leaves and re-enters makes two policies). Its tickets are the hidden serving tickets
it decides, in stream order; correctness is 1 (score 100) or 0.

- reward: mean score (0..100) over tickets, per case (hidden / fully specified), window, phase.
- AULC@K: mean over k = 1..K of the mean correctness of policies' k-th ticket (policies with at
  least k tickets), in %.
- exploration E(k): mean number of distinct answers among a policy's first k tickets; its AUC is
  the mean of E(1..K) (K = 8); 1.0 means the agent never tried anything new.
- knowledge acquisition KA@5: per policy, mean correctness over the 5 tickets after its first
  correct one (policies with a later ticket), averaged over policies, in %.
- forgetting: per withdrawal of a rule, correctness on the first 10 serving tickets after it
  that the withdrawn rule would now answer wrongly; averaged over withdrawals, in % (higher is
  better: the stale belief was dropped).

``summarize`` builds the ``protocols.stream`` section of the summary: one config per harness ×
agent × model. Rewards are on test tickets (store frozen), averaged over trials per stream, then
over streams for a tier and overall (every stream has equal weight, as in ServeLearnBench Table
2). Learning diagnostics are means over the items.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from pytest_pastbench.core.stats import mean

from .schema import HARNESSES

AULC_K = 10
EXPLORATION_K = 8
KA_HORIZON = 5
FORGETTING_K = 10


def percent(value: float | None) -> float | None:
    return None if value is None else round(100.0 * value, 2)


def aulc(sequences: Sequence[Sequence[int]], k: int = AULC_K) -> float | None:
    per_k = [mean(seq[i] for seq in sequences if len(seq) > i) for i in range(k)]
    return percent(mean(v for v in per_k if v is not None))


def exploration_curve(answers: Sequence[Sequence[str]], k: int = EXPLORATION_K) -> list[float | None]:
    return [mean(float(len(set(seq[: i + 1]))) for seq in answers if len(seq) > i) for i in range(k)]


def exploration_auc(answers: Sequence[Sequence[str]], k: int = EXPLORATION_K) -> float | None:
    value = mean(v for v in exploration_curve(answers, k) if v is not None)
    return None if value is None else round(value, 3)


def knowledge_acquisition(sequences: Sequence[Sequence[int]], horizon: int = KA_HORIZON) -> float | None:
    per_policy = []
    for seq in sequences:
        if 1 in seq:
            first = list(seq).index(1)
            after = seq[first + 1 : first + 1 + horizon]
            if after:
                per_policy.append(sum(after) / len(after))
    return percent(mean(per_policy))


def forgetting(sequences: Sequence[Sequence[int]], k: int = FORGETTING_K) -> float | None:
    return percent(mean(sum(seq[:k]) / len(seq[:k]) for seq in sequences if seq))


def activation_runs(row: str) -> list[tuple[int, int]]:
    """``"-XX--X"`` -> [(1, 2), (5, 5)]: first and last window of each run of ``X``."""
    runs: list[tuple[int, int]] = []
    start = None
    for index, mark in enumerate([*row, "-"]):
        if mark == "X" and start is None:
            start = index
        elif mark != "X" and start is not None:
            runs.append((start, index - 1))
            start = None
    return runs


def policy_tickets(tickets: Iterable[Any], activation: dict[str, str]) -> list[list[Any]]:
    """Hidden serving tickets per policy (rule × activation run), each in stream order."""
    serving = sorted((t for t in tickets if t.phase == "serving" and t.case == "hidden"), key=lambda t: t.seq)
    policies = []
    for rule_id, row in sorted(activation.items()):
        for first, last in activation_runs(row):
            policies.append([t for t in serving if t.decided_by == rule_id and first <= t.window <= last])
    return [p for p in policies if p]


def withdrawal_tickets(tickets: Iterable[Any], activation: dict[str, str]) -> list[list[Any]]:
    """Per withdrawal: serving tickets after it (until re-entry) that the rule would get wrong."""
    serving = sorted((t for t in tickets if t.phase == "serving"), key=lambda t: t.seq)
    groups = []
    for rule_id, row in sorted(activation.items()):
        for _, last in activation_runs(row):
            if last + 1 >= len(row):
                continue
            reentry = next((w for w in range(last + 1, len(row)) if row[w] == "X"), len(row))
            group = [t for t in serving if last < t.window < reentry and rule_id in t.stale]
            if group:
                groups.append(group)
    return groups


def correctness(tickets: Sequence[Any]) -> list[int]:
    return [1 if t.score == 100 else 0 for t in tickets]


def reward(tickets: Iterable[Any], case: str | None = None) -> float | None:
    scores = [t.score for t in tickets if case is None or t.case == case]
    value = mean(scores)
    return None if value is None else round(value, 2)


def stream_metrics(tickets: list[Any], activation: dict[str, str]) -> dict[str, Any]:
    """Everything one item reports: headline metrics, curves and per-window rewards."""
    test = [t for t in tickets if t.phase == "test"]
    serving = [t for t in tickets if t.phase == "serving"]
    policies = policy_tickets(tickets, activation)
    costs = [t.cost_usd for t in tickets]
    metrics = {
        "hidden": reward(test, "hidden"),
        "fully": reward(test, "fully"),
        "serving_hidden": reward(serving, "hidden"),
        "serving_fully": reward(serving, "fully"),
        "aulc10": aulc([correctness(p) for p in policies]),
        "exploration_auc": exploration_auc([[t.answer for t in p] for p in policies]),
        "ka5": knowledge_acquisition([correctness(p) for p in policies]),
        "forgetting": forgetting([correctness(g) for g in withdrawal_tickets(tickets, activation)]),
        "tokens_per_task": round(sum(t.tokens for t in tickets) / len(tickets), 1) if tickets else None,
        "cost_per_task": (
            round(sum(costs) / len(costs), 8) if costs and all(c is not None for c in costs) else None
        ),
        "unparsed": sum(1 for t in tickets if t.unparsed),
        "tasks": len(tickets),
    }
    windows = sorted({t.window for t in tickets})
    per_window = [
        {
            "window": w,
            **{
                phase: {
                    "hidden": reward([t for t in tickets if t.window == w and t.phase == phase], "hidden"),
                    "fully": reward([t for t in tickets if t.window == w and t.phase == phase], "fully"),
                    "n": sum(1 for t in tickets if t.window == w and t.phase == phase),
                }
                for phase in ("serving", "test")
            },
        }
        for w in windows
    ]
    curves = {
        "aulc": [
            percent(v)
            for v in [mean(c[i] for c in map(correctness, policies) if len(c) > i) for i in range(AULC_K)]
        ],
        "exploration": exploration_curve([[t.answer for t in p] for p in policies]),
    }
    # Each test ticket's score by its stream position: the units a gate's noise estimate pairs.
    test_scores = {
        case: {str(t.seq): t.score for t in test if t.case == case} for case in ("hidden", "fully")
    }
    return {
        "metrics": metrics,
        "windows": per_window,
        "curves": curves,
        "policies": len(policies),
        "test_scores": test_scores,
    }


TIERS = ("L1", "L2", "L3")


DIAGNOSTICS = (
    "serving_hidden",
    "aulc10",
    "exploration_auc",
    "ka5",
    "forgetting",
    "tokens_per_task",
    "cost_per_task",
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
    # offline model's replay-oracle-only scenarios (servelearn/items.py); and the sample run.
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
