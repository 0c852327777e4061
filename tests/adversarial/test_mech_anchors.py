"""The Mech anchors of docs/design.md §4 over the whole built-in dataset (issue 15, item 8).

Each agent runs the on arm of every built-in PAST episode through the same ``run_item`` the
plugin runs, and the overall Mech is the summary's (mean over families of the episode means).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.core.family_files import load_family
from pytest_pastbench.protocols.detect import is_past_family_file
from pytest_pastbench.protocols.past.engine import ItemSpec, run_item
from pytest_pastbench.protocols.past.metrics import build_summary
from pytest_pastbench.resources import families_dir
from tests.adversarial.hoarder import Hoarder, NeverWrites
from tests.family_samples import GOOD_MEMORY


class NoModel:
    """The scripted agents never call a model; one that did would be a bug in the test."""

    name = "none"

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("this agent calls no model")


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
            records.append(run_item(spec, agent, model, root).record)
    return build_summary(records, {"id": "anchors"}, seed=0)["configs"][0]


def test_an_agent_that_never_writes_gets_mech_zero(tmp_path: Path) -> None:
    config = on_arm_summary(NeverWrites(), NoModel(), tmp_path)
    assert config["overall"]["mech"] == 0.0
    assert all(f["mech"] == 0.0 for f in config["families"].values())


@pytest.fixture(scope="module")
def hoarder(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return on_arm_summary(Hoarder(), NoModel(), tmp_path_factory.mktemp("hoarder"))


def test_an_agent_that_stores_everything_gets_no_reuse_credit_and_a_high_pr(hoarder: dict[str, Any]) -> None:
    # It writes every key fact and retrieves them, but never uses one: wp 1, ra 0, rh never
    # applies (near used nothing), and most of what it stores is pollution.
    components = hoarder["overall"]["mech_components"]
    assert components["wp"] >= 0.9 and components["ra"] == 0.0 and components["rh"] is None
    assert components["pr"] >= 0.75
    for capability in ("gathering", "memory"):
        assert hoarder["capabilities"][capability]["mech"] <= 0.4, capability


def test_an_agent_that_stores_everything_and_answers_nothing_useful_gets_mech_at_most_0_4(
    hoarder: dict[str, Any],
) -> None:
    assert hoarder["overall"]["mech"] <= 0.4, hoarder["overall"]


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="not met on the hand-authored v3 data: the lexical offline curator on hermes-plus gets "
    "Mech 0.59 (it keeps most of the chatter it hears, pr 0.70-0.79, and in procedural files tickets "
    "under the first queue name it meets rather than the one it retrieved, ra 0.30); 0.82 on v2",
)
def test_the_offline_curator_with_every_mechanism_gets_mech_at_least_0_8(tmp_path: Path) -> None:
    from pytest_pastbench.agents.base import HermesAgent
    from pytest_pastbench.models.gateway import ModelService, ServiceClient

    agent = HermesAgent(name="hermes-plus", mechanisms=["all"])
    client = ServiceClient(ModelService(), "pastbench/curator")
    config = on_arm_summary(agent, client, tmp_path, "pastbench/curator")
    assert config["overall"]["mech"] >= 0.8, config["overall"]


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
    assert hoarded["wp"] == 1.0 and hoarded["ra"] == 0.0
