"""The run-wide budget (``--pastbench-max-cost`` / ``--pastbench-max-tokens``).

Enforced where every model request of the run passes: the ``ModelService`` (in-process, or the
gateway's process under xdist), so the agents of every worker and the judge share it. Once spent,
no new request starts; the item that needed one is ``infra_blocked`` with the budget's reason.
"""

from __future__ import annotations

import threading
from typing import Any

from ..errors import InfraError

RUN_COST = "budget:run_cost"
RUN_TOKENS = "budget:run_tokens"


class RunBudget:
    """Spent dollars and tokens against the run's limits (thread-safe: requests run at once)."""

    def __init__(self, max_cost_usd: float | None = None, max_tokens: int | None = None) -> None:
        self.max_cost_usd = max_cost_usd
        self.max_tokens = max_tokens
        self.cost_usd = 0.0
        self.tokens = 0
        self._lock = threading.Lock()

    @property
    def limited(self) -> bool:
        return self.max_cost_usd is not None or self.max_tokens is not None

    def check(self) -> None:
        """Raise ``InfraError`` with the budget's reason when a new request may not start."""
        with self._lock:
            if self.max_cost_usd is not None and self.cost_usd >= self.max_cost_usd:
                raise InfraError(RUN_COST)
            if self.max_tokens is not None and self.tokens >= self.max_tokens:
                raise InfraError(RUN_TOKENS)

    def spend(self, tokens: int, cost_usd: float | None) -> None:
        with self._lock:
            self.tokens += tokens
            self.cost_usd += cost_usd or 0.0


def unpriced_models(models: list[str]) -> list[str]:
    """The models whose calls have no known price (``--pastbench-max-cost`` could not count them):
    neither the alias file nor litellm's model information prices them."""
    # lazy: the model client (and its litellm prices), only when a budget is priced
    from .client import OFFLINE_PREFIX, litellm_price, resolve_model

    unpriced = []
    for model in models:
        alias = resolve_model(model)
        if model.startswith(OFFLINE_PREFIX) or alias.model.startswith(OFFLINE_PREFIX) or alias.prices:
            continue
        if litellm_price(alias.model) is None:
            unpriced.append(model)
    return unpriced


def budget_block(
    max_cost_usd: float | None, max_tokens: int | None, ledger: dict[str, Any], records: list[Any]
) -> dict[str, Any]:
    """The summary's ``run.budget``: the limits, what the run's requests spent (from the ledger)
    and the items left undone because the budget ran out."""
    spent_tokens, spent_usd = ledger_spent(ledger)
    undone = sorted(r["nodeid"] for r in records if _budget_reason(r))
    return {
        "max_cost_usd": max_cost_usd,
        "max_tokens": max_tokens,
        "spent_usd": None if spent_usd is None else round(spent_usd, 6),
        "spent_tokens": spent_tokens,
        "left_undone": len(undone),
        "left_undone_items": undone,
    }


def ledger_spent(ledger: dict[str, Any]) -> tuple[int, float | None]:
    """Tokens (prompt + completion) and dollars over a ledger's models; dollars None when a model
    has no price (unknown is not free)."""
    tokens = sum(int(e.get("prompt_tokens", 0)) + int(e.get("completion_tokens", 0)) for e in ledger.values())
    costs = [e.get("cost_usd") for e in ledger.values()]
    return tokens, None if any(c is None for c in costs) else float(sum(costs))


def budget_line(block: dict[str, Any]) -> str:
    """One terminal line: spent against the limits, and what was left undone."""
    limits = []
    if block["max_cost_usd"] is not None:
        spent = "unpriced" if block["spent_usd"] is None else f"${block['spent_usd']:.4f}"
        limits.append(f"{spent} of ${block['max_cost_usd']:g}")
    if block["max_tokens"] is not None:
        limits.append(f"{block['spent_tokens']:,} of {block['max_tokens']:,} tokens")
    undone = block["left_undone"]
    tail = (
        f"; {undone} items left undone (infra_blocked, budget:run_*); "
        "finish them with --pastbench-resume=RUN and a new budget"
        if undone
        else "; every item finished"
    )
    return f"pastbench budget: spent {', '.join(limits)}{tail}"


def _budget_reason(record: dict[str, Any]) -> bool:
    reasons = record.get("reasons") or [record.get("reason")]  # PAST records / protocol records
    return any(str(reason).startswith((RUN_COST, RUN_TOKENS)) for reason in reasons)
