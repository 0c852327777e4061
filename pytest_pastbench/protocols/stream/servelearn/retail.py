"""Retail: customer support over an order database (users, products, orders).

The tools change the database the way the published tools do: cancel or modify a pending order,
return or exchange delivered items, place an order, with every cent materialized in the order's
payment history (fees withheld, refunds and gift-card balances) so that grading by final state
grades the money too. What they enforce is the store's *mechanics* (``Mechanics``): the fixed
rules of the published policy (cancellation reasons and tier thresholds, return reasons, tier
restocking fees, category windows counted from delivery to the scenario's date, final-sale
clearance items), with the gates the authors' tools leave open at each tier. Those mechanics
are the same in every window; what changes across windows is which requests are *correct*,
and that reaches the agent only through rewards: grading compares the final database with the
evaluator's ground-truth actions replayed on the initial one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ....errors import ToolFailure

if TYPE_CHECKING:
    from .env import Handler
    from .schema import Scenario

CANCELLED, RETURN_REQUESTED, EXCHANGE_REQUESTED = "cancelled", "return requested", "exchange requested"
# Orders placed during an episode are numbered after the published ones, as the authors' store does.
NEW_ORDER_BASE = 9_000_000
DEFAULT_TIER = "bronze"  # a user without a membership field
_TODAY = re.compile(r"Today's date is (\d{4}-\d{2}-\d{2})")


def _frozen(table: dict[str, float]) -> Mapping[str, float]:
    return MappingProxyType(table)


@dataclass(frozen=True)
class Mechanics:
    """The rules the Retail tools themselves enforce (the published policy's fixed values).

    ``today`` is the scenario's date (its system prompt's "Today's date is ..."); a return or an
    exchange needs it to count the days since delivery. The four flags are the gates the
    authors' tools open per tier: a return of a clearance item or past its window is carried out
    (and judged by reward), a refund to the original method of a multi-method order is split in
    proportion to what each paid, and modifications are recorded on the order.
    """

    today: date | None = None
    cancel_reasons: tuple[str, ...] = ("no longer needed", "ordered by mistake")
    cancel_max_total: Mapping[str, float] = field(
        default_factory=lambda: _frozen({"bronze": 200.0, "silver": 300.0, "gold": 500.0})
    )
    return_reasons: tuple[str, ...] = ("defective", "no longer needed", "wrong item")
    return_fee: Mapping[str, float] = field(
        default_factory=lambda: _frozen({"bronze": 0.15, "silver": 0.10, "gold": 0.05})
    )
    return_window_days: Mapping[str, float] = field(
        default_factory=lambda: _frozen({"apparel": 30, "electronics": 14, "home": 30})
    )
    clearance_returnable: bool = False
    window_returnable: bool = False
    split_refund_proportional: bool = False
    record_modifications: bool = False


TIER_GATES: dict[str, dict[str, bool]] = {
    "L1": {"clearance_returnable": True, "window_returnable": True},
    "L2": {"split_refund_proportional": True, "record_modifications": True},
    "L3": {"split_refund_proportional": True, "record_modifications": True, "clearance_returnable": True},
}


def mechanics_of(scenario: Scenario) -> Mechanics:
    """The scenario's mechanics: its tier's gates and the date its system prompt states."""
    tier = next((t.tier for t in scenario.tasks()), "").upper()
    found = _TODAY.search(scenario.environment.system_prompt)
    today = date.fromisoformat(found.group(1)) if found else None
    return replace(Mechanics(today=today), **TIER_GATES.get(tier, {}))


def handlers(db: dict[str, Any], mechanics: Mechanics | None = None) -> dict[str, Handler]:
    """The Retail tools bound to one episode's database ``db`` (mutated in place)."""
    return _Retail(db, mechanics or Mechanics()).tools()


