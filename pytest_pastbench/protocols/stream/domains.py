"""The two stream domains (ServeLearnBench Table 4): their ticket fields, actions, answer options
and documented policy. Hidden rules live in the family files; this is the visible world."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .rules import Clause, Facts, Rule


@dataclass(frozen=True)
class Field:
    name: str
    values: tuple[str, ...] = ()  # categorical
    grid: tuple[int, int, int] | None = None  # numeric: (low, high, step), inclusive

    def choices(self) -> list[str | int]:
        if self.grid is None:
            return list(self.values)
        low, high, step = self.grid
        return list(range(low, high + 1, step))


@dataclass(frozen=True)
class Action:
    name: str
    fields: tuple[str, ...]
    options: tuple[str, ...]
    request: str  # what the customer asks, shown on the ticket


@dataclass(frozen=True)
class Domain:
    name: str
    title: str
    fields: dict[str, Field]
    actions: dict[str, Action]
    documented: tuple[Rule, ...]
    # A consistency condition between fields (e.g. the day's total includes this amount).
    consistent: Callable[[Facts], bool] = field(default=lambda facts: True)

    def sample(self, rng: random.Random, action: str) -> dict[str, str | int]:
        facts: dict[str, str | int] = {"action": action}
        for name in self.actions[action].fields:
            facts[name] = rng.choice(self.fields[name].choices())
        return facts

    def options(self, facts: Facts) -> tuple[str, ...]:
        return self.actions[str(facts["action"])].options


def _rule(when: dict[str, str | int | tuple[str, ...]], answer: str) -> Rule:
    clauses = []
    for name, value in when.items():
        if isinstance(value, tuple):
            op, raw = value[0], value[1]
            clauses.append(Clause(name, op, int(raw) if op in ("above", "at most") else raw))
        else:
            clauses.append(Clause(name, "is", value))
    return Rule(tuple(clauses), answer)


RETAIL = Domain(
    name="retail",
    title="retail customer support",
    fields={
        "status": Field("status", ("pending", "delivered")),
        "payment": Field("payment", ("credit_card", "paypal", "gift_card", "multiple")),
        "category": Field("category", ("clothing", "home", "electronics", "toys", "clearance")),
        "destination": Field("destination", ("texas", "california", "florida", "new_york", "ohio")),
        "refund_request": Field("refund_request", ("original", "store_credit")),
    },
    actions={
        "cancel": Action(
            "cancel",
            ("status", "payment", "category", "destination", "refund_request"),
            ("cancel", "refuse:not_pending", "refuse:payment_restricted"),
            "cancel the order",
        ),
        "modify": Action(
            "modify",
            ("status", "payment", "category", "destination", "refund_request"),
            ("modify", "refuse:not_pending", "refuse:payment_restricted"),
            "change the items of the order",
        ),
        "exchange": Action(
            "exchange",
            ("status", "payment", "category", "destination", "refund_request"),
            (
                "exchange",
                "refuse:not_delivered",
                "refuse:category_restricted",
                "refuse:destination_restricted",
            ),
            "exchange an item of the order",
        ),
        "return": Action(
            "return",
            ("status", "payment", "category", "destination", "refund_request"),
            ("return:original", "return:store_credit", "refuse:not_delivered", "refuse:final_sale"),
            "return an item of the order",
        ),
    },
    documented=(
        _rule({"action": "cancel", "status": ("is not", "pending")}, "refuse:not_pending"),
        _rule({"action": "modify", "status": ("is not", "pending")}, "refuse:not_pending"),
        _rule({"action": "exchange", "status": ("is not", "delivered")}, "refuse:not_delivered"),
        _rule({"action": "return", "status": ("is not", "delivered")}, "refuse:not_delivered"),
        _rule({"action": "return", "category": "clearance"}, "refuse:final_sale"),
        _rule({"action": "return", "refund_request": "store_credit"}, "return:store_credit"),
        _rule({"action": "return"}, "return:original"),
        _rule({"action": "cancel"}, "cancel"),
        _rule({"action": "modify"}, "modify"),
        _rule({"action": "exchange"}, "exchange"),
    ),
)

BANKING = Domain(
    name="banking",
    title="retail banking operations",
    fields={
        "category": Field(
            "category", ("groceries", "travel", "electronics", "jewelry", "watches", "gift_cards")
        ),
        "merchant": Field("merchant", ("domestic", "overseas")),
        "verification": Field("verification", ("basic", "enhanced")),
        "amount": Field("amount", grid=(20, 6000, 10)),
        "day_total": Field("day_total", grid=(20, 12000, 10)),
        "standing": Field("standing", ("good", "fair", "poor")),
        "requested_limit": Field("requested_limit", grid=(2000, 40000, 500)),
        "payee": Field("payee", ("avery", "blake", "casey", "devon", "emery", "frankie", "gray", "harper")),
        "payee_age_days": Field("payee_age_days", grid=(0, 60, 1)),
        "transfer_amount": Field("transfer_amount", grid=(50, 12000, 50)),
    },
    actions={
        "authorize": Action(
            "authorize",
            ("category", "merchant", "verification", "amount", "day_total"),
            (
                "approve",
                "decline:over_limit",
                "decline:verification",
                "decline:merchant_restricted",
                "escalate:review",
            ),
            "authorize a pending card transaction",
        ),
        "limit_review": Action(
            "limit_review",
            ("standing", "requested_limit"),
            ("approve", "deny:standing", "escalate:manual_review"),
            "review a credit-limit increase",
        ),
        "transfer": Action(
            "transfer",
            ("payee", "payee_age_days", "transfer_amount"),
            ("release", "hold:restricted_payee", "hold:new_payee", "hold:over_limit"),
            "screen an outbound transfer",
        ),
    },
    documented=(
        _rule({"action": "authorize", "day_total": ("above", 8000)}, "decline:over_limit"),
        _rule(
            {
                "action": "authorize",
                "merchant": "overseas",
                "verification": "basic",
                "amount": ("above", 3000),
            },
            "decline:verification",
        ),
        _rule({"action": "authorize"}, "approve"),
        _rule({"action": "limit_review", "standing": "poor"}, "deny:standing"),
        _rule({"action": "limit_review", "requested_limit": ("above", 25000)}, "escalate:manual_review"),
        _rule({"action": "limit_review"}, "approve"),
        _rule({"action": "transfer", "payee_age_days": ("at most", 1)}, "hold:new_payee"),
        _rule({"action": "transfer", "transfer_amount": ("above", 9000)}, "hold:over_limit"),
        _rule({"action": "transfer"}, "release"),
    ),
    # The day's total includes this transaction.
    consistent=lambda facts: (
        facts.get("action") != "authorize" or int(facts["day_total"]) >= int(facts["amount"])
    ),
)

DOMAINS: dict[str, Domain] = {domain.name: domain for domain in (RETAIL, BANKING)}
