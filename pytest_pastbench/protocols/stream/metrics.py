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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pytest_pastbench.core.stats import mean

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
