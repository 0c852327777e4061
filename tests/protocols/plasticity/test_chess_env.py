"""Chess against Stockfish through the harness: games end by the rules or are adjudicated by
Stockfish's evaluation after ``max_plies`` (±``win_cp``), openings come from disjoint seeded
train / held-out sets, and the same seed plays the same game."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from pytest_pastbench.agents.base import Budgets, HermesAgent
from pytest_pastbench.errors import InfraError
from pytest_pastbench.protocols.plasticity.chess_env import (
    ChessGame,
    StockfishEngine,
    adjudicated,
    describe_opponent,
    find_engine,
    games,
    opening_board,
    parse_move,
    play_game,
    position_key,
)
from pytest_pastbench.protocols.plasticity.engine import run
from pytest_pastbench.protocols.plasticity.schema import (
    Adjudication,
    ChessEnvironment,
    Opponent,
    PlasticityFamily,
)

from .helpers import PolicyClient

CHESS = {
    "type": "chess",
    "opponents": {"id": {"nodes": 1}, "ood": {"nodes": 50}},
    "openings": {
        "train": ["e4 e5 Nf3 Nc6", "e4 e5 Nf3 Nf6", "e4 e5 Nc3 Nf6"],
        "id": ["e4 e5 d4 exd4", "e4 e5 Nc3 Nc6"],
        "ood": ["d4 d5", "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"],
    },
    "max_plies": 6,
    "analysis_nodes": 100,
    "adjudication": {"nodes": 2000, "win_cp": 300},
}
WEAK = Opponent(nodes=1)
QUEEN_UP = "rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3"  # Black has no queen
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8#


@pytest.fixture
def engine() -> StockfishEngine:
    stockfish = StockfishEngine(find_engine("stockfish"))
    yield stockfish
    stockfish.close()


def chess_env(**changes: object) -> ChessEnvironment:
    return ChessEnvironment.model_validate({**CHESS, **changes})


def first_legal(prompt: str) -> tuple[str, list[str]]:
    legal = prompt.split("Legal moves (UCI): ")[1].splitlines()[0].split()
    return f"I play {legal[0]}.", []


# -- adjudication -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fen", "white", "points", "outcome"),
    [
        (MATE_IN_ONE, True, 100.0, "win: adjudicated, mate in 1"),
        (MATE_IN_ONE, False, 0.0, "loss: adjudicated, mated in 1"),
        (QUEEN_UP, True, 100.0, "win: adjudicated +"),
        (QUEEN_UP, False, 0.0, "loss: adjudicated -"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", True, 50.0, "draw: adjudicated +"),
    ],
)
def test_adjudication_of_known_positions(
    engine: StockfishEngine, fen: str, white: bool, points: float, outcome: str
) -> None:
    import chess

    score, _ = engine.score(chess.Board(fen), 2000, white)
    assert adjudicated(score, Adjudication(win_cp=300))[0] == points
    assert adjudicated(score, Adjudication(win_cp=300))[1].startswith(outcome)


def test_the_threshold_decides_between_win_draw_and_loss() -> None:
    import chess.engine

    rule = Adjudication(win_cp=300)
    assert adjudicated(chess.engine.Cp(300), rule) == (100.0, "win: adjudicated +300 cp ≥ +300")
    assert adjudicated(chess.engine.Cp(299), rule)[0] == 50.0
    assert adjudicated(chess.engine.Cp(-299), rule)[0] == 50.0
    assert adjudicated(chess.engine.Cp(-300), rule) == (0.0, "loss: adjudicated -300 cp ≤ −300")
    assert adjudicated(chess.engine.Mate(-3), rule) == (0.0, "loss: adjudicated, mated in 3")


# -- whole games ---------------------------------------------------------------------------------


def test_a_fixed_seed_game_is_adjudicated_and_replays_identically(engine: StockfishEngine) -> None:
    env = chess_env()
    [game] = games(env, "id", 1, seed=0)
    assert game.opening == "e4 e5 d4 exd4"  # seed 0's first ID opening
    result = play_game(game, env, engine, first_legal)
    # six plies of first-legal-move play (a3, Ra2, Ra1): Stockfish at 2,000 nodes says −275 cp
    assert result.moves == ["e2e4", "e7e5", "d2d4", "e5d4", "a2a3", "f8c5", "a1a2", "d8e7", "a2a1", "g8f6"]
    assert (result.score, result.plies, result.outcome) == (50.0, 6, "draw: adjudicated -275 cp within ±300")
    assert result.adjudication == {"cp": -275, "mate": None, "nodes": 2000, "win_cp": 300}
    assert len(result.decisions) == 3 and all(isinstance(d.cp_loss, int) for d in result.decisions)
    again = play_game(game, env, engine, first_legal)
    assert (again.moves, again.adjudication) == (result.moves, result.adjudication)  # deterministic
    # the same game under a threshold of 250 cp is a loss: the rule, not luck, decides
    strict = play_game(game, chess_env(adjudication={"nodes": 2000, "win_cp": 250}), engine, first_legal)
    assert (strict.moves, strict.score, strict.outcome) == (
        result.moves,
        0.0,
        "loss: adjudicated -275 cp ≤ −250",
    )


def test_a_game_that_ends_by_the_rules_is_not_adjudicated(engine: StockfishEngine) -> None:
    env = chess_env(agent_color="black")
    game = ChessGame("g", "id", "f3 e5 g4", WEAK)
    result = play_game(game, env, engine, lambda p: ("d8h4", []))
    assert (result.score, result.outcome, result.adjudication) == (100.0, "win: checkmate", None)


def test_an_answer_without_a_legal_move_loses_the_game(engine: StockfishEngine) -> None:
    env = chess_env()
    result = play_game(ChessGame("g", "id", "e4 e5", WEAK), env, engine, lambda prompt: ("e2e5 please", []))
    assert (result.score, result.outcome) == (0.0, "loss: no legal move in the answer")
    assert result.decisions[0].failed and result.decisions[0].answer_move is None


def test_the_opponent_plays_at_the_skill_level_it_is_given(engine: StockfishEngine) -> None:
    board = opening_board("e4 e5 Qh5 Nc6 Bc4")  # Black must stop Qxf7#
    for opponent in (Opponent(nodes=200), Opponent(nodes=200, skill_level=0)):
        assert engine.play(board, opponent) in board.legal_moves
    assert describe_opponent(Opponent(nodes=5, skill_level=3)) == "5 nodes/move, skill level 3"
    with pytest.raises(ValidationError, match="less than or equal to 20"):
        chess_env(opponents={"id": {"nodes": 1, "skill_level": 21}, "ood": {"nodes": 1}})


# -- openings ------------------------------------------------------------------------------------


def test_openings_are_san_uci_or_fen() -> None:
    assert opening_board("e4 e5 Nf3").fen() == opening_board("e2e4 e7e5 g1f3").fen()
    assert opening_board("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1").piece_at(12) is not None
    with pytest.raises(ValidationError, match=r"openings.id.0: 'Ke2' is not a legal move"):
        chess_env(openings={**CHESS["openings"], "id": ["e4 Ke2"]})


def test_a_held_out_opening_may_not_start_from_a_train_position() -> None:
    # a transposition is the same start: the check compares positions, not move lists
    with pytest.raises(ValidationError, match="openings.ood.0 starts from the position of openings.train.0"):
        chess_env(openings={**CHESS["openings"], "ood": ["Nf3 Nc6 e4 e5"]})
    with pytest.raises(ValidationError, match="openings.ood: at least one opening"):
        chess_env(openings={k: v for k, v in CHESS["openings"].items() if k != "ood"})


def test_train_batches_never_play_a_held_out_opening_and_the_seed_fixes_the_order() -> None:
    env = chess_env()
    held_out = {position_key(opening_board(o)) for s in ("id", "ood") for o in env.openings[s]}
    train = [g for t in range(20) for g in games(env, "train", 2, t, seed=5)]
    assert {g.opening for g in train} == set(env.openings["train"])
    assert not {position_key(opening_board(g.opening)) for g in train} & held_out
    assert [g.opening for g in games(env, "ood", 2, seed=5)] == [
        g.opening for g in games(env, "ood", 2, checkpoint=3, seed=5)
    ]  # held-out games are the same at every checkpoint
    orders = {tuple(g.opening for g in games(env, "train", 3, seed=s)) for s in range(6)}
    assert len(orders) > 1  # the seed, not the file order, fixes the order
    assert {g.opponent.nodes for g in games(env, "ood", 2)} == {50}


def test_parse_move_takes_the_first_legal_uci_move() -> None:
    import chess

    board = chess.Board()
    assert parse_move("e2e5 is bad, so e2e4", board) == chess.Move.from_uci("e2e4")
    assert parse_move("Nf3", board) is None


def test_a_missing_engine_is_an_infra_error_not_a_score() -> None:
    with pytest.raises(InfraError, match="apt-get install stockfish"):
        find_engine("no-such-stockfish")


def test_a_short_lineage_against_stockfish_through_the_agent_loop(tmp_path: Path) -> None:
    family = PlasticityFamily.model_validate(
        {
            "format": "pastbench/plasticity-v1",
            "id": "chess_short",
            "checkpoints": 1,
            "splits": {"train": 1, "id": 1, "ood": 1},
            "environment": {**CHESS, "max_plies": 4},
        }
    )
    outcome = run(family, "on", HermesAgent(), PolicyClient("curator"), tmp_path, Budgets())
    rows = outcome.record["checkpoints"]
    assert rows[0]["decisions"]["id"]["total"] == 2 and rows[0]["decisions"]["train"]["total"] == 2
    assert rows[1]["inventory"]["tools"] == 1  # the reflection's move picker passed its checks
    assert rows[1]["decisions"]["ood"]["relevant"] == 2  # it covers every chess decision after
    runs = [e for e in outcome.trace if e["kind"] == "tool_call" and e["name"] == "tool_run"]
    assert runs and all(e["ok"] for e in runs)
    episodes = [e for e in outcome.trace if e["kind"] == "episode"]
    assert all(e["outcome"] and e["plies"] <= 4 for e in episodes)
    assert all(
        e["adjudication"]["nodes"] == 2000 for e in episodes if e["outcome"].split()[1] == "adjudicated"
    )
