"""Seeded task generation: windows of serving tickets then test tickets, from a compiled stream.

Every ticket is checked by the rule engine: it is hidden or fully specified by definition
(rules.is_hidden), no two active hidden rules that match it disagree, and its answer is one of
its options. The whole full-scale stream is generated once per seed; the ``sample`` scale is the
first tickets of each window of it, so a sampled run sees a subset of the full run's tickets.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from .rules import Rule, conflicting, correct_answer, deciding_rule, is_hidden
from .schema import Stream

MAX_TRIES = 2000
# Which rule a hidden ticket targets: an active one most often; a withdrawn one (active in an
# earlier window) often enough to probe stale beliefs; one not yet introduced least.
ACTIVE_WEIGHT, WITHDRAWN_WEIGHT, FUTURE_WEIGHT = 3, 2, 1


@dataclass(frozen=True)
class Task:
    id: str
    seq: int  # position in the stream (serving and test interleaved as run)
    window: int
    phase: str  # serving | test
    case: str  # hidden | fully
    facts: dict[str, str | int]
    options: tuple[str, ...]
    answer: str
    decided_by: str | None  # the active hidden rule that decides it, or None (documented policy)
    stale: tuple[str, ...]  # inactive rules that match it and would answer it wrongly

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seq": self.seq,
            "window": self.window,
            "phase": self.phase,
            "case": self.case,
            "facts": self.facts,
            "options": list(self.options),
            "answer": self.answer,
            "decided_by": self.decided_by,
            "stale": list(self.stale),
        }


@dataclass(frozen=True)
class Window:
    index: int
    active: tuple[str, ...]
    serving: tuple[Task, ...]
    test: tuple[Task, ...]


def generate(stream: Stream, scale: str = "full") -> list[Window]:
    full = stream.family.scale["full"]
    chosen = stream.family.scale[scale]
    windows = []
    seq = 0
    for index in range(stream.family.windows):
        phases: dict[str, list[Task]] = {}
        for phase, count, keep in (
            ("serving", full.serving, chosen.serving),
            ("test", full.test, chosen.test),
        ):
            tasks = _phase_tasks(stream, index, phase, count)[:keep]
            numbered = []
            for task in tasks:
                numbered.append(_renumber(task, seq))
                seq += 1
            phases[phase] = numbered
        active = tuple(r.id for r in stream.active(index))
        windows.append(Window(index, active, tuple(phases["serving"]), tuple(phases["test"])))
    return windows


def _renumber(task: Task, seq: int) -> Task:
    return Task(**{**task.__dict__, "seq": seq})


def _phase_tasks(stream: Stream, window: int, phase: str, count: int) -> list[Task]:
    # One generator per (stream seed, window, phase): windows never shift each other's tickets.
    rng = random.Random(f"{stream.family.seed}:{stream.id}:{window}:{phase}")
    active = stream.active(window)
    inactive = [r for r in stream.rules if r not in active]
    withdrawn = {r.id for r in inactive if any(stream.is_active(r.id, w) for w in range(window))}
    weighted = [(r, ACTIVE_WEIGHT) for r in active] + [
        (r, WITHDRAWN_WEIGHT if r.id in withdrawn else FUTURE_WEIGHT) for r in inactive
    ]
    tasks = []
    for index in range(count):
        hidden = rng.random() < stream.family.hidden_share
        target = rng.choices([r for r, _ in weighted], [w for _, w in weighted])[0] if hidden else None
        facts = _sample(stream, rng, active, target)
        answer = correct_answer(facts, stream.domain.documented, active)
        decider = deciding_rule(facts, active)
        stale = tuple(r.id for r in inactive if r.matches(facts) and r.answer != answer)
        tasks.append(
            Task(
                id=f"{stream.id}-w{window}-{phase[0]}{index:03d}",
                seq=0,
                window=window,
                phase=phase,
                case="hidden" if hidden else "fully",
                facts=facts,
                options=stream.domain.options(facts),
                answer=answer,
                decided_by=decider.id if decider else None,
                stale=stale,
            )
        )
    return tasks


def _sample(
    stream: Stream, rng: random.Random, active: tuple[Rule, ...], target: Rule | None
) -> dict[str, str | int]:
    domain = stream.domain
    for _ in range(MAX_TRIES):
        if target is not None:
            action = str(next(c.value for c in target.clauses if c.field == "action"))
            facts = domain.sample(rng, action)
            if not _force(domain, rng, facts, target):
                continue
        else:
            facts = domain.sample(rng, rng.choice(sorted(domain.actions)))
        if not domain.consistent(facts) or conflicting(facts, active):
            continue
        hidden = is_hidden(facts, domain.documented, stream.rules)
        if target is not None and hidden and target.matches(facts):
            return facts
        if target is None and not hidden:
            return facts
    what = f"a ticket in the scope of {target.id}" if target else "a fully specified ticket"
    raise ValueError(f"{stream.id}: cannot generate {what} in {MAX_TRIES} tries; check the rule's conditions")


def _force(domain: Any, rng: random.Random, facts: dict[str, str | int], rule: Rule) -> bool:
    """Set the fields a rule constrains to values that satisfy it (False when none exist)."""
    for name in sorted(rule.fields - {"action"}):
        field = domain.fields[name]
        clauses = [c for c in rule.clauses if c.field == name]
        if field.grid is not None:
            low, high, step = field.grid
            above = max([int(c.value) for c in clauses if c.op == "above"], default=low - 1)  # type: ignore[arg-type]
            at_most = min([int(c.value) for c in clauses if c.op == "at most"], default=high)  # type: ignore[arg-type]
            first = low + max(0, -(-(above + 1 - low) // step)) * step  # the first grid value above
            choices: list[str | int] = list(range(first, min(high, at_most) + 1, step))
        else:
            choices = [v for v in field.values if all(c.matches({name: v}) for c in clauses)]
        if not choices:
            return False
        facts[name] = rng.choice(choices)
    return True


def dataset_counts(windows: list[Window]) -> dict[str, int]:
    serving = sum(len(w.serving) for w in windows)
    test = sum(len(w.test) for w in windows)
    return {"windows": len(windows), "serving": serving, "test": test, "tasks": serving + test}
