"""Environment (b): chess against Stockfish, through the harness.

The agent plays one colour; every one of its moves is a decision made in a fresh agent session
(the position, the moves so far and the legal moves in the prompt; the inventory's tools at
hand). Stockfish answers with a node budget per move (one thread, a cleared hash per game: the
same position gives the same move), optionally weakened by its ``Skill Level`` option. Games
start from the family's openings (SAN moves or a FEN): the ``train`` set for train batches, the
held-out ``id`` and ``ood`` sets for evaluation, in a seeded order.

A game ends by the rules (checkmate, stalemate, insufficient material, a claimable draw) or,
still running after ``max_plies`` agent-and-opponent plies, is adjudicated: Stockfish evaluates
the final position at ``adjudication.nodes`` from the agent's side; at least
``+adjudication.win_cp`` centipawns (or a mate for the agent) is a win, at most ``−win_cp`` (or
a mate against it) a loss, anything between a draw. A game scores 100 (win), 50 (draw) or 0
(loss); an answer holding no legal move loses at once. Every agent move is analysed (Stockfish
at ``analysis_nodes``): a move that loses at least ``blunder_cp`` centipawns against the best
one is a failed decision, and train games report those moves as feedback.
"""

from __future__ import annotations

import random
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...errors import EngineMissing, InfraError

if TYPE_CHECKING:
    import chess
    import chess.engine

    from .schema import Adjudication, ChessEnvironment, Opponent

ENGINE_DIRS = "/usr/games:/usr/local/games"  # where Debian installs stockfish (not on PATH)
UCI_MOVE = re.compile(r"\b[a-h][1-8][a-h][1-8][qrbn]?\b")
MATE_CP = 10_000
MAX_FEEDBACK_MOVES = 5
FULL_STRENGTH = 20  # Stockfish's Skill Level default


def find_engine(name: str) -> str:
    """The engine executable; ``EngineMissing`` (never a score) when it is not installed."""
    found = shutil.which(name) or shutil.which(name, path=ENGINE_DIRS)
    if found is None:
        raise EngineMissing(
            f"chess engine {name!r} not found: install Debian's `stockfish` (apt-get install stockfish)"
        )
    return found


def opening_board(opening: str) -> chess.Board:
    """The position an opening names: a FEN (it holds a '/'), else SAN (or UCI) moves from the
    initial position. ``ValueError`` says which move is not legal."""
    import chess  # lazy: python-chess, only for a chess family

    if "/" in opening:
        try:
            return chess.Board(opening)
        except ValueError as exc:
            raise ValueError(f"not a valid FEN: {exc}") from None
    board = chess.Board()
    for move in opening.split():
        try:
            board.push_san(move)
        except ValueError:
            try:
                board.push_uci(move)
            except ValueError:
                raise ValueError(f"{move!r} is not a legal move after {board.fen()!r}") from None
    return board


def position_key(board: chess.Board) -> str:
    """A position regardless of move counters: placement, side to move, castling, en passant."""
    return " ".join(board.fen().split()[:4])


def check_openings(openings: dict[str, list[str]]) -> None:
    """Every opening is a legal position, and no held-out opening reaches a position a train
    opening starts from (train batches never play a held-out start)."""
    starts: dict[str, dict[str, int]] = {}
    for split, lines in openings.items():
        starts[split] = {}
        for i, opening in enumerate(lines):
            try:
                board = opening_board(opening)
            except ValueError as exc:
                raise ValueError(f"openings.{split}.{i}: {exc}") from None
            if board.is_game_over():
                raise ValueError(f"openings.{split}.{i}: the game is already over")
            starts[split].setdefault(position_key(board), i)
    for split in ("id", "ood"):
        for key, i in starts.get(split, {}).items():
            if key in starts.get("train", {}):
                raise ValueError(
                    f"openings.{split}.{i} starts from the position of openings.train."
                    f"{starts['train'][key]}: held-out openings must differ from the train openings"
                )


@dataclass(frozen=True)
class ChessGame:
    id: str
    split: str
    opening: str
    opponent: Opponent


