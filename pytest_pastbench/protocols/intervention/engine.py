"""Run one intervention item: one event × one profile × one trial.

1. Seed a fresh store with the profile's memories and skills (the user state).
2. Pre phase, service at its starting version: the profile's regression suite, the preservation
   checks and the safety checks, one session each.
3. Apply the event (the tool versions change).
4. Post phase: the target queries z_1..z_T in order, the fallback opportunities, then the same
   regression, preservation and safety sessions again.

Every session starts from an empty conversation; the store carries over (the agent may repair
or pollute it). The five metrics come from the pass/fail table; the propagation (which nodes of
the dependency graph that depend on the change broke) goes to the trace and the record.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_pastbench.agents.base import Agent, Budgets
from pytest_pastbench.agents.mechanisms import mechanism_use
from pytest_pastbench.agents.session_runner import run_session
from pytest_pastbench.core.records import SessionRecord
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.trace import TraceRecorder
from pytest_pastbench.judge.base import Judge
from pytest_pastbench.models.client import ModelClient

from . import metrics
from .fallback import judge_errors, score_fallback
from .graph import DependencyGraph, changed_nodes
from .schema import Event, InterventionFamily, MetricParams, Profile
from .scoring import evaluate_query
from .service import DomainService
from .toolbox import DomainToolBox


@dataclass(frozen=True)
class ItemPlan:
    family: InterventionFamily
    event: Event
    profile: str
    # --pastbench-intervention-m / -tau; None: the family file's own value
    m: int | None = None
    tau: float | None = None

    @property
    def metric_params(self) -> MetricParams:
        own = self.family.metrics
        m = own.m if self.m is None else self.m
        return MetricParams(m=m, tau=own.tau if self.tau is None else self.tau)

    def params_record(self) -> dict[str, Any]:
        """m and τ as used, and where each came from (the summary reports both)."""
        params = self.metric_params
        given = {"m": self.m, "tau": self.tau}
        source = {k: "family" if v is None else f"--pastbench-intervention-{k}" for k, v in given.items()}
        return {"m": params.m, "tau": params.tau, "from": source}


def seed_store(store: Store, profile: Profile) -> dict[str, str]:
    """Write the profile's entries (as session 0); return store entry id -> graph node."""
    store.session = 0
    nodes: dict[str, str] = {}
    for memory in profile.memories:
        nodes[store.write_memory(memory.text, list(memory.tags)).id] = f"memory:{memory.id}"
    for skill in profile.skills:
        nodes[store.write_skill(skill.name, list(skill.steps), list(skill.tags)).id] = f"skill:{skill.id}"
    return nodes


def suite(family: InterventionFamily, profile: str) -> list[str]:
    """Query ids run before and after the event: regression, preservation, safety (no repeats)."""
    ids = [*family.profiles[profile].regression, *family.preservation, *family.safety_checks]
    return list(dict.fromkeys(ids))


def run_domain_session(
    agent: Agent,
    model: ModelClient,
    store: Store,
    service: DomainService,
    user_turns: list[str],
    *,
    index: int = 1,
    stage: str = "",
    budgets: Budgets | None = None,
    trace: TraceRecorder | None = None,
) -> SessionRecord:
    """One session of ``agent`` against a store and the domain service in its current version
    (the building block of an item; public for users' own tests, see ``pastbench_profile``)."""
    trace = trace if trace is not None else TraceRecorder()
    trace.add("service", session=index, version=service.tag)
    return run_session(
        agent,
        model,
        DomainToolBox(store, service),
        user_turns,
        index=index,
        stage=stage,
        budgets=budgets,
        trace=trace,
    )


class _Runner:
    def __init__(
        self,
        plan: ItemPlan,
        agent: Agent,
        model: ModelClient,
        store: Store,
        budgets: Budgets,
        judge: Judge | None,
    ) -> None:
        self.plan = plan
        self.agent = agent
        self.model = model
        self.store = store
        self.budgets = budgets
        self.judge = judge
        self.service = DomainService(plan.family.service)
        self.trace = TraceRecorder()
        self.runs: list[SessionRecord] = []
        self.outcomes: dict[int, bool | None] = {}  # session index -> passed

    def session(self, turns: list[str], stage: str) -> SessionRecord:
        run = run_domain_session(
            self.agent,
            self.model,
            self.store,
            self.service,
            turns,
            index=len(self.runs) + 1,
            stage=stage,
            budgets=self.budgets,
            trace=self.trace,
        )
        self.runs.append(run)
        return run

    def query(self, query_id: str, stage: str) -> bool | None:
        query = self.plan.family.query(query_id)
        run = self.session(list(query.user), stage)
        outcome = evaluate_query(query, run, self.service.tools, self.judge)
        self.outcomes[run.index] = outcome["passed"]
        self.trace.add("query_result", session=run.index, stage=stage, query=query_id, **outcome)
        return outcome["passed"]


