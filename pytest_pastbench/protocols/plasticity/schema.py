"""Pydantic models of a plasticity family file (``format: pastbench/plasticity-v1``).

One file is one lineage setting: an environment (``text`` tasks or ``chess`` against Stockfish),
the number of checkpoints C, the train batch and held-out split sizes, and the environment's
content. Every field is validated at collection, so a typo fails with the file and field path.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

IDENT = r"^[a-z][a-z0-9_]*$"
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Ident = Annotated[str, Field(pattern=IDENT)]
Term = Annotated[str, Field(min_length=1)]


class Range(_Strict):
    """Integers drawn uniformly from ``low..high`` (inclusive)."""

    low: int
    high: int

    @model_validator(mode="after")
    def _ordered(self) -> Range:
        if self.high < self.low:
            raise ValueError(f"high ({self.high}) must be at least low ({self.low})")
        return self


class TaskKind(_Strict):
    """One hidden rule: requests generated from ``templates``, graded by ``rule``.

    ``rule`` is an arithmetic expression over ``inputs`` (numbers, + - * / //, min, max, round,
    ``a if cond else b``); the feedback after a train task states it. ``match`` lists the words
    an artifact must contain (all, case-insensitive) to count as covering this kind in the
    failure taxonomy. ``splits`` says where the kind's tasks appear; ``ood_templates`` phrase
    held-out OOD requests differently (other word order, other ranges via ``ood_inputs``).
    """

    id: Ident
    topic: str = Field(min_length=1, description="what the feedback calls the rule, e.g. 'shipping charges'")
    match: list[Term] = Field(min_length=1)
    inputs: dict[Ident, Range] = Field(min_length=1)
    rule: str = Field(min_length=1)
    templates: list[Term] = Field(min_length=1)
    ood_templates: list[Term] = Field(default_factory=list)
    ood_inputs: dict[Ident, Range] = Field(default_factory=dict)
    splits: list[Literal["train", "id", "ood"]] = Field(default_factory=lambda: ["train", "id", "ood"])

    @model_validator(mode="after")
    def _consistent(self) -> TaskKind:
        from .text_env import check_rule  # lazy: an environment's code, only when its family is validated

        check_rule(self.rule, set(self.inputs))
        for field_name in ("templates", "ood_templates"):
            for i, template in enumerate(getattr(self, field_name)):
                used = set(_PLACEHOLDER.findall(template))
                if used != set(self.inputs):
                    raise ValueError(
                        f"{field_name}.{i}: placeholders {sorted(used)} must be exactly the inputs "
                        f"{sorted(self.inputs)}"
                    )
        unknown = sorted(set(self.ood_inputs) - set(self.inputs))
        if unknown:
            raise ValueError(f"ood_inputs: {unknown} are not inputs of this kind")
        return self


class TextEnvironment(_Strict):
    type: Literal["text"]
    kinds: list[TaskKind] = Field(min_length=1)
    tolerance: float = Field(default=0.01, ge=0, description="absolute tolerance of a numeric answer")

    @field_validator("kinds")
    @classmethod
    def _unique(cls, kinds: list[TaskKind]) -> list[TaskKind]:
        ids = [k.id for k in kinds]
        if len(ids) != len(set(ids)):
            raise ValueError(f"kind ids must be unique: {ids}")
        if not any("train" in k.splits for k in kinds):
            raise ValueError("at least one kind must appear in the train split")
        return kinds


class Opponent(_Strict):
    """Stockfish's strength: a node budget per move, optionally its ``Skill Level`` UCI option."""

    nodes: int = Field(
        ge=1, le=10_000_000, description="search nodes per move (at one thread: the same move every time)"
    )
    skill_level: int | None = Field(
        default=None,
        ge=0,
        le=20,
        description="Stockfish's `Skill Level` option (0 weakest … 20 full). Below 20 Stockfish picks "
        "among its best moves with its own clock-seeded random generator: games are then not "
        "reproducible, so the built-in files weaken it by nodes only",
    )


class Adjudication(_Strict):
    """How a game still running after ``max_plies`` is scored: Stockfish's evaluation of the final
    position from the agent's side decides win, draw or loss."""

    nodes: int = Field(
        default=20_000, ge=1, le=10_000_000, description="analysis nodes of the final evaluation"
    )
    win_cp: int = Field(
        default=300,
        ge=1,
        le=5_000,
        description="T: at least +T centipawns for the agent is a win, at most −T a loss, between a "
        "draw; a mate score is a win or a loss",
    )


Opening = Annotated[
    str, Field(min_length=1, description="SAN (or UCI) moves from the initial position, or a FEN")
]


class ChessEnvironment(_Strict):
    """Games against Stockfish. The agent plays ``agent_color`` from the ``openings`` of each split
    (train batches: ``train``; held-out ID: ``id``, the same opening families as training;
    held-out OOD: ``ood``, other openings), against ``opponents.id`` (train and ID) and
    ``opponents.ood``. A game ends by the rules or, after ``max_plies``, by adjudication. A move
    is a failed decision when it loses at least ``blunder_cp`` centipawns against the best move
    (Stockfish at ``analysis_nodes``)."""

    type: Literal["chess"]
    engine: str = Field(default="stockfish", description="Stockfish executable (name on PATH or a path)")
    agent_color: Literal["white", "black"] = "white"
    opponents: dict[Literal["id", "ood"], Opponent]
    openings: dict[Literal["train", "id", "ood"], list[Opening]] = Field(
        description="start positions per split, in a seeded order; held-out ones never start a train game"
    )
    max_plies: int = Field(
        default=40, ge=1, le=400, description="N: plies (both sides) after the opening before adjudication"
    )
    adjudication: Adjudication = Field(default_factory=Adjudication)
    analysis_nodes: int = Field(
        default=2000, ge=1, le=10_000_000, description="nodes of each move's analysis"
    )
    blunder_cp: int = Field(default=200, ge=1, description="centipawns a failed decision loses at least")
    match: list[Term] = Field(default_factory=lambda: ["chess"])

    @model_validator(mode="after")
    def _complete(self) -> ChessEnvironment:
        for key in ("id", "ood"):
            if key not in self.opponents:
                raise ValueError(f"opponents.{key}: required")
        for key in ("train", "id", "ood"):
            if not self.openings.get(key):
                raise ValueError(f"openings.{key}: at least one opening")
        # lazy: an environment's code, only when its family is validated
        from .chess_env import check_openings

        check_openings(self.openings)
        return self


class Splits(_Strict):
    """Tasks (text) or games (chess) per checkpoint."""

    train: int = Field(default=4, ge=1, le=1000)
    id: int = Field(default=6, ge=1, le=1000)
    ood: int = Field(default=6, ge=1, le=1000)


class PlasticityFamily(_Strict):
    format: Literal["pastbench/plasticity-v1"]
    id: Ident
    version: str = "1.0"
    title: str = ""
    description: str = ""
    checkpoints: int = Field(default=5, ge=1, le=200, description="C: checkpoints 0..C")
    seed: int = Field(default=0, ge=0)
    splits: Splits = Field(default_factory=Splits)
    max_edits: int = Field(default=8, ge=1, le=100, description="proposals one reflection may make")
    environment: Annotated[TextEnvironment | ChessEnvironment, Field(discriminator="type")]
