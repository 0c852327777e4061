"""Banking: case review (card transactions, limit increases, outbound transfers).

A decision is written onto the case record (status and reason code), so grading the final
database against the replayed ground truth grades the decision and its reason together.
Decisions are final: a case that has left ``pending`` cannot be decided again, which keeps the
answer from being found by trying them all. Keys starting with ``_`` are scoring-side (the
accepted reason set of a case) and never shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ....errors import ToolFailure

if TYPE_CHECKING:
    from .env import Handler
    from .schema import Scenario

CASE_TABLES = ("transactions", "limit_requests", "transfers")
BATCH_ACTIONS = {"approve": "approved", "deny": "denied", "escalate": "escalated"}
INVALID_REASON = "invalid reason code"
_CODE = r"[a-z]+(?:_[a-z]+)+"
# "DENY (verification_required)" in a bulletin, "with reason over_limit" in a manual.
_CODE_IN_TEXT = re.compile(rf"\(({_CODE})\)|\breason ({_CODE})")
# "Reason codes: corridor_blocked | over_limit | ..." in a workflow guide.
_CODE_LIST = re.compile(rf"reason codes:\s*({_CODE}(?:\s*\|\s*{_CODE})*)", re.I)


def reason_codes(scenario: Scenario) -> frozenset[str]:
    """The reason codes a deny, an escalation or a batch line may cite in this scenario.

    The authors' tools reject any other code ("invalid reason code", the case stays pending); their
    list lives in their code, not in the download, so ours is every code the scenario's files
    name: the manual, the Oracle bulletins, the ground-truth actions and the cases' accepted sets.
    """
    env = scenario.environment
    texts = [env.policy, env.workflow, *(w.oracle_bulletin for w in env.windows)]
    found = {a or b for text in texts for a, b in _CODE_IN_TEXT.findall(text)}
    found.update(
        code.strip() for text in texts for codes in _CODE_LIST.findall(text) for code in codes.split("|")
    )
    for task in scenario.tasks():
        for action in task.evaluator.actions:
            found.update(_cited(action.kwargs))
    for table in CASE_TABLES:
        for case in (env.world.get(table) or {}).values():
            found.update(str(code) for code in case.get("_accept") or ())
    return frozenset(found)


def _cited(kwargs: dict[str, Any]) -> Iterable[str]:
    if isinstance(kwargs.get("reason"), str):
        yield kwargs["reason"]
    for entry in kwargs.get("decisions") or ():
        if isinstance(entry, dict) and isinstance(entry.get("reason"), str):
            yield entry["reason"]


def reason_error(codes: frozenset[str], name: str, args: dict[str, Any]) -> str | None:
    """``invalid reason code`` when a decision cites a code outside ``codes``; None otherwise."""
    if name in ("deny_case", "escalate_case"):
        return None if args.get("reason") in codes else INVALID_REASON
    if name == "decide_batch" and isinstance(args.get("decisions"), list):
        for entry in args["decisions"]:
            action = str(entry.get("action", "")).strip().lower() if isinstance(entry, dict) else ""
            if action in ("deny", "escalate") and entry.get("reason") not in codes:
                return INVALID_REASON
    return None


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
        return f"Case {case_id} {status} ({case['reason']})"  # the stored code, as the published tool says

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
            line = _line_number(entry)
            if line is None:
                raise ToolFailure("each decision is an object with an integer 'line'")
            action = str(entry.get("action", "")).strip().lower()
            if action not in BATCH_ACTIONS:
                raise ToolFailure("each decision needs action = approve | deny | escalate")
            reason = None if action == "approve" else entry.get("reason")
            if action != "approve" and not reason:
                raise ToolFailure(f"line {line}: {action} needs a reason code")
            verdicts[line] = (BATCH_ACTIONS[action], reason)  # a repeated line: the last entry counts
        wanted = sorted(line.get("line") for line in lines)
        if sorted(verdicts) != wanted:
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


def _line_number(entry: Any) -> int | None:
    if not isinstance(entry, dict) or isinstance(entry.get("line"), bool):
        return None
    try:
        return int(entry.get("line"))
    except (TypeError, ValueError):
        return None
