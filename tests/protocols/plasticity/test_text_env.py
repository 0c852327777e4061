"""The text environment: safe rules, seeded splits, grading by the last number, feedback only on
train tasks; and the family file's validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.errors import FamilyFileError
from pytest_pastbench.protocols.plasticity.collect import load_plasticity_family
from pytest_pastbench.protocols.plasticity.text_env import (
    check_rule,
    evaluate,
    feedback,
    heldout_tasks,
    score_answer,
    train_batch,
)

from .helpers import SMALL_TEXT_FAMILY, small_family, write_family


def test_rules_are_arithmetic_over_their_inputs_only() -> None:
    assert evaluate("units * price * (0.9 if units >= 100 else 1.0)", {"units": 100, "price": 2}) == 180.0
    assert evaluate("round(min(0.5, m / 600) * fee, 2)", {"m": 60, "fee": 100}) == 10.0
    for bad, message in [
        ("__import__('os').system('true')", "only min, max, round and abs"),
        ("weight.real", "Attribute is not allowed"),
        ("weight + other", "'other' is not an input"),
        ("'a' * weight", "constants must be numbers"),
    ]:
        with pytest.raises(ValueError, match=message):
            check_rule(bad, {"weight"})


def test_heldout_sets_are_fixed_and_train_batches_move_on() -> None:
    env = small_family().environment
    first, again = heldout_tasks(env, "id", 4, seed=1), heldout_tasks(env, "id", 4, seed=1)
    assert first == again
    assert [t.kind for t in first] == ["shipping", "storage", "shipping", "storage"]
    assert heldout_tasks(env, "id", 4, seed=2) != first
    assert train_batch(env, 0, 3, seed=1) != train_batch(env, 1, 3, seed=1)
    ood = heldout_tasks(env, "ood", 2, seed=1)
    assert ood[0].prompt.startswith("Quote the shipping charge")  # the OOD phrasing


def test_grading_reads_the_last_number_and_feedback_states_the_rule() -> None:
    env = small_family().environment
    task = heldout_tasks(env, "id", 1, seed=1)[0]
    assert score_answer(task, f"The charge is {task.expected:.2f} EUR", 0.01) == 100.0
    assert score_answer(task, f"{task.expected:.2f}, or maybe 1", 0.01) == 0.0
    assert score_answer(task, "no idea", 0.01) == 0.0
    text = feedback(task, env.kinds[0], 0.0)
    assert "Score: 0/100" in text and f"Expected answer: {task.expected:.2f}" in text
    assert "answer = 3.5 + 0.8 * weight + 0.05 * distance, with weight, distance given in this order" in text


def test_a_bad_family_file_names_the_field(tmp_path: Path) -> None:
    broken = {**SMALL_TEXT_FAMILY, "id": "broken"}
    kinds = [dict(k) for k in SMALL_TEXT_FAMILY["environment"]["kinds"]]
    kinds[0]["templates"] = ["A {weight} kg parcel."]  # {distance} missing
    broken["environment"] = {**SMALL_TEXT_FAMILY["environment"], "kinds": kinds}
    with pytest.raises(FamilyFileError, match=r"broken.yaml: environment.text.kinds.0: .*placeholders"):
        load_plasticity_family(write_family(tmp_path, broken))
    wrong_id = write_family(tmp_path, {**SMALL_TEXT_FAMILY, "id": "other"})
    wrong_id.rename(tmp_path / "renamed.yaml")
    with pytest.raises(FamilyFileError, match="must equal the file name"):
        load_plasticity_family(tmp_path / "renamed.yaml")
    assert load_plasticity_family(write_family(tmp_path)).checkpoints == 5


def test_the_builtin_families_load() -> None:
    folder = Path(__file__).parents[3] / "families" / "plasticity"
    loaded = {p.stem: load_plasticity_family(p) for p in sorted(folder.glob("*.yaml"))}
    assert set(loaded) == {"chess_stockfish", "ops_rules"}
    assert loaded["ops_rules"].checkpoints == 5
