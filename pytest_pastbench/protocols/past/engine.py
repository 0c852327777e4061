"""Run one item of the PAST protocol (episode × arm × trial × model) and score it (docs/design.md §4).

- on: one store for the whole episode; learn and distractor sessions, then eval sessions.
- off: only the eval sessions, each from an empty store whose writes are discarded after it.
- ablated: as on, but before the first eval session every entry that holds a key fact is removed
  (docs/design.md §4's causal check: a gain that comes from those entries is gone, S_ablated ≈ S_off).

The world is re-seeded for every session, so the store is the only thing that carries over.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_pastbench.agents.base import Agent, Budgets
from pytest_pastbench.agents.session_runner import run_session
from pytest_pastbench.core.records import SessionRecord, SessionScore
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.trace import TraceRecorder, redact, secret_values
from pytest_pastbench.errors import InfraError
from pytest_pastbench.judge.base import Judge
from pytest_pastbench.models.client import ModelClient
from pytest_pastbench.protocols.past.toolbox import ToolBox
from pytest_pastbench.protocols.past.world import World
from pytest_pastbench.results.item_record import ItemRecord

from . import schema
from .losses import item_losses
from .mech import compute_mech, eval_prompts, key_bearing
from .scoring import episode_score, score_session

ARMS = ("on", "off", "ablated")


@dataclass(frozen=True)
class ItemSpec:
    nodeid: str
    family: schema.Family
    episode: schema.Episode
    arm: str
    trial: int
    model: str
    config_label: str
    dataset_hash: str


@dataclass
class ItemOutcome:
    record: ItemRecord
    trace: list[dict[str, Any]] = field(default_factory=list)


def run(
    spec: ItemSpec,
    agent: Agent,
    model: ModelClient,
    store_root: Path,
    budgets: Budgets | None = None,
    judge: Judge | None = None,
) -> ItemOutcome:
    budgets = budgets or Budgets()
    episode = spec.episode
    store = Store(store_root)
    trace = TraceRecorder()
    trace.add("item", nodeid=spec.nodeid, arm=spec.arm, trial=spec.trial, model=spec.model, agent=agent.name)
    started = time.monotonic()
    runs: list[SessionRecord] = []
    scores: list[SessionScore] = []
    ablated = False

    for index, session in enumerate(episode.sessions):
        if not schema.arm_runs_stage(spec.arm, session.stage):
            continue
        if spec.arm == "off":
            store.clear()
        if spec.arm == "ablated" and session.stage in schema.EVAL_STAGES and not ablated:
            ablated = True  # once, between the last learn/distractor session and the first eval
            trace.add("ablation", session=index, removed=ablate(store, episode))
        session_run = _run_session(index, session, episode, store, agent, model, budgets, trace)
        runs.append(session_run)
        trace.add(
            "store_snapshot",
            session=index,
            phase=f"after:{session.stage}:{index}",
            entries=[e.model_dump() for e in session_run.store_after],
        )
        if session.stage in schema.EVAL_STAGES:
            score = score_session(session, session_run, episode.safety.merged(session.safety), judge)
            scores.append(score)
            trace.add("score", session=index, **score.model_dump())
        if spec.arm == "off":
            store.clear()  # the control arm keeps nothing between sessions

    mech = compute_mech(episode, runs, scores) if spec.arm == "on" else None
    losses = item_losses(scores)
    flags = sorted({s.reason for s in scores if s.reason} - {x.reason for x in losses})
    _check_judged(scores)
    record = ItemRecord(
        **item_identity(spec, agent),
        score=episode_score(scores),
        sessions=scores,
        mech=mech,
        prompt_tokens=sum(r.prompt_tokens for r in runs),
        completion_tokens=sum(r.completion_tokens for r in runs),
        cost_usd=_sum_costs(runs),
        wall_s=round(time.monotonic() - started, 4),
        model_calls=sum(r.model_calls for r in runs),
        tool_calls=sum(len(r.tool_calls) for r in runs),
        store_reads=sum(1 for r in runs for a in r.store_accesses if a.op in ("read", "search")),
        store_writes=sum(1 for r in runs for a in r.store_accesses if a.op in ("write", "update", "delete")),
        infra_blocked=False,
        reasons=[x.reason for x in losses] + flags,
        losses=losses,
        judge=getattr(judge, "name", None),
        judge_prompt_hash=getattr(judge, "prompt_hash", None),
        judge_errors=sum(s.judge_errors for s in scores),
        undecided=sum(s.undecided for s in scores),
    )
    secrets = secret_values(_episode_secrets(episode))
    return ItemOutcome(record=record, trace=redact(trace.events, secrets))


def _check_judged(scores: list[SessionScore]) -> None:
    """``InfraError`` when the judge gave no verdict on any credit check of an eval session.

    That session was not measured: its 0 would be the judge's failure, not the agent's. The item
    is then ``infra_blocked`` like one whose provider was down (left out of every mean, rerun
    with --pastbench-resume). A judge_error beside a scored credit check leaves only that check
    out of c_e.
    """
    for score in scores:
        credit = [c for c in score.checks if not c.guard]
        if score.judge_errors and credit and all(c.passed is None for c in credit):
            first = next(c.judge_error for c in credit if c.judge_error)
            raise InfraError(
                f"judge_error: no verdict on any credit check of session {score.index} (first: {first})"
            )


def ablate(store: Store, episode: schema.Episode) -> list[str]:
    """Remove every entry (live or dead, memory or skill) that holds a key fact, by Mech's own
    rule (``mech.key_bearing``); return the removed ids."""
    prompts = eval_prompts(episode)
    doomed = [e.id for e in store.snapshot() if key_bearing(e, episode.evidence.key_facts, prompts)]
    store.remove(doomed)
    return doomed


def item_identity(spec: ItemSpec, agent: Agent) -> dict[str, Any]:
    """The fields that say which item a record belongs to."""
    return {
        "nodeid": spec.nodeid,
        "family": spec.family.qualified_id,
        "capability": spec.family.capability,
        "episode": spec.episode.id,
        "group": spec.episode.group,
        "arm": spec.arm,
        "trial": spec.trial,
        "model": spec.model,
        "agent": agent.name,
        "mechanisms": list(agent.mechanisms),
        "config_label": spec.config_label,
        "dataset_hash": spec.dataset_hash,
        "family_version": spec.family.version,
    }


def blocked_record(spec: ItemSpec, agent: Agent, reason: str) -> ItemRecord:
    """An item that could not be measured: no score (never a silent 0), with the reason."""
    return ItemRecord(**item_identity(spec, agent), score=None, infra_blocked=True, reasons=[reason])


def _run_session(
    index: int,
    session: schema.Session,
    episode: schema.Episode,
    store: Store,
    agent: Agent,
    model: ModelClient,
    budgets: Budgets,
    trace: TraceRecorder,
) -> SessionRecord:
    world = World(episode.session_world(session))
    return run_agent_session(
        agent,
        model,
        store,
        world,
        list(session.user),
        index=index,
        stage=session.stage,
        budgets=budgets,
        trace=trace,
    )


def run_agent_session(
    agent: Agent,
    model: ModelClient,
    store: Store,
    world: World,
    user_turns: list[str],
    *,
    index: int = 0,
    stage: str = "",
    budgets: Budgets | None = None,
    trace: TraceRecorder | None = None,
) -> SessionRecord:
    """Run one PAST session of ``agent`` against a store and a world; return what happened.

    The building block of the protocol, public so users can test their agent directly with
    the ``pastbench_store`` / ``pastbench_world`` fixtures: ``session_runner.run_session`` over
    PAST's ``ToolBox``.
    """
    return run_session(
        agent,
        model,
        ToolBox(store, world),
        user_turns,
        index=index,
        stage=stage,
        budgets=budgets,
        trace=trace,
    )


def empty_world() -> World:
    """The simulated services (notes, archive, tickets, deploys) with an empty seed: the
    ``pastbench_world`` fixture's, for ``run_agent_session``."""
    return World(schema.WorldSeed())


def _sum_costs(runs: list[SessionRecord]) -> float | None:
    known = [r.cost_usd for r in runs if r.cost_usd is not None]
    return round(sum(known), 6) if known else None


def _episode_secrets(episode: schema.Episode) -> list[str]:
    return [*episode.safety.secrets, *(s for session in episode.sessions for s in session.safety.secrets)]
