"""Chess lineages end to end through pytest with the offline curator: games are adjudicated
and their ends land in the trace (a short run), and the built-in family's held-out curve rises
from 0 through the artifacts reflection writes (the whole family: slow)."""

from __future__ import annotations

import json

import pytest

from pytest_pastbench.core.family_files import load_family_model
from pytest_pastbench.protocols.plasticity.chess_env import games, opening_board, position_key
from pytest_pastbench.protocols.plasticity.schema import ChessEnvironment, PlasticityFamily
from pytest_pastbench.resources import families_dir

from .helpers import write_family

# The built-in family's first train batch and two of its held-out games, one checkpoint: the OOD
# game is the one its first reflection turns from a loss into a win (measured, and asserted).
SHORT_CHESS = {
    "format": "pastbench/plasticity-v1",
    "id": "chess_short",
    "checkpoints": 1,
    "seed": 3,
    "splits": {"train": 2, "id": 1, "ood": 1},
    "environment": {
        "type": "chess",
        "opponents": {"id": {"nodes": 1}, "ood": {"nodes": 1}},
        "openings": {
            "train": ["e4 e5 Nf3 Nc6 Bc4 Nf6", "e4 e5 Nc3 Nf6"],
            "id": ["e4 e5 Nc3 Nc6"],
            "ood": ["d4 d5 c4 e6"],
        },
        "max_plies": 16,
        "analysis_nodes": 300,
        "blunder_cp": 100,
        "adjudication": {"nodes": 20000, "win_cp": 300},
    },
}


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    result = pytester.runpytest_subprocess(
        "families", "-v", "--pastbench-model=pastbench/curator", "--pastbench-run-id=r", *args
    )
    assert result.ret == 0, result.stdout.str()
    return result


def _lineage(pytester: pytest.Pytester, family: str, arm: str) -> dict:
    summary = json.loads((pytester.path / "reports" / "r" / "sequence_summary.json").read_text())
    lineages = summary["protocols"]["plasticity"]["families"][f"plasticity.{family}"]["lineages"]
    return lineages[f"hermes@pastbench/curator[{arm}-t0]"]


def _episodes(pytester: pytest.Pytester, family: str, arm: str) -> list[dict]:
    path = pytester.path / "reports" / "r" / "traces" / "plasticity" / family / f"lineage[{arm}-t0].jsonl"
    events = [json.loads(line) for line in path.read_text().splitlines()]
    return [e for e in events if e["kind"] == "episode"]


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_a_short_chess_run_scores_what_reflection_learned_and_traces_each_end(
    pytester: pytest.Pytester,
) -> None:
    write_family(pytester.path / "families" / "plasticity", SHORT_CHESS)
    _run(pytester, "--pastbench-persistence=on")
    scores = _lineage(pytester, "chess_short", "on")["scores"]
    assert [(row["id"], row["ood"]) for row in scores] == [(0.0, 0.0), (0.0, 100.0)]  # non-zero, varying
    episodes = _episodes(pytester, "chess_short", "on")
    assert [(e["checkpoint"], e["split"], e["outcome"]) for e in episodes] == [
        (0, "id", "loss: adjudicated -557 cp ≤ −300"),
        (0, "ood", "loss: adjudicated -678 cp ≤ −300"),
        (0, "train", "loss: adjudicated -773 cp ≤ −300"),
        (0, "train", "loss: adjudicated -656 cp ≤ −300"),
        (1, "id", "loss: checkmate"),
        (1, "ood", "win: adjudicated +417 cp ≥ +300"),
    ]
    for episode in episodes:
        verdict = episode["adjudication"]
        if verdict is None:  # the rules ended it before max_plies
            assert episode["plies"] <= 16 and episode["score"] == 0.0
            continue
        assert episode["plies"] == 16 and (verdict["nodes"], verdict["win_cp"]) == (20000, 300)
        cp = verdict["cp"]
        assert episode["score"] == (100.0 if cp >= 300 else 0.0 if cp <= -300 else 50.0)


@pytest.mark.slow
def test_the_built_in_chess_family_rises_with_reflection_and_stays_flat_without(
    pytester: pytest.Pytester,
) -> None:
    target = pytester.path / "families" / "plasticity" / "chess_stockfish.yaml"
    target.parent.mkdir(parents=True)
    target.write_text((families_dir() / "plasticity" / "chess_stockfish.yaml").read_text())
    _run(pytester)
    on, off = (_lineage(pytester, "chess_stockfish", arm) for arm in ("on", "off"))
    on_id = [row["id"] for row in on["scores"]]
    on_ood = [row["ood"] for row in on["scores"]]
    assert on_id[0] == 0.0 and on_id[-1] > on_id[0] and len(set(on_id)) > 1  # non-zero, varying
    assert on_ood[-1] > on_ood[0]
    assert {row["id"] for row in off["scores"]} == {0.0}  # no reflection, no artifacts, no rise
    assert on["inventory"][-1]["tools"] == 1 and on["rejected_edits"] == 0
    outcomes = [e["outcome"] for e in _episodes(pytester, "chess_stockfish", "on")]
    assert any(o.startswith("draw: adjudicated") for o in outcomes)


def test_the_built_in_chess_family_keeps_held_out_openings_out_of_training() -> None:
    path = families_dir() / "plasticity" / "chess_stockfish.yaml"
    family, _ = load_family_model(path, PlasticityFamily)
    env = family.environment
    assert isinstance(env, ChessEnvironment)
    starts = {s: {position_key(opening_board(o)) for o in env.openings[s]} for s in ("train", "id", "ood")}
    assert not starts["train"] & (starts["id"] | starts["ood"]) and not starts["id"] & starts["ood"]
    played = {g.opening for t in range(50) for g in games(env, "train", family.splits.train, t, family.seed)}
    assert played == set(env.openings["train"])
    assert env.opponents["id"].skill_level is None  # reproducible: strength by nodes only
