"""The Mech anchors of docs/design.md §4 over the whole built-in dataset (issue 28, item 1).

Each anchor agent runs the on arm of every built-in PAST episode through the same ``engine.run`` the
plugin runs (``harness.run_contestant``); Mech per capability is the summary's (mean over families
of the episode means), with its bootstrap CI over episode clusters.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.protocols.detect import is_past_family_file
from pytest_pastbench.protocols.past.engine import ItemSpec, run
from pytest_pastbench.protocols.past.family_files import load_family
from pytest_pastbench.protocols.past.metrics import summarize
from pytest_pastbench.protocols.past.schema import CAPABILITIES
from pytest_pastbench.resources import families_dir
from tests.adversarial.harness import (
    MECH_ANCHORS,
    NoModel,
    Result,
    mech_by_capability,
    mech_difference,
    run_contestant,
)
from tests.adversarial.hoarder import NeverWrites
from tests.family_samples import GOOD_MEMORY


def builtin_families() -> list[Any]:
    paths = sorted(p for p in families_dir().rglob("*.yaml") if is_past_family_file(p))
    return [load_family(p)[0] for p in paths]


def on_arm_summary(agent: Any, model: Any, tmp_path: Path, model_name: str = "none") -> dict[str, Any]:
    """The summary's overall entry of ``agent`` on the on arm of every built-in episode."""
    records = []
    for family in builtin_families():
        for episode in family.episodes:
            spec = ItemSpec(
                nodeid=f"{family.qualified_id}::{episode.id}[on]",
                family=family,
                episode=episode,
                arm="on",
                trial=0,
                model=model_name,
                config_label=agent.name,
                dataset_hash="",
            )
            root = tmp_path / family.qualified_id / episode.id
            records.append(run(spec, agent, model, root).record)
    return summarize(records, {"id": "anchors"}, seed=0)["configs"][0]


def test_an_agent_that_never_writes_gets_mech_zero(tmp_path: Path) -> None:
    config = on_arm_summary(NeverWrites(), NoModel(), tmp_path)
    assert config["overall"]["mech"] == 0.0
    assert all(f["mech"] == 0.0 for f in config["families"].values())


@pytest.fixture(scope="module")
def anchors() -> dict[str, Result]:
    return {name: run_contestant(name, arms=("on",)) for name in MECH_ANCHORS}


def assert_above(anchors: dict[str, Result], better: str, worse: str, margin: float = 0.0) -> None:
    """``better``'s Mech beats ``worse``'s in every capability, the paired 95% CI of the difference
    above ``margin`` (beyond the bootstrap noise)."""
    for capability, (diff, (low, _)) in mech_difference(anchors[better], anchors[worse]).items():
        assert low > margin, f"{capability}: {better} − {worse} = {diff:+.3f}, CI low {low:+.3f}"


@pytest.mark.slow
def test_the_mech_anchors_hold_in_every_capability_beyond_the_cis(anchors: dict[str, Result]) -> None:
    mech = {name: mech_by_capability(result) for name, result in anchors.items()}
    for capability in CAPABILITIES:
        # The levels are the design's (oracle ≥ 0.95, paste-all ≤ 0.45, hoarder ≤ 0.35); "beyond
        # the CIs" is the order's, asserted below.
        oracle, (oracle_low, _) = mech["oracle"][capability]
        assert oracle_low >= 0.95, (capability, oracle)
        paste, (_, paste_high) = mech["paste_all"][capability]
        assert paste_high <= 0.45, (capability, paste)
        hoarder, (_, hoarder_high) = mech["hoarder"][capability]
        assert hoarder_high <= 0.35, (capability, hoarder)
        assert mech["never_writes"][capability][0] == 0.0
    # Every step of oracle > curator on hermes-plus > recall > paste-all > hoarder > never-writes.
    for better, worse in zip(MECH_ANCHORS, MECH_ANCHORS[1:], strict=False):
        assert_above(anchors, better, worse)


@pytest.mark.slow  # shares the whole-dataset runs of the anchors
def test_the_curator_beats_store_all_and_paste_all_by_the_margin(anchors: dict[str, Result]) -> None:
    # Issue 28: curator on hermes-plus − store-all-and-paste-all ≥ 0.15 in every capability (the
    # mean difference over the same episodes), and beyond the paired CI.
    for capability, (diff, (low, _)) in mech_difference(
        anchors["curator+hermes-plus"], anchors["paste_all"]
    ).items():
        assert low > 0, (capability, diff, low)
        assert diff >= 0.15, f"{capability}: curator+hermes-plus − paste-all = {diff:+.3f}"


@pytest.mark.slow  # shares the whole-dataset runs of the anchors
def test_the_silent_hoarder_gets_no_reuse_credit(anchors: dict[str, Result]) -> None:
    records = [r for r in anchors["hoarder"].records if r.mech is not None]
    assert records and all(r.mech.ra == 0.0 and r.mech.uc == 0.0 and r.mech.rh == 0.0 for r in records)
    assert max(r.mech.mech for r in records) <= 0.4  # wp and a clean store are all it gets


def test_the_adversaries_plug_in_as_a_users_agent(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = Path(__file__).resolve().parents[2]
    monkeypatch.setenv("PYTHONPATH", str(repo))
    family = pytester.path / "families" / "memory" / "tiny_prefs.yaml"
    family.parent.mkdir(parents=True)
    family.write_text(GOOD_MEMORY)
    for factory, run_id in (("make_never_writes", "never"), ("make_hoarder", "hoard")):
        result = pytester.runpytest_subprocess(
            "families",
            "-q",
            f"--pastbench-agent=tests.adversarial.hoarder:{factory}",
            f"--pastbench-run-id={run_id}",
        )
        assert result.ret == 0, result.stdout.str()[-2000:]
    summaries = {
        run_id: json.loads((pytester.path / "reports" / run_id / "sequence_summary.json").read_text())
        for run_id in ("never", "hoard")
    }
    assert summaries["never"]["configs"][0]["overall"]["mech"] == 0.0
    hoarded = summaries["hoard"]["configs"][0]["overall"]["mech_components"]
    assert 0.0 < hoarded["wp"] < 1.0 and hoarded["ra"] == 0.0
