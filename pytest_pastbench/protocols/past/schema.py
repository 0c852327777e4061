"""Pydantic models of a PAST family file (docs/design.md §5) and its JSON Schema. The checks and
safety rules it holds are the shared check language (``protocols/shared/schema.py``).

A family file is YAML; every field is validated here so that a bad file fails at collection
with the file name and the field path, and never half-way through a paid run.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from pytest_pastbench.protocols.shared.schema import Check, Safety, StrictModel, is_guard

CAPABILITIES = ("memory", "procedural", "gathering", "update")
STAGES = ("learn", "distractor", "eval_near", "eval_far")
EVAL_STAGES = ("eval_near", "eval_far")


def arm_runs_stage(arm: str, stage: str) -> bool:
    """The control arm ("off") runs only the eval sessions, each from an empty store."""
    return arm != "off" or stage in EVAL_STAGES


WORLD_SERVICES = ("notes", "archive", "tickets", "deploys")
# Family ids may carry upper case (PAST-Bench's own ids, e.g. "SM01_preference_adoption").
FAMILY_IDENT = r"^[A-Za-z][A-Za-z0-9_]*$"


class Fact(StrictModel):
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


class Document(StrictModel):
    id: str
    title: str
    body: str
    tags: list[str] = Field(default_factory=list)


class Note(StrictModel):
    title: str
    body: str


class Ticket(StrictModel):
    id: str
    title: str
    body: str = ""
    queue: str = "general"
    priority: str = "P3"
    status: str = "open"
    assignee: str = ""


class Deploy(StrictModel):
    service: str
    version: str
    at: str
    by: str = ""


class WorldSeed(StrictModel):
    """Seed data of the simulated services; every session starts from this state."""

    now: str = Field(default="2026-03-02T10:00:00", description="the session clock (ISO 8601)")
    notes: list[Note] = Field(default_factory=list)
    archive: list[Document] = Field(default_factory=list)
    tickets: list[Ticket] = Field(default_factory=list)
    deploys: list[Deploy] = Field(default_factory=list)


class SessionWorld(StrictModel):
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


class Session(StrictModel):
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


class Evidence(StrictModel):
    key_facts: list[Fact] = Field(default_factory=list)
    stale_facts: list[Fact] = Field(default_factory=list)
    noise: list[Fact] = Field(default_factory=list)


class Episode(StrictModel):
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


class Family(StrictModel):
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
