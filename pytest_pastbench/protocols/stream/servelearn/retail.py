"""Retail: customer support over an order database (users, products, orders).

The tools change the database the way the published tool descriptions say (cancel or modify a
pending order, return or exchange delivered items, place an order). They check only what a tool
itself can check (status, ownership, variants, gift-card balance); the store's hidden rules are
not enforced here, because they are what the agent must learn: grading compares the final
database with the evaluator's ground-truth actions replayed on the initial one.
"""

from __future__ import annotations

import json
from typing import Any

from ....errors import ToolFailure
from .env import Handler

CANCELLED, RETURN_REQUESTED, EXCHANGE_REQUESTED = "cancelled", "return requested", "exchange requested"
# Orders placed during an episode are numbered after the published ones, as the authors' store does.
NEW_ORDER_BASE = 9_000_000


def handlers(db: dict[str, Any]) -> dict[str, Handler]:
    """The Retail tools bound to one episode's database ``db`` (mutated in place)."""
    return _Retail(db).tools()


class _Retail:
    def __init__(self, db: dict[str, Any]) -> None:
        self.db = db

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

    def _method(self, order_or_user: dict[str, Any], method_id: str) -> dict[str, Any]:
        user = self._user(order_or_user.get("user_id", ""))
        method = (user.get("payment_methods") or {}).get(method_id)
        if method is None:
            raise ToolFailure("payment method not found")
        return method

    def _refund_target(self, order: dict[str, Any], method_id: str) -> None:
        """Refunds and modification differences go through the original payment method or a gift card."""
        method = self._method(order, method_id)
        history = order.get("payment_history") or [{}]
        if method.get("source") != "gift_card" and method_id != history[0].get("payment_method_id"):
            raise ToolFailure("the payment method must be the original payment method or a gift card")

    def _order_in(self, order_id: str, *statuses: str) -> dict[str, Any]:
        order = self._order(order_id)
        if order.get("status") not in statuses:
            raise ToolFailure(f"order status is {order.get('status')!r}; this needs {' or '.join(statuses)}")
        return order

    def _items(self, order: dict[str, Any], item_ids: list[str]) -> list[dict[str, Any]]:
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

    def _settle(self, order: dict[str, Any], method_id: str, difference: float) -> None:
        """Charge (difference > 0) or refund the price difference through ``method_id``."""
        method = self._method(order, method_id)
        if method.get("source") == "gift_card":
            if difference > 0 and float(method.get("balance", 0)) < difference:
                raise ToolFailure(
                    f"insufficient gift card balance ({method.get('balance')} < {difference:.2f})"
                )
            method["balance"] = round(float(method.get("balance", 0)) - difference, 2)
        if difference:
            kind = "payment" if difference > 0 else "refund"
            order.setdefault("payment_history", []).append(
                {"transaction_type": kind, "amount": abs(difference), "payment_method_id": method_id}
            )

    # writes --------------------------------------------------------------------------------
    def cancel_pending_order(self, order_id: str, reason: str) -> str:
        order = self._order_in(order_id, "pending")
        # Refund what each method still has paid in (payments minus refunds), once per method.
        paid: dict[str, float] = {}
        for entry in order.get("payment_history") or []:
            sign = 1 if entry.get("transaction_type") == "payment" else -1
            method_id = entry["payment_method_id"]
            paid[method_id] = round(paid.get(method_id, 0.0) + sign * float(entry["amount"]), 2)
        for method_id, amount in paid.items():
            if amount <= 0:
                continue
            method = self._method(order, method_id)
            if method.get("source") == "gift_card":
                method["balance"] = round(float(method.get("balance", 0)) + amount, 2)
            order["payment_history"].append(
                {"transaction_type": "refund", "amount": amount, "payment_method_id": method_id}
            )
        order["status"] = CANCELLED
        order["cancel_reason"] = reason
        return json.dumps(order)

    def modify_pending_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> str:
        order = self._order_in(order_id, "pending")
        self._refund_target(order, payment_method_id)  # the published policy: original method or gift card
        items, difference = self._swap(order, item_ids, new_item_ids)
        self._settle(order, payment_method_id, difference)
        for item, new_id in zip(items, new_item_ids, strict=True):
            variant = self._variant(item, new_id)
            item.update(item_id=new_id, price=variant.get("price"), options=variant.get("options"))
        # A modified order is still pending: it can be modified again or cancelled.
        return json.dumps(order)

    def return_delivered_order_items(
        self, order_id: str, item_ids: list[str], payment_method_id: str, reason: str
    ) -> str:
        order = self._order_in(order_id, "delivered")
        self._items(order, item_ids)
        self._refund_target(order, payment_method_id)
        order.update(
            status=RETURN_REQUESTED,
            return_items=sorted(item_ids),
            return_payment_method_id=payment_method_id,
            return_reason=reason,
        )
        return json.dumps(order)

    def exchange_delivered_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> str:
        order = self._order_in(order_id, "delivered")
        _, difference = self._swap(order, item_ids, new_item_ids)
        self._refund_target(order, payment_method_id)
        self._settle(order, payment_method_id, difference)
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
        user = self._user(user_id)
        lines = [self._catalog_item(item_id) for item_id in item_ids]
        total = round(sum(float(line["price"]) for line in lines), 2)
        order_id = _new_order_id(self.db.setdefault("orders", {}))
        order = {"order_id": order_id, "user_id": user_id, "address": user.get("address"), "items": lines}
        order.update(status="pending", payment_history=[])
        method = self._method(order, payment_method_id)
        charged = total
        if method.get("source") == "gift_card" and float(method.get("balance", 0)) < total:
            if fallback_payment_method_id is None:
                raise ToolFailure("the gift card balance does not cover the total and no fallback was given")
            fallback = self._method(order, fallback_payment_method_id)
            if fallback.get("source") == "gift_card":
                raise ToolFailure("the fallback payment method must not be a gift card")
            charged = round(float(method.get("balance", 0)), 2)
            order["payment_history"].append(
                {
                    "transaction_type": "payment",
                    "amount": round(total - charged, 2),
                    "payment_method_id": fallback_payment_method_id,
                }
            )
        if method.get("source") == "gift_card":
            method["balance"] = round(float(method.get("balance", 0)) - charged, 2)
        order["payment_history"].insert(
            0, {"transaction_type": "payment", "amount": charged, "payment_method_id": payment_method_id}
        )
        self.db["orders"][order_id] = order
        user.setdefault("orders", []).append(order_id)
        return json.dumps(order)

    def _catalog_item(self, item_id: str) -> dict[str, Any]:
        for product_id, product in sorted((self.db.get("products") or {}).items()):
            variant = (product.get("variants") or {}).get(item_id)
            if variant is not None:
                if not variant.get("available", True):
                    raise ToolFailure(f"item {item_id} is not available")
                name = product.get("name", "")
                return {"name": name, "product_id": product_id, "item_id": item_id, **_priced(variant)}
        raise ToolFailure(f"item {item_id} is not in the catalog")


def _new_order_id(orders: dict[str, Any]) -> str:
    """The next free ``#W`` number after the base: deterministic, so the agent and the replay agree."""
    number = NEW_ORDER_BASE + len(orders)
    while f"#W{number}" in orders:
        number += 1
    return f"#W{number}"


def _priced(variant: dict[str, Any]) -> dict[str, Any]:
    return {"price": variant.get("price"), "options": variant.get("options")}
