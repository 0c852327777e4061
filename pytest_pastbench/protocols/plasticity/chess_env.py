"""Environment (b): chess against Stockfish, through the harness.

The agent plays one colour; every one of its moves is a decision made in a fresh agent session
(the position, the moves so far and the legal moves in the prompt; the inventory's tools at
hand). Stockfish answers limited to a number of search nodes per move, which at one thread
makes its play deterministic: ``opponents.id`` for train and held-out ID games, a stronger
``opponents.ood`` for held-out OOD games. A game is scored 100 (win), 50 (draw) or 0 (loss);
a game still running after ``max_plies``, or one in which the agent's answer holds no legal
move, is a loss. Every agent move is analysed (Stockfish at ``analysis_nodes``): a move that
loses at least ``blunder_cp`` centipawns against the best one is a failed decision, and train
games report those moves as feedback.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...errors import EngineMissing, InfraError

if TYPE_CHECKING:
    import chess
    import chess.engine

    from .schema import ChessEnvironment

ENGINE_DIRS = "/usr/games:/usr/local/games"  # where Debian installs stockfish (not on PATH)
UCI_MOVE = re.compile(r"\b[a-h][1-8][a-h][1-8][qrbn]?\b")
MATE_CP = 10_000
MAX_FEEDBACK_MOVES = 5


def find_engine(name: str) -> str:
    """The engine executable; ``EngineMissing`` (never a score) when it is not installed."""
    found = shutil.which(name) or shutil.which(name, path=ENGINE_DIRS)
    if found is None:
        raise EngineMissing(
            f"chess engine {name!r} not found: install Debian's `stockfish` (apt-get install stockfish)"
        )
    return found


def check_openings(openings: dict[str, list[list[str]]]) -> None:
    """Every opening is a legal sequence of UCI moves from the initial position."""
    import chess

    for split, lines in openings.items():
        for i, moves in enumerate(lines):
            board = chess.Board()
            for move in moves:
                try:
                    board.push_uci(move)
                except ValueError:
                    raise ValueError(f"openings.{split}.{i}: {move!r} is not a legal move here") from None


@dataclass(frozen=True)
class ChessGame:
    id: str
    split: str
    opening: tuple[str, ...]
    opponent_nodes: int


def games(env: ChessEnvironment, split: str, n: int, checkpoint: int = 0) -> list[ChessGame]:
    """Held-out games are the same at every checkpoint; train games move on through the train
    openings from one checkpoint to the next."""
    lines = env.openings["train" if split == "train" else "id"]
    nodes = env.opponents["ood" if split == "ood" else "id"].nodes
    offset = checkpoint * n if split == "train" else 0
    return [
        ChessGame(
            f"{split}{checkpoint * 1000 + i if split == 'train' else i:03d}",
            split,
            tuple(lines[(offset + i) % len(lines)]),
            nodes,
        )
        for i in range(n)
    ]


@dataclass
class MoveDecision:
    ply: int
    fen: str
    answer_move: str | None
    best_move: str | None
    cp_loss: int | None
    failed: bool
    used: list[str] = field(default_factory=list)


@dataclass
class GameResult:
    score: float
    outcome: str
    plies: int
    moves: list[str]
    decisions: list[MoveDecision]


class StockfishEngine:
    """One Stockfish process for a lineage: one thread, small hash, a new game per game."""

    def __init__(self, path: str) -> None:
        import chess.engine

        try:
            self._engine = chess.engine.SimpleEngine.popen_uci(path)
            self._engine.configure({"Threads": 1, "Hash": 16})
        except (OSError, chess.engine.EngineError) as exc:
            raise InfraError(f"cannot start chess engine {path}: {exc}") from None
        self._game: object = object()

    def new_game(self) -> None:
        self._game = object()  # python-chess sends ucinewgame when the game object changes

    def play(self, board: chess.Board, nodes: int) -> chess.Move:
        import chess.engine

        try:
            result = self._engine.play(board, chess.engine.Limit(nodes=nodes), game=self._game)
        except chess.engine.EngineError as exc:
            raise InfraError(f"chess engine failed: {exc}") from None
        if result.move is None:
            raise InfraError("chess engine returned no move")
        return result.move

    def evaluate(self, board: chess.Board, nodes: int, pov: bool) -> tuple[int, str | None]:
        """(centipawns for ``pov``, best move in UCI) of the position."""
        import chess.engine

        try:
            info = self._engine.analyse(board, chess.engine.Limit(nodes=nodes), game=self._game)
        except chess.engine.EngineError as exc:
            raise InfraError(f"chess engine failed: {exc}") from None
        score = info["score"].pov(pov).score(mate_score=MATE_CP)
        pv = info.get("pv") or []
        return int(score if score is not None else 0), (pv[0].uci() if pv else None)

    def close(self) -> None:
        try:
            self._engine.quit()
        except Exception:  # noqa: BLE001 - a dead engine at shutdown changes no result
            self._engine.close()


def move_prompt(board: chess.Board, colour: str, moves: list[str]) -> str:
    legal = " ".join(sorted(m.uci() for m in board.legal_moves))
    history = " ".join(moves) or "(none)"
    return (
        f"Chess: you play {colour.capitalize()} against an engine.\n"
        f"FEN: {board.fen()}\n"
        f"Moves so far (UCI): {history}\n"
        f"Legal moves (UCI): {legal}\n"
        "Reply with one legal move in UCI notation."
    )


def parse_move(answer: str, board: chess.Board) -> chess.Move | None:
    """The first legal UCI move the answer names."""
    import chess

    for token in UCI_MOVE.findall(answer or ""):
        move = chess.Move.from_uci(token)
        if move in board.legal_moves:
            return move
    return None


Decide = Callable[[str], tuple[str, list[str]]]
"""The agent's side: prompt -> (answer, artifact ids used while deciding)."""