def games(env: ChessEnvironment, split: str, n: int, checkpoint: int = 0, seed: int = 0) -> list[ChessGame]:
    """The games of one split, from its own openings in a seeded order: held-out games are the
    same at every checkpoint; train games move on through the train openings from one
    checkpoint to the next."""
    lines = env.openings[split]
    order = list(range(len(lines)))
    random.Random(f"{seed}:{split}").shuffle(order)
    opponent = env.opponents["ood" if split == "ood" else "id"]
    offset = checkpoint * n if split == "train" else 0
    return [
        ChessGame(
            f"{split}{checkpoint * 1000 + i if split == 'train' else i:03d}",
            split,
            lines[order[(offset + i) % len(lines)]],
            opponent,
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
    final_fen: str = ""
    adjudication: dict[str, Any] | None = None  # the final evaluation when the game was adjudicated

    def as_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "plies": self.plies,
            "final_fen": self.final_fen,
            "adjudication": self.adjudication,
        }


class StockfishEngine:
    """One Stockfish process for a lineage: one thread, small hash, a new game per game."""

    def __init__(self, path: str) -> None:
        import chess.engine  # lazy: python-chess, only for a chess family

        try:
            self._engine = chess.engine.SimpleEngine.popen_uci(path)
            self._engine.configure({"Threads": 1, "Hash": 16})
        except (OSError, chess.engine.EngineError) as exc:
            raise InfraError(f"cannot start chess engine {path}: {exc}") from None
        self._game: object = object()

    def new_game(self) -> None:
        self._game = object()  # python-chess sends ucinewgame (a cleared hash) when it changes

    def play(self, board: chess.Board, opponent: Opponent) -> chess.Move:
        import chess.engine  # lazy: python-chess, only for a chess family

        # Set on every move: the same engine plays train/ID and OOD opponents of other skills.
        options = {}
        if "Skill Level" in self._engine.options:
            options["Skill Level"] = FULL_STRENGTH if opponent.skill_level is None else opponent.skill_level
        elif opponent.skill_level is not None:
            raise InfraError("this chess engine has no 'Skill Level' option: set opponents by nodes only")
        try:
            result = self._engine.play(
                board, chess.engine.Limit(nodes=opponent.nodes), game=self._game, options=options
            )
        except chess.engine.EngineError as exc:
            raise InfraError(f"chess engine failed: {exc}") from None
        if result.move is None:
            raise InfraError("chess engine returned no move")
        return result.move

    def score(self, board: chess.Board, nodes: int, pov: bool) -> tuple[chess.engine.Score, str | None]:
        """(the score for ``pov``, the best move in UCI) of the position at ``nodes``."""
        import chess.engine  # lazy: python-chess, only for a chess family

        try:
            info = self._engine.analyse(board, chess.engine.Limit(nodes=nodes), game=self._game)
        except chess.engine.EngineError as exc:
            raise InfraError(f"chess engine failed: {exc}") from None
        pv = info.get("pv") or []
        return info["score"].pov(pov), (pv[0].uci() if pv else None)

    def evaluate(self, board: chess.Board, nodes: int, pov: bool) -> tuple[int, str | None]:
        """(centipawns for ``pov``, mates as ±10,000, best move in UCI) of the position."""
        score, best = self.score(board, nodes, pov)
        value = score.score(mate_score=MATE_CP)
        return int(value if value is not None else 0), best

    def close(self) -> None:
        try:
            self._engine.quit()
        except Exception:  # noqa: BLE001 - a dead engine at shutdown changes no result
            self._engine.close()


def adjudicated(score: chess.engine.Score, rule: Adjudication) -> tuple[float, str]:
    """(points, outcome) of an unfinished game from the agent's-side evaluation of its end."""
    mate = score.mate()
    if mate is not None:
        won = mate > 0
        return (
            (100.0, f"win: adjudicated, mate in {mate}")
            if won
            else (0.0, f"loss: adjudicated, mated in {-mate}")
        )
    cp = int(score.score() or 0)
    if cp >= rule.win_cp:
        return 100.0, f"win: adjudicated {cp:+d} cp ≥ +{rule.win_cp}"
    if cp <= -rule.win_cp:
        return 0.0, f"loss: adjudicated {cp:+d} cp ≤ −{rule.win_cp}"
    return 50.0, f"draw: adjudicated {cp:+d} cp within ±{rule.win_cp}"


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
    import chess  # lazy: python-chess, only for a chess family

    for token in UCI_MOVE.findall(answer or ""):
        move = chess.Move.from_uci(token)
        if move in board.legal_moves:
            return move
    return None


Decide = Callable[[str], tuple[str, list[str]]]
"""The agent's side: prompt -> (answer, artifact ids used while deciding)."""


def play_game(game: ChessGame, env: ChessEnvironment, engine: StockfishEngine, decide: Decide) -> GameResult:
    board = opening_board(game.opening)
    moves = [m.uci() for m in board.move_stack]
    agent_white = env.agent_color == "white"
    engine.new_game()
    decisions: list[MoveDecision] = []
    plies = 0
    while True:
        ended = board.outcome(claim_draw=True)
        if ended is not None:
            score, outcome = _by_the_rules(ended, agent_white)
            return GameResult(score, outcome, plies, moves, decisions, board.fen())
        if plies >= env.max_plies:
            final, _ = engine.score(board, env.adjudication.nodes, agent_white)
            score, outcome = adjudicated(final, env.adjudication)
            evaluation = {
                "cp": final.score(),
                "mate": final.mate(),
                "nodes": env.adjudication.nodes,
                "win_cp": env.adjudication.win_cp,
            }
            return GameResult(score, outcome, plies, moves, decisions, board.fen(), evaluation)
        if board.turn == agent_white:
            before, best = engine.evaluate(board, env.analysis_nodes, agent_white)
            answer, used = decide(move_prompt(board, env.agent_color, moves))
            move = parse_move(answer, board)
            if move is None:
                decisions.append(MoveDecision(plies, board.fen(), None, best, None, True, used))
                return GameResult(
                    0.0, "loss: no legal move in the answer", plies, moves, decisions, board.fen()
                )
            fen = board.fen()
            board.push(move)
            after, _ = engine.evaluate(board, env.analysis_nodes, agent_white)
            loss = max(0, before - after)
            decisions.append(MoveDecision(plies, fen, move.uci(), best, loss, loss >= env.blunder_cp, used))
        else:
            board.push(engine.play(board, game.opponent))
        moves.append(board.peek().uci())
        plies += 1


def _by_the_rules(outcome: Any, agent_white: bool) -> tuple[float, str]:
    reason = outcome.termination.name.lower()
    if outcome.winner is None:
        return 50.0, f"draw: {reason}"
    return (100.0, f"win: {reason}") if outcome.winner == agent_white else (0.0, f"loss: {reason}")


def describe_opponent(opponent: Opponent) -> str:
    skill = "" if opponent.skill_level is None else f", skill level {opponent.skill_level}"
    return f"{opponent.nodes} nodes/move{skill}"


def feedback(game: ChessGame, result: GameResult, env: ChessEnvironment) -> str:
    """Train feedback: the result and the agent's worst moves with the engine's preference."""
    lines = [
        f"Chess game {game.id} (you: {env.agent_color}, opponent: {describe_opponent(game.opponent)}): "
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
