"""One lineage: checkpoints 0..C of train batch → reflection → validated revision → held-out eval.

    for t in 0..C:
        evaluate held-out ID and OOD with inventory_t (frozen; results never reach reflection)
        if t < C:
            play train batch t with inventory_t (feedback per episode)
            reflection (arm "on" only): propose edits; each is checked before it persists
            → inventory_{t+1}

Learning cost at checkpoint t is everything spent before inventory_t existed: train batches and
reflections 0..t-1, rejected proposals included (their tokens were spent). Held-out evaluation
is not learning cost; its tokens are reported apart. With reflection off (arm "off") the
inventory stays empty: the control lineage.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_pastbench.agents.base import Agent, Budgets
from pytest_pastbench.agents.mechanisms import mechanism_use
from pytest_pastbench.agents.session_runner import run_session
from pytest_pastbench.core.records import SessionRecord
from pytest_pastbench.core.trace import TraceRecorder
from pytest_pastbench.models.client import ModelClient

from . import chess_env, text_env
from .artifacts import Inventory
from .schema import ChessEnvironment, PlasticityFamily, TextEnvironment
from .toolbox import ArtifactToolBox

HELDOUT = ("id", "ood")
CATEGORIES = ("no_covering_artifact", "unused", "used_still_failed")


@dataclass
class Usage:
    """Tokens and dollars of a phase; dollars are None as soon as one call had no known price."""

    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0

    def add(self, result: SessionRecord) -> None:
        self.model_calls += result.model_calls
        self.prompt_tokens += result.prompt_tokens
        self.completion_tokens += result.completion_tokens
        if self.cost_usd is not None:
            self.cost_usd = None if result.cost_usd is None else self.cost_usd + result.cost_usd

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_json(self) -> dict[str, Any]:
        usd = None if self.cost_usd is None else round(self.cost_usd, 8)
        return {"usd": usd, "tokens": self.tokens, "model_calls": self.model_calls}


@dataclass
class Decision:
    failed: bool
    covering: list[str]
    used: list[str]

    @property
    def reused(self) -> bool:
        return bool(set(self.covering) & set(self.used))

    @property
    def category(self) -> str | None:
        """The failure taxonomy (None for a decision that did not fail)."""
        if not self.failed:
            return None
        if not self.covering:
            return "no_covering_artifact"
        return "used_still_failed" if self.reused else "unused"


def tally(decisions: list[Decision]) -> dict[str, int]:
    counts = {"total": len(decisions), "failed": sum(d.failed for d in decisions)}
    counts["relevant"] = sum(bool(d.covering) for d in decisions)
    counts["reused"] = sum(d.reused for d in decisions)
    for category in CATEGORIES:
        counts[category] = sum(d.category == category for d in decisions)
    return counts


@dataclass
class Episode:
    """What one train or held-out episode (a task, a game) produced."""

    id: str
    score: float
    decisions: list[Decision]
    feedback: str = ""
    summary: str = ""
    detail: dict[str, Any] = field(default_factory=dict)  # environment facts for the trace (a game's end)


Act = Callable[[str], tuple[str, list[str]]]


def covering(texts: dict[str, str], terms: list[str]) -> list[str]:
    """Artifacts whose text holds every term (case-insensitive): the ones that cover a decision."""
    return [aid for aid, text in texts.items() if all(t.lower() in text.lower() for t in terms)]


class TextAdapter:
    def __init__(self, family: PlasticityFamily, env: TextEnvironment) -> None:
        self.family, self.env = family, env
        self.kinds = {k.id: k for k in env.kinds}
        self._heldout = {
            s: text_env.heldout_tasks(env, s, getattr(family.splits, s), family.seed) for s in HELDOUT
        }

    def play(self, split: str, checkpoint: int, act: Act, texts: dict[str, str]) -> list[Episode]:
        tasks = (
            text_env.train_batch(self.env, checkpoint, self.family.splits.train, self.family.seed)
            if split == "train"
            else self._heldout[split]
        )
        episodes = []
        for task in tasks:
            answer, used = act(task.prompt)
            score = text_env.score_answer(task, answer, self.env.tolerance)
            kind = self.kinds[task.kind]
            decision = Decision(score < 100.0, covering(texts, list(kind.match)), used)
            episodes.append(
                Episode(
                    task.id,
                    score,
                    [decision],
                    feedback=text_env.feedback(task, kind, score) if split == "train" else "",
                    summary=f"Request: {task.prompt}\nYour answer: {answer.strip()[:500]}",
                )
            )
        return episodes

    def close(self) -> None:
        pass


class ChessAdapter:
    def __init__(self, family: PlasticityFamily, env: ChessEnvironment) -> None:
        self.family, self.env = family, env
        self.engine = chess_env.StockfishEngine(chess_env.find_engine(env.engine))

    def play(self, split: str, checkpoint: int, act: Act, texts: dict[str, str]) -> list[Episode]:
        n = getattr(self.family.splits, split)
        terms = list(self.env.match)
        episodes = []
        for game in chess_env.games(self.env, split, n, checkpoint, self.family.seed):
            result = chess_env.play_game(game, self.env, self.engine, act)
            decisions = [Decision(d.failed, covering(texts, terms), d.used) for d in result.decisions]
            episodes.append(
                Episode(
                    game.id,
                    result.score,
                    decisions,
                    feedback=chess_env.feedback(game, result, self.env) if split == "train" else "",
                    summary=f"Opening: {game.opening}\nMoves: {' '.join(result.moves)}",
                    detail={"opening": game.opening, **result.as_json()},
                )
            )
        return episodes

    def close(self) -> None:
        self.engine.close()


@dataclass
class LineageResult:
    record: dict[str, Any]
    trace: list[dict[str, Any]] = field(default_factory=list)


def run(
    family: PlasticityFamily,
    arm: str,
    agent: Agent,
    model: ModelClient,
    root: Path,
    budgets: Budgets,
    checkpoints: int | None = None,
) -> LineageResult:
    """Run checkpoints 0..C of one lineage; ``arm`` "on" reflects, "off" never does."""
    last = checkpoints if checkpoints is not None else family.checkpoints
    env = family.environment
    adapter: TextAdapter | ChessAdapter = (
        TextAdapter(family, env) if isinstance(env, TextEnvironment) else ChessAdapter(family, env)
    )
    inventory = Inventory(root / "inventory")
    trace = TraceRecorder()
    trace.add("lineage", family=family.id, arm=arm, checkpoints=last, model=model.model, agent=agent.name)
    started = time.monotonic()
    learning = Usage()
    evaluation = Usage()
    session_index = 0
    rows: list[dict[str, Any]] = []
    edits_made = {"accepted": 0, "rejected": 0}

    def session(prompt: str, toolbox: ArtifactToolBox, usage: Usage, stage: str) -> SessionRecord:
        nonlocal session_index
        session_index += 1
        run = run_session(
            agent, model, toolbox, [prompt], index=session_index, stage=stage, budgets=budgets, trace=trace
        )
        usage.add(run)
        return run

    def actor(usage: Usage, stage: str) -> Act:
        def act(prompt: str) -> tuple[str, list[str]]:
            toolbox = ArtifactToolBox(inventory)  # read-only: acting never edits the inventory
            result = session(prompt, toolbox, usage, stage)
            return result.answer, list(toolbox.used)

        return act

    try:
        for t in range(last + 1):
            texts = inventory.texts()
            row: dict[str, Any] = {
                "checkpoint": t,
                "learning_cost": learning.as_json(),
                "inventory": inventory.counts(),
                "edits": dict(edits_made),
                "scores": {},
                "decisions": {},
            }
            for split in HELDOUT:
                episodes = adapter.play(split, t, actor(evaluation, f"eval_{split}"), texts)
                _score_split(row, split, episodes, trace, t)
            if t < last:
                episodes = adapter.play("train", t, actor(learning, "train"), texts)
                _score_split(row, "train", episodes, trace, t)
                if arm == "on":
                    accepted, rejected = inventory.accepted, len(inventory.rejected)
                    toolbox = ArtifactToolBox(inventory, reflection=True, max_edits=family.max_edits)
                    session(reflection_prompt(t, episodes, inventory), toolbox, learning, "reflection")
                    edits_made = {
                        "accepted": inventory.accepted - accepted,
                        "rejected": len(inventory.rejected) - rejected,
                    }
                else:
                    edits_made = {"accepted": 0, "rejected": 0}
            rows.append(row)
            trace.add("checkpoint", **row)
    finally:
        adapter.close()
    record = {
        "arm": arm,
        "environment": env.type,
        "checkpoints": rows,
        "rejected_edits": inventory.rejected,
        "inventory_final": inventory.texts(),
        "learning_usage": learning.as_json(),
        "eval_usage": evaluation.as_json(),
        "mechanism_use": mechanism_use(trace.events, session_index),
        "wall_s": round(time.monotonic() - started, 3),
    }
    return LineageResult(record, trace.events)


def _score_split(
    row: dict[str, Any], split: str, episodes: list[Episode], trace: TraceRecorder, t: int
) -> None:
    row["scores"][split] = round(sum(e.score for e in episodes) / len(episodes), 4) if episodes else None
    # Per held-out episode: the units a gate's noise estimate pairs between two runs.
    row.setdefault("episode_scores", {})[split] = {e.id: e.score for e in episodes}
    decisions = [d for e in episodes for d in e.decisions]
    row["decisions"][split] = tally(decisions)
    for episode in episodes:
        trace.add(
            "episode",
            checkpoint=t,
            split=split,
            id=episode.id,
            score=episode.score,
            failures=[d.category for d in episode.decisions if d.failed],
            **episode.detail,
        )


def reflection_prompt(checkpoint: int, episodes: list[Episode], inventory: Inventory) -> str:
    """What reflection sees: this checkpoint's train episodes and their feedback, and the
    inventory's names. Never a held-out episode or score."""
    counts = inventory.counts()
    names = ", ".join(inventory.texts()) or "(empty)"
    parts = [
        f"Reflection after train batch {checkpoint}. Improve your artifact inventory so that future, "
        "unseen tasks of the same kinds go better. Propose edits with propose_note, propose_skill and "
        "propose_tool; a tool must define run(task: str) -> str and is kept only if it runs cleanly on "
        "its examples in a sandbox. Rejected proposals are not kept.",
        f"Inventory now: {counts['notes']} notes, {counts['skills']} skills, {counts['tools']} tools: "
        f"{names}.",
    ]
    for episode in episodes:
        parts.append(f"### Episode {episode.id}\n{episode.summary}\nFeedback: {episode.feedback}")
    return "\n\n".join(parts)