def play_game(game: ChessGame, env: ChessEnvironment, engine: StockfishEngine, decide: Decide) -> GameResult:
    import chess

    board = chess.Board()
    moves: list[str] = []
    for uci in game.opening:
        board.push_uci(uci)
        moves.append(uci)
    agent_white = env.agent_color == "white"
    engine.new_game()
    decisions: list[MoveDecision] = []
    outcome = "unfinished"
    plies = 0
    while plies < env.max_plies:
        result = board.outcome(claim_draw=True)
        if result is not None:
            outcome = _outcome_text(result, agent_white)
            break
        if board.turn == agent_white:
            before, best = engine.evaluate(board, env.analysis_nodes, agent_white)
            answer, used = decide(move_prompt(board, env.agent_color, moves))
            move = parse_move(answer, board)
            if move is None:
                decisions.append(MoveDecision(plies, board.fen(), None, best, None, True, used))
                outcome = "loss: no legal move in the answer"
                break
            fen = board.fen()
            board.push(move)
            after, _ = engine.evaluate(board, env.analysis_nodes, agent_white)
            loss = max(0, before - after)
            decisions.append(MoveDecision(plies, fen, move.uci(), best, loss, loss >= env.blunder_cp, used))
        else:
            board.push(engine.play(board, game.opponent_nodes))
        moves.append(board.peek().uci())
        plies += 1
    else:
        result = board.outcome(claim_draw=True)
        outcome = _outcome_text(result, agent_white) if result is not None else "loss: unfinished"
    score = 100.0 if outcome.startswith("win") else 50.0 if outcome.startswith("draw") else 0.0
    return GameResult(score, outcome, plies, moves, decisions)


def _outcome_text(outcome: Any, agent_white: bool) -> str:
    reason = outcome.termination.name.lower()
    if outcome.winner is None:
        return f"draw: {reason}"
    return f"win: {reason}" if outcome.winner == agent_white else f"loss: {reason}"


def feedback(game: ChessGame, result: GameResult, env: ChessEnvironment) -> str:
    """Train feedback: the result and the agent's worst moves with the engine's preference."""
    lines = [
        f"Chess game {game.id} (you: {env.agent_color}, opponent: {game.opponent_nodes} nodes/move): "
        f"{result.outcome} after {result.plies} plies; score {result.score:.0f}/100."
    ]
    worst = sorted((d for d in result.decisions if d.failed), key=lambda d: -(d.cp_loss or MATE_CP))
    for decision in worst[:MAX_FEEDBACK_MOVES]:
        lost = "no legal move" if decision.cp_loss is None else f"lost {decision.cp_loss} centipawns"
        lines.append(
            f"- FEN {decision.fen}: you played {decision.answer_move or '(nothing legal)'} ({lost}); "
            f"the engine preferred {decision.best_move}."
        )
    return "\n".join(lines)
