"""Pydantic models of a family file (docs/design.md §5) and its JSON Schema.

A family file is YAML; every field is validated here so that a bad file fails at collection
with the file name and the field path, and never half-way through a paid run.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

CAPABILITIES = ("memory", "procedural", "gathering", "update")
STAGES = ("learn", "distractor", "eval_near", "eval_far")
EVAL_STAGES = ("eval_near", "eval_far")


def arm_runs_stage(arm: str, stage: str) -> bool:
    """The control arm ("off") runs only the eval sessions, each from an empty store."""
    return arm != "off" or stage in EVAL_STAGES


WORLD_SERVICES = ("notes", "archive", "tickets", "deploys")
IDENT = r"^[a-z][a-z0-9_]*$"
# Family ids may carry upper case (PAST-Bench's own ids, e.g. "SM01_preference_adoption").
FAMILY_IDENT = r"^[A-Za-z][A-Za-z0-9_]*$"


class _Strict(BaseModel):
    # Unknown keys are almost always typos in hand-written YAML: reject them loudly.
    model_config = ConfigDict(extra="forbid", frozen=True)


class Fact(_Strict):
    """A statement the evidence rules look for in store entries and answers.

    ``match`` lists terms that must all appear (case-insensitive) for an entry or answer to
    assert the fact; by default the whole ``text``.
    """

    text: str = Field(min_length=1)
    match: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        return {"text": value} if isinstance(value, str) else value

    def terms(self) -> list[str]:
        return [t.lower() for t in (self.match or [self.text])]


EVIDENCE_KINDS = ("store", "present")


class _Check(_Strict):
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


class FreezeWindow(_Strict):
    """Irreversible actions between start and end (ISO 8601) are safety violations."""

    start: str
    end: str
    tools: list[str] = Field(default_factory=list, description="empty: every irreversible tool")


class ForbiddenArgument(_Strict):
    tool: str
    arg: str
    pattern: str = Field(description="regex searched in the argument's string form")


class Safety(_Strict):
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


class Document(_Strict):
    id: str
    title: str
    body: str
    tags: list[str] = Field(default_factory=list)


class Note(_Strict):
    title: str
    body: str


class Ticket(_Strict):
    id: str
    title: str
    body: str = ""
    queue: str = "general"
    priority: str = "P3"
    status: str = "open"
    assignee: str = ""


class Deploy(_Strict):
    service: str
    version: str
    at: str
    by: str = ""


class WorldSeed(_Strict):
    """Seed data of the simulated services; every session starts from this state."""

    now: str = Field(default="2026-03-02T10:00:00", description="the session clock (ISO 8601)")
    notes: list[Note] = Field(default_factory=list)
    archive: list[Document] = Field(default_factory=list)
    tickets: list[Ticket] = Field(default_factory=list)
    deploys: list[Deploy] = Field(default_factory=list)


class SessionWorld(_Strict):
    """Records added to the episode's world for one session only: the present that may be newer
    than what the learn sessions taught (a document revised since, a new ticket, a later deploy).

    A record with the key of a seed record (note title, document id, ticket id) replaces it for
    this session, as a revision does; any other record is added. Deploys are always added."""

    notes: list[Note] = Field(default_factory=list)
    archive: list[Document] = Field(default_factory=list)
    tickets: list[Ticket] = Field(default_factory=list)
    deploys: list[Deploy] = Field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.notes or self.archive or self.tickets or self.deploys)

    @model_validator(mode="after")
    def _unique_keys(self) -> SessionWorld:
        # Two records with one key would make "which revision is current" a matter of file order.
        for service, records, key in (
            ("notes", self.notes, "title"),
            ("archive", self.archive, "id"),
            ("tickets", self.tickets, "id"),
        ):
            keys = [getattr(r, key) for r in records]
            dupes = sorted({k for k in keys if keys.count(k) > 1})
            if dupes:
                raise ValueError(f"{service}: duplicate {key} {dupes[0]!r} in one session's world")
        return self


def _overlay(seed: list[Any], added: list[Any], key: str) -> list[Any]:
    # Keep the seed's order (the world's listing order is part of determinism); a revision takes
    # its original's place, new records follow in file order.
    revised = {getattr(r, key): r for r in added}
    merged = [revised.pop(getattr(r, key), r) for r in seed]
    return merged + [r for r in added if getattr(r, key) in revised]


class Session(_Strict):
    stage: Literal["learn", "distractor", "eval_near", "eval_far"]
    user: list[Annotated[str, Field(min_length=1)]] = Field(
        min_length=1, description="user turns; the first opens the session"
    )
    checks: list[Check] = Field(default_factory=list)
    now: str | None = Field(default=None, description="overrides world.now for this session")
    safety: Safety = Field(default_factory=Safety)
    world: SessionWorld = Field(
        default_factory=SessionWorld,
        description="records added to the episode's world for this session only "
        "(a record with a seed record's title/id replaces it)",
    )

    @model_validator(mode="before")
    @classmethod
    def _user_string(cls, value: Any) -> Any:
        if isinstance(value, dict) and isinstance(value.get("user"), str):
            return {**value, "user": [value["user"]]}
        return value

    @model_validator(mode="after")
    def _eval_has_checks(self) -> Session:
        if self.stage in EVAL_STAGES and not self.checks:
            raise ValueError(f"an {self.stage} session needs at least one check")
        if self.stage in EVAL_STAGES and all(is_guard(c) for c in self.checks):
            # Only guards: an empty answer would pass every check and earn full credit.
            raise ValueError(
                f"an {self.stage} session needs a credit check besides its guards (forbids, "
                "world_state with max_count 0): add a value, contains, tool_called or world_state check"
            )
        return self


class Evidence(_Strict):
    key_facts: list[Fact] = Field(default_factory=list)
    stale_facts: list[Fact] = Field(default_factory=list)
    noise: list[Fact] = Field(default_factory=list)


class Episode(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    group: str | None = Field(
        default=None,
        min_length=1,
        description="scenario group: episodes that share a scenario share it; "
        "the bootstrap resamples groups, and episodes when absent",
    )
    title: str = ""
    sessions: list[Session] = Field(min_length=2)
    evidence: Evidence = Field(default_factory=Evidence)
    safety: Safety = Field(default_factory=Safety)
    world: WorldSeed = Field(default_factory=WorldSeed)

    @model_validator(mode="after")
    def _has_learn_and_eval(self) -> Episode:
        stages = [s.stage for s in self.sessions]
        if "learn" not in stages:
            raise ValueError("an episode needs at least one learn session")
        if not any(s in EVAL_STAGES for s in stages):
            raise ValueError("an episode needs at least one eval_near or eval_far session")
        first_eval = min(i for i, s in enumerate(stages) if s in EVAL_STAGES)
        if any(s in ("learn", "distractor") for s in stages[first_eval:]):
            raise ValueError("learn and distractor sessions must all come before the eval sessions")
        return self

    def eval_sessions(self) -> list[Session]:
        return [s for s in self.sessions if s.stage in EVAL_STAGES]

    def session_world(self, session: Session) -> WorldSeed:
        """The world ``session`` starts from: the episode's seed plus the session's own records,
        at the session's clock. Every place that builds a session's World goes through this, so
        the agent, the checks and the audit see the same present."""
        seed, extra = self.world, session.world
        return WorldSeed(
            now=session.now or seed.now,
            notes=_overlay(seed.notes, extra.notes, "title"),
            archive=_overlay(seed.archive, extra.archive, "id"),
            tickets=_overlay(seed.tickets, extra.tickets, "id"),
            deploys=[*seed.deploys, *extra.deploys],
        )


class Family(_Strict):
    format: Literal["pastbench/v1"] = Field(description="format tag; marks the file as a family")
    id: str = Field(pattern=FAMILY_IDENT, description="file stem, unique within its capability")
    capability: Literal["memory", "procedural", "gathering", "update"]
    version: str = Field(min_length=1)
    title: str = ""
    description: str = ""
    changelog: list[str] = Field(default_factory=list, description="what changed in this version")
    episodes: list[Episode] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_episode_ids(self) -> Family:
        seen: set[str] = set()
        for episode in self.episodes:
            if episode.id in seen:
                raise ValueError(f"duplicate episode id {episode.id!r}")
            seen.add(episode.id)
        return self

    @property
    def qualified_id(self) -> str:
        return f"{self.capability}.{self.id}"


def family_json_schema() -> dict[str, Any]:
    schema = Family.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "pytest-pastbench family file"
    return schema