class _Retail:
    def __init__(self, db: dict[str, Any], mechanics: Mechanics) -> None:
        self.db = db
        self.rules = mechanics

    def tools(self) -> dict[str, Handler]:
        return {
            "find_user_id_by_name_zip": self.find_user_id_by_name_zip,
            "get_user_details": lambda user_id: json.dumps(self._user(user_id)),
            "get_order_details": lambda order_id: json.dumps(self._order(order_id)),
            "get_product_details": lambda product_id: json.dumps(self._product(product_id)),
            "cancel_pending_order": self.cancel_pending_order,
            "place_order": self.place_order,
            "modify_pending_order_items": self.modify_pending_order_items,
            "return_delivered_order_items": self.return_delivered_order_items,
            "exchange_delivered_order_items": self.exchange_delivered_order_items,
        }

    # lookups -------------------------------------------------------------------------------
    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:  # noqa: A002
        for user_id, user in sorted((self.db.get("users") or {}).items()):
            name = user.get("name") or {}
            if (
                str(name.get("first_name", "")).lower() == first_name.strip().lower()
                and str(name.get("last_name", "")).lower() == last_name.strip().lower()
                and str((user.get("address") or {}).get("zip")) == zip.strip()
            ):
                return user_id
        raise ToolFailure("user not found")

    def _user(self, user_id: str) -> dict[str, Any]:
        user = (self.db.get("users") or {}).get(user_id)
        if user is None:
            raise ToolFailure("user not found")
        return user

    def _order(self, order_id: str) -> dict[str, Any]:
        order = (self.db.get("orders") or {}).get(order_id)
        if order is None:
            raise ToolFailure("order not found")
        return order

    def _product(self, product_id: str) -> dict[str, Any]:
        product = (self.db.get("products") or {}).get(product_id)
        if product is None:
            raise ToolFailure("product not found")
        return product

    def _owner(self, order: dict[str, Any]) -> dict[str, Any]:
        return self._user(order.get("user_id", ""))

    def _tier(self, order: dict[str, Any]) -> str:
        return str(self._owner(order).get("membership") or DEFAULT_TIER)

    def _method(self, order: dict[str, Any], method_id: str) -> dict[str, Any]:
        method = (self._owner(order).get("payment_methods") or {}).get(method_id)
        if method is None:
            raise ToolFailure("payment method not found")
        return method

    def _original_or_gift_card(self, order: dict[str, Any], method_id: str, problem: str) -> None:
        """Refunds and modification differences go through the original payment method or a gift card."""
        method = self._method(order, method_id)
        history = order.get("payment_history") or [{}]
        if method.get("source") != "gift_card" and method_id != history[0].get("payment_method_id"):
            raise ToolFailure(problem)

    def _order_in(self, order_id: str, *statuses: str) -> dict[str, Any]:
        order = self._order(order_id)
        if order.get("status") not in statuses:
            raise ToolFailure(f"order status is {order.get('status')!r}; this needs {' or '.join(statuses)}")
        return order

    def _items(self, order: dict[str, Any], item_ids: list[str]) -> list[dict[str, Any]]:
        """The order's items for ``item_ids``, one per id (a repeated id needs as many in the order)."""
        if not item_ids:
            raise ToolFailure("item_ids must not be empty")
        pool = list(order.get("items") or [])
        chosen = []
        for item_id in item_ids:
            item = next((it for it in pool if it.get("item_id") == item_id), None)
            if item is None:
                raise ToolFailure(f"item {item_id} is not in order {order.get('order_id')}")
            pool.remove(item)
            chosen.append(item)
        return chosen

    def _variant(self, item: dict[str, Any], new_item_id: str) -> dict[str, Any]:
        product = self._product(item.get("product_id", ""))
        variant = (product.get("variants") or {}).get(new_item_id)
        if variant is None:
            raise ToolFailure(f"{new_item_id} is not a variant of the product of item {item.get('item_id')}")
        if not variant.get("available", True):
            raise ToolFailure(f"item {new_item_id} is not available")
        if variant.get("clearance"):
            raise ToolFailure(f"item {new_item_id} is a clearance item (final sale) and cannot be selected")
        return variant

    def _eligible(self, order: dict[str, Any], item_ids: list[str], returning: bool) -> None:
        """Final sale and the category window (days since delivery), unless the tier's gate is open."""
        delivered = order.get("delivered_at")
        today = self.rules.today
        age = (today - date.fromisoformat(str(delivered)[:10])).days if delivered and today else None
        verb = "returned" if returning else "exchanged"
        for item_id in item_ids:
            product = self._product_with(item_id)
            variant = product["variants"][item_id]
            if variant.get("clearance") and not (returning and self.rules.clearance_returnable):
                raise ToolFailure(f"item {item_id} is a clearance item (final sale) and cannot be {verb}")
            category = str(product.get("category", ""))
            window = self.rules.return_window_days.get(category)
            expired = window is not None and (age is None or age > window)
            if expired and not (returning and self.rules.window_returnable):
                kind = "return" if returning else "exchange"
                raise ToolFailure(f"the {category} {kind} window ({window} days after delivery) has passed")

    def _product_with(self, item_id: str) -> dict[str, Any]:
        for product in (self.db.get("products") or {}).values():
            if item_id in (product.get("variants") or {}):
                return product
        raise ToolFailure(f"item {item_id} is not in the catalog")

    def _move(self, order: dict[str, Any], method_id: str, amount: float) -> None:
        """Charge (amount > 0) or refund (amount < 0) ``method_id``; gift cards settle at once."""
        method = self._method(order, method_id)
        if method.get("source") == "gift_card":
            balance = float(method.get("balance", 0))
            if amount > 0 and balance < amount:
                raise ToolFailure(f"insufficient gift card balance ({balance:.2f} < {amount:.2f})")
            method["balance"] = round(balance - amount, 2)
        kind = "payment" if amount > 0 else "refund"
        order.setdefault("payment_history", []).append(
            {"transaction_type": kind, "amount": round(abs(amount), 2), "payment_method_id": method_id}
        )

    # writes --------------------------------------------------------------------------------
    def cancel_pending_order(self, order_id: str, reason: str) -> str:
        order = self._order_in(order_id, "pending")
        if reason not in self.rules.cancel_reasons:
            # The authors' neutral text (config_tools.py): no list of valid reasons to guess from.
            raise ToolFailure("invalid reason")
        # What each method still has paid in (payments minus refunds), refunded once per method.
        paid: dict[str, float] = {}
        for entry in order.get("payment_history") or []:
            sign = 1 if entry.get("transaction_type") == "payment" else -1
            method_id = entry["payment_method_id"]
            paid[method_id] = round(paid.get(method_id, 0.0) + sign * float(entry["amount"]), 2)
        total = round(sum(paid.values()), 2)
        threshold = self.rules.cancel_max_total.get(self._tier(order))
        if threshold is not None and total > threshold:
            raise ToolFailure(
                f"orders with a total above ${threshold:.0f} cannot be cancelled for this account "
                f"(this order: ${total:.2f})"
            )
        for method_id, amount in paid.items():
            if amount > 0:
                self._move(order, method_id, -amount)
        order["status"] = CANCELLED
        order["cancel_reason"] = reason
        return json.dumps(order)

    def modify_pending_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> str:
        order = self._order_in(order_id, "pending")
        self._original_or_gift_card(
            order,
            payment_method_id,
            "the price difference must be settled via the original payment method or a gift card",
        )
        items, difference = self._swap(order, item_ids, new_item_ids)
        if difference:
            self._move(order, payment_method_id, difference)
        for item, new_id in zip(items, new_item_ids, strict=True):
            product = self._product(item.get("product_id", ""))
            variant = product["variants"][new_id]
            index = order["items"].index(item)
            order["items"][index] = {
                "name": product.get("name", ""),
                "product_id": item.get("product_id"),
                "item_id": new_id,
                **_priced(variant),
            }
        if self.rules.record_modifications:
            # Sorted: the same swaps in any argument order leave the same state.
            history = order.setdefault("modification_history", [])
            history += [
                {"item_id": old, "new_item_id": new}
                for old, new in sorted(zip(item_ids, new_item_ids, strict=True))
            ]
        # A modified order is still pending: it can be modified again or cancelled.
        return json.dumps(order)

    def return_delivered_order_items(
        self, order_id: str, item_ids: list[str], payment_method_id: str, reason: str
    ) -> str:
        order = self._order_in(order_id, "delivered")
        if reason not in self.rules.return_reasons:
            raise ToolFailure("invalid or missing return reason")  # neutral, as the authors'
        items = self._items(order, item_ids)
        self._eligible(order, item_ids, returning=True)
        self._original_or_gift_card(
            order, payment_method_id, "refund destination not permitted for this account"
        )
        gross = sum(float(item.get("price", 0)) for item in items)
        refund = round(gross * (1.0 - self.rules.return_fee.get(self._tier(order), 0.0)), 2)
        order.update(
            status=RETURN_REQUESTED,
            return_items=sorted(item_ids),
            return_reason=reason,
            return_refund_amount=refund,
        )
        paid: dict[str, float] = {}
        for entry in order.get("payment_history") or []:
            if entry.get("transaction_type") == "payment":
                method_id = entry["payment_method_id"]
                paid[method_id] = round(paid.get(method_id, 0.0) + float(entry["amount"]), 2)
        to_card = self._method(order, payment_method_id).get("source") != "gift_card"
        if self.rules.split_refund_proportional and to_card and len(paid) > 1:
            self._split_refund(order, refund, paid)
        else:
            self._move(order, payment_method_id, -refund)
        return json.dumps(order)

    def _split_refund(self, order: dict[str, Any], refund: float, paid: dict[str, float]) -> None:
        """A refund to the original methods, in proportion to what each paid; the last takes the cents."""
        total, allotted = sum(paid.values()), 0.0
        for index, method_id in enumerate(paid):
            last = index == len(paid) - 1
            part = round(refund - allotted, 2) if last else round(refund * paid[method_id] / total, 2)
            allotted = round(allotted + part, 2)
            self._move(order, method_id, -part)

    def exchange_delivered_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> str:
        order = self._order_in(order_id, "delivered")
        self._method(order, payment_method_id)
        self._items(order, item_ids)
        self._eligible(order, item_ids, returning=False)
        _, difference = self._swap(order, item_ids, new_item_ids)
        if difference > 0:  # an upcharge may go on any method on file
            self._move(order, payment_method_id, difference)
        elif difference < 0:
            self._original_or_gift_card(
                order, payment_method_id, "refund destination not permitted for this account"
            )
            self._move(order, payment_method_id, difference)
        # The two lists are kept as sorted multisets, so argument order does not change the state.
        order.update(
            status=EXCHANGE_REQUESTED,
            exchange_items=sorted(item_ids),
            exchange_new_items=sorted(new_item_ids),
            exchange_payment_method_id=payment_method_id,
            exchange_price_difference=difference,
        )
        return json.dumps(order)

    def _swap(
        self, order: dict[str, Any], item_ids: list[str], new_item_ids: list[str]
    ) -> tuple[list[dict[str, Any]], float]:
        if len(item_ids) != len(new_item_ids):
            raise ToolFailure("item_ids and new_item_ids must have the same length")
        items = self._items(order, item_ids)
        difference = sum(
            float(self._variant(item, new_id).get("price", 0)) - float(item.get("price", 0))
            for item, new_id in zip(items, new_item_ids, strict=True)
        )
        return items, round(difference, 2)

    def place_order(
        self,
        user_id: str,
        item_ids: list[str],
        payment_method_id: str,
        fallback_payment_method_id: str | None = None,
    ) -> str:
        if not item_ids:
            raise ToolFailure("item_ids must not be empty")
        user = self._user(user_id)
        methods = user.get("payment_methods") or {}
        method = methods.get(payment_method_id)
        if method is None:
            raise ToolFailure("payment method not found")
        if fallback_payment_method_id is not None:
            fallback = methods.get(fallback_payment_method_id)
            if fallback is None:
                raise ToolFailure("fallback payment method not found")
            if fallback.get("source") == "gift_card":
                raise ToolFailure("the fallback payment method must not be a gift card")
        lines = [self._catalog_item(item_id) for item_id in item_ids]
        total = round(sum(float(line["price"]) for line in lines), 2)
        history = [{"transaction_type": "payment", "amount": total, "payment_method_id": payment_method_id}]
        if method.get("source") == "gift_card":
            balance = round(float(method.get("balance", 0)), 2)
            if balance < total:
                if fallback_payment_method_id is None:
                    raise ToolFailure(
                        f"insufficient gift card balance ({balance:.2f} < {total:.2f}) and no fallback"
                    )
                # The gift card is drained and the fallback pays the rest.
                remainder = {"transaction_type": "payment", "amount": round(total - balance, 2)}
                history = [{**history[0], "amount": balance}] if balance > 0 else []
                history.append({**remainder, "payment_method_id": fallback_payment_method_id})
            method["balance"] = round(balance - min(balance, total), 2)
        orders = self.db.setdefault("orders", {})
        order_id = _new_order_id(orders)
        order = {
            "order_id": order_id,
            "user_id": user_id,
            "address": dict(user.get("address") or {}),
            "items": lines,
            "status": "pending",
            "payment_history": history,
        }
        if self.rules.today is not None:
            order["placed_at"] = self.rules.today.isoformat()
        orders[order_id] = order
        user.setdefault("orders", []).append(order_id)
        return json.dumps(order)

    def _catalog_item(self, item_id: str) -> dict[str, Any]:
        product = self._product_with(item_id)
        variant = product["variants"][item_id]
        if not variant.get("available", True):
            raise ToolFailure(f"item {item_id} is not available")
        product_id = product.get("product_id")
        return {
            "name": product.get("name", ""),
            "product_id": product_id,
            "item_id": item_id,
            **_priced(variant),
        }


def _new_order_id(orders: dict[str, Any]) -> str:
    """The next free ``#W`` number after the base: deterministic, so the agent and the replay agree."""
    number = NEW_ORDER_BASE + len(orders)
    while f"#W{number}" in orders:
        number += 1
    return f"#W{number}"


def _priced(variant: dict[str, Any]) -> dict[str, Any]:
    return {"price": variant.get("price"), "options": variant.get("options")}
