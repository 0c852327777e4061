"""Chess against Stockfish through the harness: short games at a low node cap, scoring
100·(W + 0.5·D)/N with unfinished games and illegal answers as losses, move analysis."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.agents.base import Budgets, HermesAgent
from pytest_pastbench.errors import InfraError
from pytest_pastbench.protocols.plasticity.chess_env import (
    ChessGame,
    StockfishEngine,
    find_engine,
    parse_move,
    play_game,
)
from pytest_pastbench.protocols.plasticity.engine import run_lineage
from pytest_pastbench.protocols.plasticity.schema import ChessEnvironment, PlasticityFamily

from .helpers import PolicyClient

CHESS = {
    "type": "chess",
    "opponents": {"id": {"nodes": 1}, "ood": {"nodes": 50}},
    "openings": {"train": [["e2e4", "e7e5"]], "id": [["d2d4", "d7d5"]]},
    "max_plies": 6,
    "analysis_nodes": 100,
}


@pytest.fixture
def engine() -> StockfishEngine:
    stockfish = StockfishEngine(find_engine("stockfish"))
    yield stockfish
    stockfish.close()


def first_legal(prompt: str) -> tuple[str, list[str]]:
    legal = prompt.split("Legal moves (UCI): ")[1].splitlines()[0].split()
    return f"I play {legal[0]}.", []


def test_an_unfinished_game_is_a_loss_and_every_agent_move_is_analysed(engine: StockfishEngine) -> None:
    env = ChessEnvironment.model_validate(CHESS)
    game = ChessGame("id000", "id", ("d2d4", "d7d5"), 1)
    result = play_game(game, env, engine, first_legal)
    assert (result.score, result.outcome, result.plies) == (0.0, "loss: unfinished", 6)
    assert len(result.decisions) == 3 and all(isinstance(d.cp_loss, int) for d in result.decisions)
    assert result.moves[:2] == ["d2d4", "d7d5"] and len(result.moves) == 8
    assert play_game(game, env, engine, first_legal).moves == result.moves  # deterministic


def test_an_answer_without_a_legal_move_loses_the_game(engine: StockfishEngine) -> None:
    env = ChessEnvironment.model_validate(CHESS)
    result = play_game(ChessGame("g", "id", (), 1), env, engine, lambda prompt: ("e2e5 please", []))
    assert (result.score, result.outcome) == (0.0, "loss: no legal move in the answer")
    assert result.decisions[0].failed and result.decisions[0].answer_move is None


def test_a_win_scores_100(engine: StockfishEngine) -> None:
    env = ChessEnvironment.model_validate({**CHESS, "agent_color": "black"})
    result = play_game(ChessGame("g", "id", ("f2f3", "e7e5", "g2g4"), 1), env, engine, lambda p: ("d8h4", []))
    assert (result.score, result.outcome) == (100.0, "win: checkmate")


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
    outcome = run_lineage(family, "on", HermesAgent(), PolicyClient("curator"), tmp_path, Budgets())
    rows = outcome.record["checkpoints"]
    assert rows[0]["decisions"]["id"]["total"] == 2 and rows[0]["decisions"]["train"]["total"] == 2
    assert rows[1]["inventory"]["tools"] == 1  # the reflection's move picker passed its checks
    assert rows[1]["decisions"]["ood"]["relevant"] == 2  # it covers every chess decision after
    runs = [e for e in outcome.trace if e["kind"] == "tool_call" and e["name"] == "tool_run"]
    assert runs and all(e["ok"] for e in runs)
    assert {r["scores"]["id"] for r in rows} <= {0.0, 50.0, 100.0}
