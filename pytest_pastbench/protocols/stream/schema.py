"""Stream family files (``format: pastbench/stream-v1``): validation and the compiled stream.

A family file is small: the domain and tier, a seed, the number of windows, the hidden-rule
dictionary (rules in the ``when:`` form of rules.py) and the activation table; tasks are
generated from it (generator.py). Errors name the file and the field path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pytest_pastbench.core.family_files import read_family_mapping, validate_family
from pytest_pastbench.errors import FamilyFileError

from .domains import DOMAINS, Domain
from .rules import Rule, clauses_from_mapping

HARNESSES = ("blind", "oracle", "own", "rag")
SCALES = ("sample", "full")
ACTIVE, INACTIVE = "X", "-"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RuleSpec(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
    meaning: str
    when: dict[str, Any]
    answer: str


class ScaleSpec(_Strict):
    serving: int = Field(ge=1, le=1000, description="serving tickets per window")
    test: int = Field(ge=1, le=1000, description="test tickets per window")


class StreamFamily(_Strict):
    format: Literal["pastbench/stream-v1"]
    id: str
    version: int = 1
    description: str = ""
    domain: Literal["retail", "banking"]
    tier: Literal["L1", "L2", "L3"]
    seed: int
    windows: int = Field(ge=2, le=50)
    hidden_share: float = Field(default=0.7, gt=0.0, lt=1.0)
    scale: dict[Literal["sample", "full"], ScaleSpec]
    harnesses: list[Literal["blind", "oracle", "own", "rag"]] = Field(default_factory=lambda: list(HARNESSES))
    rules: list[RuleSpec] = Field(min_length=1)
    activation: dict[str, str] = Field(description="rule id -> one character per window: X active, - not")

    @model_validator(mode="after")
    def _consistent(self) -> StreamFamily:
        missing = [s for s in SCALES if s not in self.scale]
        if missing:
            raise ValueError(f"scale: needs both sample and full (missing {', '.join(missing)})")
        if any(
            getattr(self.scale["sample"], k) > getattr(self.scale["full"], k) for k in ("serving", "test")
        ):
            raise ValueError("scale.sample: a sample takes the first tickets of each window, so at most full")
        ids = [r.id for r in self.rules]
        if len(set(ids)) != len(ids):
            raise ValueError("rules: rule ids must be unique")
        if sorted(self.activation) != sorted(ids):
            raise ValueError(f"activation: needs exactly one row per rule id {sorted(ids)}")
        for rule_id, row in self.activation.items():
            if len(row) != self.windows or set(row) - {ACTIVE, INACTIVE}:
                raise ValueError(
                    f"activation.{rule_id}: {self.windows} characters of {ACTIVE} (active) or {INACTIVE}"
                )
        return self


@dataclass(frozen=True)
class Stream:
    """A validated family, compiled: the domain, the rule dictionary and who is active when."""

    family: StreamFamily
    domain: Domain
    rules: tuple[Rule, ...]

    @property
    def id(self) -> str:
        return self.family.id

    def active(self, window: int) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if self.family.activation[r.id][window] == ACTIVE)

    def is_active(self, rule_id: str, window: int) -> bool:
        return self.family.activation[rule_id][window] == ACTIVE


def compile_stream(family: StreamFamily, where: str = "") -> Stream:
    """Check every rule against its domain (fields, values, answers) and build the ``Rule``s."""
    domain = DOMAINS[family.domain]
    rules = []
    for index, spec in enumerate(family.rules):
        prefix = f"{where}rules.{index}.when"
        try:
            clauses = clauses_from_mapping(spec.when)
        except ValueError as exc:
            raise FamilyFileError(f"{prefix}.{exc}") from None
        actions = [c for c in clauses if c.field == "action" and c.op == "is"]
        if len(actions) != 1 or str(actions[0].value) not in domain.actions:
            raise FamilyFileError(f"{prefix}.action: one of {', '.join(domain.actions)}")
        action = domain.actions[str(actions[0].value)]
        for clause in clauses:
            if clause.field == "action":
                continue
            if clause.field not in action.fields:
                raise FamilyFileError(
                    f"{prefix}.{clause.field}: not a field of {action.name} ({', '.join(action.fields)})"
                )
            known = domain.fields[clause.field]
            values = clause.value if isinstance(clause.value, tuple) else (clause.value,)
            if known.grid is None and (
                clause.op in ("above", "at most") or any(str(v) not in known.values for v in values)
            ):
                raise FamilyFileError(f"{prefix}.{clause.field}: values are {', '.join(known.values)}")
            if known.grid is not None and clause.op not in ("above", "at most"):
                raise FamilyFileError(f"{prefix}.{clause.field}: a number field takes above / at_most")
        if spec.answer not in action.options:
            raise FamilyFileError(f"{where}rules.{index}.answer: one of {', '.join(action.options)}")
        rules.append(Rule(clauses, spec.answer, id=spec.id, meaning=spec.meaning))
    return Stream(family, domain, tuple(rules))


def load_stream(path: Path) -> Stream:
    data, _ = read_family_mapping(path)
    return compile_stream(validate_family(path, data, StreamFamily), f"{path}: ")
