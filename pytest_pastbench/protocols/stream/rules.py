"""Rules of a stream domain: conditions over a ticket's facts, their one-line text form, and the
decision list that is both the grader and the Oracle.

A rule reads ``when action is cancel and payment is gift_card: refuse:payment_restricted``.
The same text is what the documented policy and the Oracle harness show an agent, and what the
offline reference policies parse back, so a rule has exactly one meaning everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Facts = Mapping[str, str | int]
OPERATORS = ("is", "is not", "is one of", "above", "at most")
_CLAUSE = re.compile(r"^([a-z_]+) (is one of|is not|is|above|at most) (.+)$")
_RULE_LINE = re.compile(r"^-?\s*when (.+): ([a-z_:]+)\s*$")


@dataclass(frozen=True)
class Clause:
    field: str
    op: str
    value: str | int | tuple[str, ...]

    def matches(self, facts: Facts) -> bool:
        if self.field not in facts:
            return False
        have = facts[self.field]
        if self.op == "is":
            return str(have) == str(self.value)
        if self.op == "is not":
            return str(have) != str(self.value)
        if self.op == "is one of":
            return str(have) in self.value  # type: ignore[operator]
        if not isinstance(have, int):
            return False
        limit = int(self.value)  # type: ignore[arg-type]
        return have > limit if self.op == "above" else have <= limit

    def text(self) -> str:
        value = ", ".join(self.value) if isinstance(self.value, tuple) else str(self.value)
        return f"{self.field} {self.op} {value}"


@dataclass(frozen=True)
class Rule:
    """``when`` all clauses hold, the answer is ``answer``. Hidden rules carry an id and meaning."""

    clauses: tuple[Clause, ...]
    answer: str
    id: str = ""
    meaning: str = ""

    def matches(self, facts: Facts) -> bool:
        return all(clause.matches(facts) for clause in self.clauses)

    def text(self) -> str:
        return f"when {' and '.join(c.text() for c in self.clauses)}: {self.answer}"

    @property
    def fields(self) -> set[str]:
        return {c.field for c in self.clauses}


def clauses_from_mapping(when: Mapping[str, Any]) -> tuple[Clause, ...]:
    """The YAML form: ``{field: value | [values] | {not: v} | {above: n, at_most: m}}``."""
    clauses: list[Clause] = []
    for name, spec in when.items():
        if isinstance(spec, list):
            clauses.append(Clause(name, "is one of", tuple(str(v) for v in spec)))
        elif isinstance(spec, dict):
            unknown = sorted(set(spec) - {"not", "above", "at_most"})
            if unknown or not spec:
                raise ValueError(f"{name}: use one of not / above / at_most, not {unknown or 'nothing'}")
            if "not" in spec:
                clauses.append(Clause(name, "is not", str(spec["not"])))
            for key, op in (("above", "above"), ("at_most", "at most")):
                if key in spec:
                    if not isinstance(spec[key], int) or isinstance(spec[key], bool):
                        raise ValueError(f"{name}.{key}: must be a whole number")
                    clauses.append(Clause(name, op, spec[key]))
        elif isinstance(spec, str | int) and not isinstance(spec, bool):
            clauses.append(Clause(name, "is", str(spec)))
        else:
            raise ValueError(f"{name}: a value, a list of values or a mapping of not/above/at_most")
    return tuple(clauses)


def parse_rule(line: str) -> Rule | None:
    """A rule's text form back into a ``Rule`` (None when the line is not a rule)."""
    match = _RULE_LINE.match(line.strip())
    if match is None:
        return None
    clauses = []
    for part in match.group(1).split(" and "):
        clause = _CLAUSE.match(part.strip())
        if clause is None:
            return None
        name, op, raw = clause.groups()
        value: str | int | tuple[str, ...]
        if op == "is one of":
            value = tuple(v.strip() for v in raw.split(","))
        elif op in ("above", "at most"):
            if not raw.isdigit():
                return None
            value = int(raw)
        else:
            value = raw.strip()
        clauses.append(Clause(name, op, value))
    return Rule(tuple(clauses), match.group(2))


def correct_answer(facts: Facts, documented: Sequence[Rule], active: Iterable[Rule] = ()) -> str:
    """The correct answer: the first matching active hidden rule, else the first matching
    documented rule (documented lists end with a catch-all per action)."""
    for rule in active:
        if rule.matches(facts):
            return rule.answer
    for rule in documented:
        if rule.matches(facts):
            return rule.answer
    raise ValueError(f"no documented rule covers {dict(facts)}")


def deciding_rule(facts: Facts, active: Iterable[Rule]) -> Rule | None:
    """The active hidden rule that decides this ticket, or None (the documented policy does)."""
    return next((rule for rule in active if rule.matches(facts)), None)


def is_hidden(facts: Facts, documented: Sequence[Rule], dictionary: Iterable[Rule]) -> bool:
    """Hidden: some rule of the stream's dictionary, active on its own, changes the answer.
    Fully specified: the documented policy decides whatever the hidden state is."""
    base = correct_answer(facts, documented)
    return any(correct_answer(facts, documented, [rule]) != base for rule in dictionary)


def conflicting(facts: Facts, active: Iterable[Rule]) -> bool:
    """Two active hidden rules match and disagree (the generator never emits such a ticket)."""
    return len({rule.answer for rule in active if rule.matches(facts)}) > 1
