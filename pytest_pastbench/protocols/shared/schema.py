"""The check language several protocols grade answers with, and the safety rules of a session
(docs/design.md §5): pydantic models, validated when a family file is read.

PAST's sessions and the interventions' queries hold these checks; ``checks.py`` grades them and
``safety.py`` finds broken safety rules.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# An identifier of a family file's own names (tools, fields, profiles): lower case, digits, _.
IDENT = r"^[a-z][a-z0-9_]*$"


class StrictModel(BaseModel):
    # Unknown keys are almost always typos in hand-written YAML: reject them loudly.
    model_config = ConfigDict(extra="forbid", frozen=True)


EVIDENCE_KINDS = ("store", "present")


class _Check(StrictModel):
    weight: float = Field(default=1.0, gt=0)
    description: str = ""
    # Where a competent agent finds what this check asks for (docs/design.md §4, "The control
    # arm measures competence"). "store": only in what the learn sessions taught, so the control
    # arm cannot earn it. "present": in this session's own user turns or in the world this
    # session sees (episode seed plus the session's records), so an agent without a store earns
    # it by doing the work. The audit checks both claims (dataset/audit.py).
    evidence: Literal["store", "present"] = Field(
        default="store",
        description="store: needs what the learn sessions taught; present: doable from this "
        "session's prompt and the world it sees, without the store",
    )


class ContainsCheck(_Check):
    """The final answer contains every value (case-insensitive)."""

    type: Literal["contains"]
    values: list[Annotated[str, Field(min_length=1)]] = Field(min_length=1)


class ForbidsCheck(_Check):
    """The final answer contains none of the values (case-insensitive)."""

    type: Literal["forbids"]
    values: list[Annotated[str, Field(min_length=1)]] = Field(min_length=1)


class RegexCheck(_Check):
    """A regular expression matches the final answer (``re.search``)."""

    type: Literal["regex"]
    pattern: str
    flags: list[Literal["IGNORECASE", "MULTILINE", "DOTALL"]] = Field(default_factory=list)

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"invalid regular expression: {exc}") from exc
        return pattern


class JsonFieldCheck(_Check):
    """The first JSON object in the answer has ``path`` (dotted) equal to ``equals``."""

    type: Literal["json_field"]
    path: str = Field(min_length=1)
    equals: Any


class ToolCalledCheck(_Check):
    """Some successful call of ``tool`` had these arguments.

    String values match case-insensitively as substrings; other values must be equal.
    """

    type: Literal["tool_called"]
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class WorldStateCheck(_Check):
    """After the session, a service holds at least ``min_count`` records matching ``match``."""

    type: Literal["world_state"]
    service: Literal["notes", "archive", "tickets", "deploys"]
    match: dict[str, Any] = Field(default_factory=dict)
    min_count: int = Field(default=1, ge=0)
    max_count: int | None = Field(default=None, ge=0)


class TsvColumnCheck(_Check):
    """The answer contains a TSV table whose ``column`` holds ``values``."""

    type: Literal["tsv_columns"]
    column: str
    values: list[str] = Field(min_length=1)
    ordered: bool = False


class ValueCheck(_Check):
    """One atomic fact in the final answer, matched normalised and token-bounded (``matching.py``)
    and graded by what the answer asserts (``claims.py``).

    An asserted ``decoy`` or ``superseded`` value fails the check, and so does one offered beside
    the value without commitment (a hedge); one the answer denies, names as old or as a contrast
    ("was X, now Y", "normally X, but Y") does not count against it.
    """

    type: Literal["value"]
    value: str = Field(min_length=1, description="the atomic fact: number, amount, date, ordinal, id, name")
    also: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="further accepted surface forms"
    )
    decoys: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="wrong-but-plausible values; any one asserted fails the check"
    )
    superseded: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="old values: allowed only when marked as old"
    )

    def forms(self) -> list[str]:
        return [self.value, *self.also]


class AnyOfCheck(_Check):
    """Passes when any of its checks passes (alternative ways to state one requirement)."""

    type: Literal["any_of"]
    checks: list[Check] = Field(min_length=2)


class RubricCheck(_Check):
    """Graded by the judge; with no judge the deterministic ``fallback`` checks decide (all must
    pass) and the result is flagged ``fallback``; with neither it is flagged unscored."""

    type: Literal["rubric"]
    rubric: str = Field(min_length=1)
    fallback: list[Check] = Field(
        default_factory=list, description="deterministic checks used when no judge is configured"
    )


Check = Annotated[
    ContainsCheck
    | ForbidsCheck
    | RegexCheck
    | JsonFieldCheck
    | ToolCalledCheck
    | WorldStateCheck
    | TsvColumnCheck
    | ValueCheck
    | AnyOfCheck
    | RubricCheck,
    Field(discriminator="type"),
]
AnyOfCheck.model_rebuild()
RubricCheck.model_rebuild()


def answer_values(check: Check) -> list[str]:
    """The values a credit check looks for in the answer (value forms, contains values, and those
    of any_of alternatives and rubric fallbacks); guards and structural checks give none."""
    if isinstance(check, ValueCheck):
        return check.forms()
    if isinstance(check, ContainsCheck):
        return list(check.values)
    if isinstance(check, AnyOfCheck | RubricCheck):
        nested = check.checks if isinstance(check, AnyOfCheck) else check.fallback
        return [v for c in nested for v in answer_values(c)]
    return []


def is_guard(check: Check) -> bool:
    """Guards can lower or zero c_e but never earn credit: doing nothing satisfies them."""
    if isinstance(check, ForbidsCheck):
        return True
    if isinstance(check, WorldStateCheck):
        return check.max_count == 0 or check.min_count == 0
    if isinstance(check, AnyOfCheck):
        return all(is_guard(c) for c in check.checks)
    return False


class FreezeWindow(StrictModel):
    """Irreversible actions between start and end (ISO 8601) are safety violations."""

    start: str
    end: str
    tools: list[str] = Field(default_factory=list, description="empty: every irreversible tool")


class ForbiddenArgument(StrictModel):
    tool: str
    arg: str
    pattern: str = Field(description="regex searched in the argument's string form")


class Safety(StrictModel):
    forbidden_tools: list[str] = Field(default_factory=list)
    forbidden_args: list[ForbiddenArgument] = Field(default_factory=list)
    secrets: list[Annotated[str, Field(min_length=4)]] = Field(
        default_factory=list, description="must never appear in an answer or in the store"
    )
    forbidden_strings: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="must never appear in an answer"
    )
    freeze_windows: list[FreezeWindow] = Field(default_factory=list)

    def merged(self, other: Safety) -> Safety:
        return Safety(
            forbidden_tools=[*self.forbidden_tools, *other.forbidden_tools],
            forbidden_args=[*self.forbidden_args, *other.forbidden_args],
            secrets=[*self.secrets, *other.secrets],
            forbidden_strings=[*self.forbidden_strings, *other.forbidden_strings],
            freeze_windows=[*self.freeze_windows, *other.freeze_windows],
        )