def run(
    plan: ItemPlan,
    agent: Agent,
    model: ModelClient,
    store_root: Path,
    budgets: Budgets | None = None,
    judge: Judge | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(record, trace) of one item; the record is plain JSON."""
    family, event = plan.family, plan.event
    profile = family.profiles[plan.profile]
    store = Store(store_root)
    runner = _Runner(plan, agent, model, store, budgets or Budgets(), judge)
    started = time.monotonic()
    seeded = seed_store(store, profile)
    runner.trace.add(
        "profile", profile=plan.profile, entries=[e.model_dump() for e in store.snapshot()], nodes=seeded
    )
    ids = suite(family, plan.profile)
    pre = {q: runner.query(q, "pre") for q in ids}

    runner.service.apply(event)
    runner.trace.add(
        "event",
        event=event.id,
        event_kind=event.kind,
        version=runner.service.tag,
        changed=changed_nodes(event),
    )
    first_post = len(runner.runs) + 1
    z = [runner.query(q, "target") for q in event.targets]
    fallbacks = []
    for fallback in event.fallbacks:
        run = runner.session(list(fallback.user), "fallback")
        fields = score_fallback(fallback, run, judge)
        graceful = (
            None
            if any(fields[f] is None for f in metrics.GAMMA_FIELDS)
            else all(fields[f] for f in metrics.GAMMA_FIELDS)
        )
        runner.outcomes[run.index] = graceful
        fallbacks.append({"id": fallback.id, "session": run.index, **fields})
        runner.trace.add("fallback_result", session=run.index, fallback=fallback.id, **fields)
    post = {q: runner.query(q, "post") for q in ids}

    graph = DependencyGraph.of(family)
    dependents = graph.dependents(changed_nodes(event))
    pre_post = {q: (pre[q], post[q]) for q in ids}
    propagation = _propagation(plan, dependents, pre_post, z, fallbacks, seeded, runner, first_post)
    runner.trace.add("propagation", graph=graph.as_json(), **propagation)

    record = _record(plan, pre, post, z, fallbacks, dependents, propagation, runner)
    record["mechanism_use"] = mechanism_use(runner.trace.events, len(runner.runs))
    record["wall_s"] = round(time.monotonic() - started, 4)
    return record, runner.trace.events


def _propagation(
    plan: ItemPlan,
    dependents: set[str],
    pre_post: dict[str, tuple[bool | None, bool | None]],
    z: list[bool | None],
    fallbacks: list[dict[str, Any]],
    seeded: dict[str, str],
    runner: _Runner,
    first_post: int,
) -> dict[str, Any]:
    """Which dependent nodes broke: a query that passed before and failed after, a target that
    failed, a fallback not handled gracefully, a store entry returned in a failed session."""
    nodes: dict[str, dict[str, Any]] = {}
    for query_id, (before, after) in pre_post.items():
        node = f"query:{query_id}"
        if node in dependents:
            nodes[node] = {"pre": before, "post": after, "broke": before is True and after is False}
    for query_id, passed in zip(plan.event.targets, z, strict=True):
        node = f"query:{query_id}"
        entry = nodes.setdefault(node, {"broke": False})
        entry.setdefault("targets", []).append(passed)
        entry["broke"] = entry["broke"] or passed is False
    for fallback in fallbacks:
        node = f"fallback:{fallback['id']}"
        graceful = runner.outcomes.get(fallback["session"])
        nodes[node] = {"graceful": graceful, "broke": graceful is False}
    post_accesses = [a for a in runner.store.access_log if a.session >= first_post]
    for entry_id, node in sorted(seeded.items()):
        if node not in dependents:
            continue
        used = sorted(
            {a.session for a in post_accesses if entry_id in a.entry_ids and a.op in ("read", "search")}
        )
        failed = [s for s in used if runner.outcomes.get(s) is False]
        repaired = any(
            entry_id in a.entry_ids and a.op in ("update", "delete", "write") for a in post_accesses
        )
        nodes[node] = {
            "used_in_sessions": used,
            "failed_sessions": failed,
            "repaired": repaired,
            "broke": bool(failed),
        }
    return {
        "changed": changed_nodes(plan.event),
        "dependents": sorted(dependents),
        "nodes": dict(sorted(nodes.items())),
        "broken": sorted(n for n, info in nodes.items() if info["broke"]),
    }


def _record(
    plan: ItemPlan,
    pre: dict[str, bool | None],
    post: dict[str, bool | None],
    z: list[bool | None],
    fallbacks: list[dict[str, Any]],
    dependents: set[str],
    propagation: dict[str, Any],
    runner: _Runner,
) -> dict[str, Any]:
    family, event = plan.family, plan.event
    profile = family.profiles[plan.profile]
    targets = [bool(p) for p in z]  # an unscored target cannot count as a pass
    params = plan.metric_params
    alpha = metrics.alpha_section(targets, params.m)
    gamma = metrics.gamma([{f: fb[f] for f in metrics.GAMMA_FIELDS} for fb in fallbacks])
    safety = [q for q in family.safety_checks if pre[q] is not None and post[q] is not None]
    sigma = metrics.sigma([bool(pre[q]) for q in safety], [bool(post[q]) for q in safety])
    candidates = [*profile.regression, *family.preservation]
    free = {
        q: (float(bool(pre[q])), float(bool(post[q])))
        for q in dict.fromkeys(candidates)
        if f"query:{q}" not in dependents and pre[q] is not None and post[q] is not None
    }
    kappa = metrics.kappa(free, params.tau)
    rho = metrics.rho(
        {q: bool(pre[q]) for q in profile.regression if pre[q] is not None},
        {q: bool(post[q]) for q in profile.regression if post[q] is not None},
    )
    numbers = {
        "alpha_l": alpha["alpha_l"],
        "alpha_m": alpha["m"],
        "alpha_T": alpha["T"],
        "gamma": gamma["gamma"],
        "sigma_pre": sigma["s_pre"],
        "sigma_post": sigma["s_post"],
        "sigma_delta": sigma["delta"],
        "sigma_ratio": sigma["ratio"],
        "kappa": kappa["kappa"],
        "rho": rho["rho"],
        "rho_k": rho["k"],
        "rho_n": rho["n"],
    }
    runs = runner.runs
    known_costs = [r.cost_usd for r in runs if r.cost_usd is not None]
    return {
        "headline": headline(numbers),
        "domain": family.domain,
        "event": event.id,
        "event_kind": event.kind,
        "profile": plan.profile,
        "metrics": {k: v for k, v in numbers.items() if v is not None},
        "params": plan.params_record(),
        "alpha": alpha | {"z": [int(t) for t in targets]},
        "gamma": gamma
        | {
            "judge": _judge_info(runner.judge),
            "judge_errors": judge_errors(fallbacks),
            "opportunities": fallbacks,
        },
        "sigma": sigma | {"checks": {q: [pre[q], post[q]] for q in safety}},
        "kappa": kappa | {"checks": {q: list(r) for q, r in free.items()}},
        "rho": rho | {"suite": list(profile.regression)},
        "pre": pre,
        "post": post,
        "propagation": {k: propagation[k] for k in ("changed", "broken")},
        "sessions": len(runs),
        "tool_calls": sum(len(r.tool_calls) for r in runs),
        "model_calls": sum(r.model_calls for r in runs),
        "prompt_tokens": sum(r.prompt_tokens for r in runs),
        "completion_tokens": sum(r.completion_tokens for r in runs),
        "cost_usd": round(sum(known_costs), 6) if known_costs else None,
    }


def _judge_info(judge: Judge | None) -> dict[str, Any] | None:
    """Which judge graded the judged γ fields, with its prompt's hash (None: no judge)."""
    if judge is None:
        return None
    return {"model": judge.name, "prompt_hash": getattr(judge, "prompt_hash", None)}


def headline(numbers: dict[str, Any]) -> str:
    """``α_L 5 (m=2,T=4) γ 0.00 σ 1.00→0.50 κ 1.00 ρ 0.67 (2/3)`` for ``-v``."""

    def num(value: Any) -> str:
        return "N/A" if value is None else f"{value:.2f}"

    return (
        f"α_L {numbers['alpha_l']} (m={numbers['alpha_m']},T={numbers['alpha_T']}) "
        f"γ {num(numbers['gamma'])} σ {num(numbers['sigma_pre'])}→{num(numbers['sigma_post'])} "
        f"κ {num(numbers['kappa'])} ρ {num(numbers['rho'])} ({numbers['rho_k']}/{numbers['rho_n']})"
    )
