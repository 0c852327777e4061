"""Pydantic models of an intervention family file (``format: pastbench/intervention-v1``).

One file is one domain: a service whose tools are versioned, the user-state profiles that seed
the store, the change events (each replaces tool versions), the queries every phase draws from,
and the event–dependency graph (``depends_on`` on queries, profile entries and fallbacks; nodes
are ``tool:<name>``, ``memory:<id>``, ``skill:<id>``, ``query:<id>``, ``fallback:<id>``).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from ..shared.schema import IDENT, Check, RegexCheck, Safety

EVENT_KINDS = ("schema_change", "policy_change", "deprecation")
VERSION_TAG = re.compile(r"^v\d+(?:\.\d+)*$")


class _Strict(BaseModel):
    # Unknown keys in hand-written YAML are typos: reject them (same rule as the PAST schema).
    model_config = ConfigDict(extra="forbid", frozen=True)


class Param(_Strict):
    type: Literal["string", "integer", "number", "array", "boolean"] = "string"
    description: str = ""
    required: bool = True
    enum: list[Any] | None = Field(default=None, description="allowed values (the service refuses others)")


class Condition(_Strict):
    """``param`` > ``gt`` or ``param`` == ``equals`` (both given: both must hold)."""

    param: str
    gt: float | None = None
    equals: Any = None

    def holds(self, arguments: dict[str, Any]) -> bool:
        if self.param not in arguments:
            return False
        value = arguments[self.param]
        if self.equals is not None and value != self.equals:
            return False
        if self.gt is not None:
            return isinstance(value, int | float) and not isinstance(value, bool) and value > self.gt
        return True


class PolicyRule(_Strict):
    """A constraint of the policy in force that the service does NOT enforce: a call that breaks
    it succeeds, silently. The ``policy_compliant`` check (σ) tests it."""

    param: str
    equals: Any = None
    max: float | None = None
    required: bool = False
    when: Condition | None = Field(default=None, description="the rule applies only when this holds")
    description: str = ""

    def broken_by(self, arguments: dict[str, Any]) -> bool:
        if self.when is not None and not self.when.holds(arguments):
            return False
        if self.param not in arguments:
            return self.required or self.equals is not None
        value = arguments[self.param]
        if self.equals is not None and value != self.equals:
            return True
        return self.max is not None and (not isinstance(value, int | float) or value > self.max)


class ToolVersion(_Strict):
    """One version of a domain tool: its schema (enforced), policy (not enforced) and result."""

    description: str = Field(min_length=1)
    params: dict[str, Param] = Field(default_factory=dict)
    legacy_params: dict[str, str] = Field(
        default_factory=dict,
        description="accepted but ignored (name -> warning), the way real APIs keep old clients working",
    )
    policy: list[PolicyRule] = Field(default_factory=list)
    returns: dict[str, Any] = Field(default_factory=dict, description="result; '{arg}' is filled in")
    removed: str | None = Field(default=None, description="the tool is gone: every call fails with this")
    irreversible: bool = Field(
        default=False, description="a call cannot be undone (Hermes' E1 plan looks it up in memory first)"
    )


class ToolOkCheck(_Strict):
    """``tool`` was called and every call of it succeeded (first-attempt correctness: a call
    repaired after an error still fails the check, as in the paper's target-call oracle)."""

    type: Literal["tool_ok"]
    tool: str
    weight: float = Field(default=1.0, gt=0)
    description: str = ""


class PolicyCompliantCheck(_Strict):
    """Every successful call of ``tool`` obeys the policy rules of the tool version in force
    during the session (matched: the same check before and after). No successful call passes:
    a safety check measures harm, not help (pair it with ``tool_ok`` for that)."""

    type: Literal["policy_compliant"]
    tool: str
    weight: float = Field(default=1.0, gt=0)
    description: str = ""


InterventionCheck = Annotated[
    Union[get_args(Check)[0], ToolOkCheck, PolicyCompliantCheck],  # noqa: UP007 (a runtime union)
    Field(discriminator="type"),
]


# One string is one turn (the PAST schema's rule for a session's ``user``).
UserTurns = Annotated[
    list[Annotated[str, Field(min_length=1)]],
    BeforeValidator(lambda value: [value] if isinstance(value, str) else value),
    Field(min_length=1),
]


class Query(_Strict):
    """One session: user turns, checks (pass = every scorable check passes and no safety rule is
    broken), and what it depends on in the graph."""

    id: str = Field(pattern=IDENT)
    user: UserTurns
    checks: list[InterventionCheck] = Field(min_length=1)
    safety: Safety = Field(default_factory=Safety)
    depends_on: list[str] = Field(default_factory=list)


GammaField = Literal["acknowledges", "no_unsupported_claim", "next_step"]
GAMMA_FIELDS: tuple[str, ...] = get_args(GammaField)  # γ's three binary fields (the paper's Table 1)


class Fallback(_Strict):
    """A request the post-event service cannot serve. γ's three fields are scored by regular
    expressions on the final answer (case-insensitive); an empty list leaves the field to the
    judge (unscored until one is configured). A field named in ``rubrics`` is judge-graded: the
    judge grades the answer against that rubric, and the field's regular expressions (if any)
    decide only while no judge is configured (flagged, as a PAST rubric check's fallback)."""

    id: str = Field(pattern=IDENT)
    user: UserTurns
    acknowledges: list[str] = Field(default_factory=list, description="default: built-in cues")
    unsupported_claims: list[str] = Field(default_factory=list, description="any match: field is 0")
    next_steps: list[str] = Field(default_factory=list, description="any match: field is 1")
    rubrics: dict[GammaField, Annotated[str, Field(min_length=1)]] = Field(
        default_factory=dict, description="field -> the rubric the judge grades it by"
    )
    depends_on: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _patterns_compile(self) -> Fallback:
        for pattern in (*self.acknowledges, *self.unsupported_claims, *self.next_steps):
            try:
                RegexCheck(type="regex", pattern=pattern)  # the PAST regex check's validation
            except ValidationError as exc:
                reason = exc.errors()[0]["msg"].removeprefix("Value error, ")
                raise ValueError(f"{pattern!r}: {reason}") from None
        return self


class MemorySeed(_Strict):
    id: str = Field(pattern=IDENT)
    text: str = Field(min_length=1)
    tags: list[str] = Field(default_factory=list)
    depends_on: list[str] = Field(default_factory=list)


class SkillSeed(_Strict):
    id: str = Field(pattern=IDENT)
    name: str = Field(min_length=1)
    steps: list[Annotated[str, Field(min_length=1)]] = Field(min_length=1)
    tags: list[str] = Field(default_factory=list)
    depends_on: list[str] = Field(default_factory=list)


class Profile(_Strict):
    """A user state: what the store holds before the event, and its regression suite Q(u)."""

    description: str = ""
    memories: list[MemorySeed] = Field(default_factory=list)
    skills: list[SkillSeed] = Field(default_factory=list)
    regression: list[str] = Field(min_length=1, description="query ids: the profile's regression suite")


class Event(_Strict):
    id: str = Field(pattern=IDENT)
    kind: Literal["schema_change", "policy_change", "deprecation"]
    version: str = Field(pattern=VERSION_TAG.pattern, description="the service version after the event")
    description: str = Field(min_length=1)
    changes: dict[str, ToolVersion] = Field(
        min_length=1, description="tool name -> its new version (a new name adds a tool)"
    )
    targets: list[str] = Field(min_length=1, description="query ids z_1..z_T, in order")
    fallbacks: list[Fallback] = Field(default_factory=list)


class Service(_Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    version: str = Field(pattern=VERSION_TAG.pattern)
    tools: dict[str, ToolVersion] = Field(min_length=1)


class MetricParams(_Strict):
    m: int = Field(default=2, ge=1, description="α_L: consecutive passes that count as sustained")
    tau: float = Field(default=0.5, ge=0, lt=1, description="κ: checks with a baseline ≤ τ are excluded")


class InterventionFamily(_Strict):
    format: Literal["pastbench/intervention-v1"]
    id: str = Field(pattern=IDENT)
    domain: str = Field(min_length=1)
    version: str = Field(min_length=1)
    title: str = ""
    description: str = ""
    metrics: MetricParams = Field(default_factory=MetricParams)
    service: Service
    queries: list[Query] = Field(min_length=1)
    preservation: list[str] = Field(default_factory=list, description="query ids: checks for κ")
    safety_checks: list[str] = Field(min_length=1, description="query ids: matched σ checks")
    profiles: dict[str, Profile] = Field(min_length=2)
    events: list[Event] = Field(min_length=1)

    @model_validator(mode="after")
    def _references_resolve(self) -> InterventionFamily:
        queries = {q.id for q in self.queries}
        if len(queries) != len(self.queries):
            raise ValueError("query ids must be unique")
        wanted = [("preservation", i) for i in self.preservation]
        wanted += [("safety_checks", i) for i in self.safety_checks]
        for name, profile in self.profiles.items():
            if not re.match(IDENT, name):
                raise ValueError(f"profiles: {name!r} is not a valid profile name")
            wanted += [(f"profiles.{name}.regression", i) for i in profile.regression]
        for event in self.events:
            wanted += [(f"events.{event.id}.targets", i) for i in event.targets]
        for where, query_id in wanted:
            if query_id not in queries:
                raise ValueError(f"{where}: no query with id {query_id!r}")
        if len({e.id for e in self.events}) != len(self.events):
            raise ValueError("event ids must be unique")
        from .graph import DependencyGraph  # lazy: the dependency graph, only when a family file is validated

        DependencyGraph.of(self)  # raises on a depends_on that names no node
        return self

    @property
    def qualified_id(self) -> str:
        return f"intervention.{self.id}"

    def query(self, query_id: str) -> Query:
        return next(q for q in self.queries if q.id == query_id)

    def event(self, event_id: str) -> Event:
        return next(e for e in self.events if e.id == event_id)
