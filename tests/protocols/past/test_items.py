"""A PAST item (``EpisodeItem``): measuring plays the episode on the engine in a fresh store
folder that is gone after, a pass threshold fails only the on arm, and its work estimate counts
the user turns its arm plays."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_pastbench.errors import BelowThreshold, InfraError
from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.past import engine
from pytest_pastbench.protocols.past.family_files import load_family
from pytest_pastbench.protocols.past.items import EpisodeItem
from tests.family_samples import GOOD_MEMORY
from tests.protocols.stand_ins import item_of


def episode_item(tmp_path: Path, arm: str = "on", **options: Any) -> Any:
    path = tmp_path / "tiny_prefs.yaml"
    path.write_text(GOOD_MEMORY)
    family, file_hash = load_family(path)
    return item_of(
        EpisodeItem,
        RunOptions(**options),
        family=family,
        episode=family.episodes[1],  # learn, distractor, eval_near
        arm=arm,
        name=f"ep02[{arm}-t0]",
        file_hash=file_hash,
        outcome=None,
    )


def test_measure_plays_the_episode_on_the_engine_in_a_store_folder_removed_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = episode_item(tmp_path)
    seen: dict[str, Any] = {}

    def fake_run(spec: Any, agent: Any, client: Any, store_root: Path, budgets: Any, judge: Any) -> Any:
        seen.update(spec=spec, client=client, store=store_root, existed=store_root.is_dir(), judge=judge)
        record = SimpleNamespace(model_dump=lambda mode: {"score": 0.5, "mode": mode}, score=0.5)
        return SimpleNamespace(record=record, trace=[{"event": "session"}])

    monkeypatch.setattr(engine, "run", fake_run)
    record, trace = item.measure()
    assert record == {"score": 0.5, "mode": "json"} and trace == [{"event": "session"}]
    spec = seen["spec"]
    assert (spec.nodeid, spec.arm, spec.episode.id) == ("families/f.yaml::ep02[on-t0]", "on", "ep02")
    assert spec.config_label == "hermes[]@pastbench/recall" and spec.dataset_hash == item.file_hash
    assert seen["client"] == "client:pastbench/recall:0" and seen["judge"] == "judge"
    assert seen["existed"] and not seen["store"].exists()


def test_the_store_folder_goes_when_the_engine_fails_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = episode_item(tmp_path)
    stores: list[Path] = []

    def failing_run(spec: Any, agent: Any, client: Any, store_root: Path, *args: Any, **kwargs: Any) -> Any:
        stores.append(store_root)
        raise InfraError("provider down")

    monkeypatch.setattr(engine, "run", failing_run)
    with pytest.raises(InfraError):
        item.measure()
    assert stores and not stores[0].exists()


@pytest.mark.parametrize(
    ("arm", "score", "threshold", "fails"),
    [
        ("on", 0.4, 0.5, True),
        ("on", None, 0.5, True),
        ("on", 0.6, 0.5, False),
        ("off", 0.1, 0.5, False),
        ("on", 0.1, None, False),
    ],
)
def test_a_pass_threshold_fails_only_an_on_item_under_it(
    tmp_path: Path, arm: str, score: float | None, threshold: float | None, fails: bool
) -> None:
    item = episode_item(tmp_path, arm=arm, pass_threshold=threshold)
    item.outcome = SimpleNamespace(record=SimpleNamespace(score=score, losses=[]))
    if fails:
        with pytest.raises(BelowThreshold, match="< pass threshold 0.5"):
            item.runtest()
    else:
        item.runtest()


def test_the_work_estimate_counts_the_user_turns_the_arm_plays(tmp_path: Path) -> None:
    # ep02: learn, distractor and eval_near sessions of one user turn each; the control arm plays
    # only the eval session.
    assert episode_item(tmp_path, arm="on").work_estimate() == 3
    assert episode_item(tmp_path, arm="off").work_estimate() == 1


def test_a_blocked_item_still_has_a_full_past_record_with_its_reason(tmp_path: Path) -> None:
    item = episode_item(tmp_path)
    item.infra_error = "provider down"
    record = item.full_record()
    assert record["infra_blocked"] is True and record["reasons"] == ["provider down"]
    assert record["score"] is None and record["dataset_hash"] == item.file_hash
    assert (record["nodeid"], record["family"], record["arm"]) == (
        "families/f.yaml::ep02[on-t0]",
        "memory.tiny_prefs",
        "on",
    )
