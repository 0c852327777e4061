"""Banking: case review (card transactions, limit increases, outbound transfers).

A decision is written onto the case record (status and reason code), so grading the final
database against the replayed ground truth grades the decision and its reason together.
Decisions are final: a case that has left ``pending`` cannot be decided again, which keeps the
answer from being found by trying them all. Keys starting with ``_`` are scoring-side (the
accepted reason set of a case) and never shown.
"""

from __future__ import annotations

import json
from typing import Any

from ....errors import ToolFailure
from .env import Handler

CASE_TABLES = ("transactions", "limit_requests", "transfers")
BATCH_ACTIONS = {"approve": "approved", "deny": "denied", "escalate": "escalated"}


def handlers(db: dict[str, Any]) -> dict[str, Handler]:
    """The Banking tools bound to one episode's database ``db`` (mutated in place)."""
    bank = _Bank(db)
    return {
        "get_case_details": bank.get_case_details,
        "get_account_details": lambda account_id: bank.lookup("accounts", account_id, "account"),
        "get_merchant_details": lambda merchant_id: bank.lookup("merchants", merchant_id, "merchant"),
        "get_payee_details": lambda payee_id: bank.lookup("payees", payee_id, "payee"),
        "approve_case": bank.approve_case,
        "deny_case": lambda case_id, reason: bank.refuse(case_id, "denied", reason),
        "escalate_case": lambda case_id, reason: bank.refuse(case_id, "escalated", reason),
        "execute_leg": bank.execute_leg,
        "decide_batch": bank.decide_batch,
    }


class _Bank:
    def __init__(self, db: dict[str, Any]) -> None:
        self.db = db

    def case(self, case_id: str) -> dict[str, Any]:
        for table in CASE_TABLES:
            found = (self.db.get(table) or {}).get(case_id)
            if found is not None:
                return found
        raise ToolFailure("case not found")

    def pending(self, case_id: str) -> dict[str, Any]:
        case = self.case(case_id)
        if case.get("status") != "pending":
            raise ToolFailure(f"case already {case.get('status')}; decisions are final")
        return case

    def get_case_details(self, case_id: str) -> str:
        return json.dumps({k: v for k, v in self.case(case_id).items() if not k.startswith("_")})

    def lookup(self, table: str, key: str, what: str) -> str:
        record = (self.db.get(table) or {}).get(key)
        if record is None:
            raise ToolFailure(f"{what} not found")
        return json.dumps(record)

    def approve_case(self, case_id: str) -> str:
        case = self.pending(case_id)
        self._single(case)
        case.update(status="approved", reason=None)
        return f"Case {case_id} approved"

    def refuse(self, case_id: str, status: str, reason: str) -> str:
        case = self.pending(case_id)
        if case.get("lines"):
            raise ToolFailure("this case is a payment batch; settle it with decide_batch(case_id, decisions)")
        accepted = case.get("_accept") or []
        # Any code of the accepted set is the same right answer: store one value for all of them.
        case.update(status=status, reason=accepted[0] if reason in accepted else reason)
        return f"Case {case_id} {status} ({reason})"

    def execute_leg(self, case_id: str, leg: int) -> str:
        case = self.pending(case_id)
        legs = case.get("legs") or []
        if not legs:
            raise ToolFailure(
                "this case has no ranked alternatives; use approve_case, deny_case or escalate_case"
            )
        if not any(item.get("leg") == leg for item in legs):
            raise ToolFailure(f"no alternative {leg}; this case lists legs 1..{len(legs)}")
        case.update(status="approved", chosen_leg=leg, reason=None)
        return f"Case {case_id} approved on alternative {leg}"

    def decide_batch(self, case_id: str, decisions: list[Any]) -> str:
        case = self.pending(case_id)
        lines = case.get("lines") or []
        if not lines:
            raise ToolFailure(
                "this case is not a payment batch; use approve_case, deny_case or escalate_case"
            )
        verdicts: dict[int, tuple[str, str | None]] = {}
        for entry in decisions:
            if not isinstance(entry, dict) or not isinstance(entry.get("line"), int):
                raise ToolFailure("each decision is an object with an integer 'line'")
            action = str(entry.get("action", "")).strip().lower()
            if action not in BATCH_ACTIONS:
                raise ToolFailure("each decision needs action = approve | deny | escalate")
            reason = None if action == "approve" else entry.get("reason")
            if action != "approve" and not reason:
                raise ToolFailure(f"line {entry['line']}: {action} needs a reason code")
            verdicts[entry["line"]] = (BATCH_ACTIONS[action], reason)
        wanted = sorted(line.get("line") for line in lines)
        if sorted(verdicts) != wanted or len(decisions) != len(wanted):
            raise ToolFailure(f"decide every line exactly once (this batch has lines {wanted})")
        for line in lines:
            line["status"], line["reason"] = verdicts[line["line"]]
        case["status"] = "settled"
        return f"Batch {case_id} settled ({len(lines)} lines)"

    @staticmethod
    def _single(case: dict[str, Any]) -> None:
        if case.get("legs"):
            raise ToolFailure(
                "this case lists ranked alternatives; carry one out with execute_leg(case_id, leg)"
            )
        if case.get("lines"):
            raise ToolFailure("this case is a payment batch; settle it with decide_batch(case_id, decisions)")
