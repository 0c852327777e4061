"""m and τ as options: ``--pastbench-intervention-m`` / ``--pastbench-intervention-tau`` and their
ini keys override each family's ``metrics``, bad values stop the run with a fix, the values used
reach the records and the summary, and changing them changes α_L and κ."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.agents.base import HermesAgent
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.plugin.options import validate
from pytest_pastbench.protocols.intervention.collect import load_intervention_family
from pytest_pastbench.protocols.intervention.engine import ItemPlan, run
from pytest_pastbench.protocols.intervention.metrics import summarize
from pytest_pastbench.protocols.intervention.options import OPTIONS
from pytest_pastbench.protocols.intervention.schema import InterventionFamily
from tests.protocols.intervention.samples import TINY, InterventionPolicyClient

SPECS = {spec.name: spec for spec in OPTIONS.specs}


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("intervention-m", "0", "--pastbench-intervention-m=0: must be at least 1"),
        ("intervention-m", "two", "--pastbench-intervention-m='two': expected an integer"),
        ("intervention-tau", "-0.1", "--pastbench-intervention-tau=-0.1: must be at least 0.0"),
        ("intervention-tau", "half", "--pastbench-intervention-tau='half': expected a number"),
        (
            "intervention-tau",
            "1",
            "--pastbench-intervention-tau=1.0: τ must be below 1 (no pass rate is above 1), "
            "e.g. --pastbench-intervention-tau=0.5",
        ),
    ],
)
def test_bad_values_are_one_usage_error_with_a_fix(name: str, value: str, message: str) -> None:
    with pytest.raises(pytest.UsageError) as info:
        validate(SPECS[name], value, None, {})  # type: ignore[arg-type] (no check reads the config)
    assert str(info.value) == message


def test_values_parse_and_default_to_the_familys_own() -> None:
    assert validate(SPECS["intervention-m"], "3", None, {}) == 3  # type: ignore[arg-type]
    assert validate(SPECS["intervention-tau"], "0.25", None, {}) == 0.25  # type: ignore[arg-type]
    assert validate(SPECS["intervention-tau"], "0", None, {}) == 0.0  # type: ignore[arg-type]
    assert validate(SPECS["intervention-m"], None, None, {}) is None  # type: ignore[arg-type]


class FailsOnce(InterventionPolicyClient):
    """The reference policy, except that the first session opened by a user turn containing
    ``needle`` gets a useless answer (a trial where that one session went wrong)."""

    def __init__(self, name: str, needle: str) -> None:
        super().__init__(name)
        self.needle = needle
        self.failed = False

    def complete(self, messages: list[dict[str, Any]], tools: Any, **params: Any) -> ModelReply:
        last = messages[-1]
        if not self.failed and last.get("role") == "user" and self.needle in str(last.get("content")):
            self.failed = True
            return ModelReply(content="I don't know.", tool_calls=[])
        return super().complete(messages, tools, **params)


@pytest.fixture
def tiny(tmp_path: Path) -> InterventionFamily:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return load_intervention_family(path)


def item(tiny: InterventionFamily, client: Any, root: Path, **params: Any) -> dict[str, Any]:
    plan = ItemPlan(tiny, tiny.event("method"), "light", **params)
    record, _ = run(plan, HermesAgent(), client, root)
    return record


def test_m_changes_alpha_l(tiny: InterventionFamily, tmp_path: Path) -> None:
    # z = [1, 0]: the second target's session goes wrong.
    own = item(tiny, FailsOnce("recall", "x=c and y=d"), tmp_path / "own")
    two = item(tiny, FailsOnce("recall", "x=c and y=d"), tmp_path / "two", m=2)
    assert own["alpha"]["z"] == two["alpha"]["z"] == [1, 0]
    assert (own["alpha"]["alpha_l"], own["alpha"]["m"]) == (1, 1)  # the family's m: 1
    assert (two["alpha"]["alpha_l"], two["alpha"]["m"]) == (3, 2)  # never two in a row: T + 1
    assert own["params"] == {"m": 1, "tau": 0.5, "from": {"m": "family", "tau": "family"}}
    assert two["params"]["from"] == {"m": "--pastbench-intervention-m", "tau": "family"}


def pooled_kappa(tiny: InterventionFamily, root: Path, **params: Any) -> dict[str, Any]:
    """Two trials of one config: in one, the pre-event mean_a session goes wrong (pre rate 0.5)."""
    trials = [
        item(tiny, FailsOnce("recall", "series=a?"), root / "t0", **params),
        item(tiny, InterventionPolicyClient("recall"), root / "t1", **params),
    ]
    labelled = [
        {**r, "family": "intervention.tiny", "config_label": "cfg", "agent": "hermes", "model": "m"}
        | {"infra_blocked": False}
        for r in trials
    ]
    section = summarize(labelled, seed=0)
    assert section["params"]["intervention.tiny"]["tau"] == params.get("tau", 0.5)
    return section["configs"][0]["matrix"]["intervention.tiny"]["method"]["profiles"]["light"]["kappa"]


def test_tau_changes_kappa(tiny: InterventionFamily, tmp_path: Path) -> None:
    own = pooled_kappa(tiny, tmp_path / "own")  # τ = 0.5: mean_a's baseline 0.5 is not above it
    low = pooled_kappa(tiny, tmp_path / "low", tau=0.25)
    assert (own["kappa"], own["included"], own["excluded"]) == (1.0, ["note"], ["mean_a"])
    assert (low["kappa"], low["included"], low["excluded"]) == (1.5, ["mean_a", "note"], [])  # (2 + 1) / 2
    assert (own["tau"], low["tau"]) == (0.5, 0.25)


# -- in a run: ini keys, the command line wins, a bad ini value ------------------------------------


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    (pytester.path / "families" / "interventions").mkdir(parents=True)
    (pytester.path / "families" / "interventions" / "tiny.yaml").write_text(TINY)
    pytester.makeini("[pytest]\npastbench_intervention_m = 2\npastbench_intervention_tau = 0.25\n")
    return pytester


def test_ini_keys_set_m_and_tau_and_the_command_line_wins(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "families", "-k", "light", "--pastbench-run-id=r", "--pastbench-intervention-m=3"
    )
    assert result.ret == 0, result.stdout.str()
    summary = json.loads((project.path / "reports" / "r" / "sequence_summary.json").read_text())
    section = summary["protocols"]["intervention"]
    assert section["params"] == {
        "intervention.tiny": {
            "m": 3,
            "tau": 0.25,
            "from": {"m": "--pastbench-intervention-m", "tau": "--pastbench-intervention-tau"},
        }
    }
    light = section["configs"][0]["matrix"]["intervention.tiny"]["method"]["profiles"]["light"]
    assert (light["m"], light["kappa"]["tau"]) == (3, 0.25)
    assert "parameters: tiny m=3 τ=0.25 (options)" in result.stdout.str()


def test_a_bad_ini_value_stops_the_run(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\npastbench_intervention_tau = 1.5\n")
    result = project.runpytest_subprocess("families")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line.startswith("ERROR")] == [
        "ERROR: --pastbench-intervention-tau=1.5: τ must be below 1 (no pass rate is above 1), "
        "e.g. --pastbench-intervention-tau=0.5"
    ]


def test_a_resume_refuses_a_different_m_or_tau() -> None:
    from pytest_pastbench.plugin.options import RunOptions
    from pytest_pastbench.plugin.resume import check_options, run_file
    from pytest_pastbench.protocols.standalone import standalone_registry

    builtin = standalone_registry()

    recorded = run_file(RunOptions(protocol_options={"intervention_tau": 0.25}), "r", "", builtin)
    check_options(
        "r",
        recorded,
        run_file(RunOptions(protocol_options={"intervention_tau": 0.25}), "r", "", builtin),
        builtin,
    )
    with pytest.raises(pytest.UsageError, match=r"--pastbench-intervention-tau \(the run: 0.25, now: None\)"):
        check_options("r", recorded, run_file(RunOptions(), "r", "", builtin), builtin)
    with pytest.raises(pytest.UsageError, match=r"--pastbench-intervention-m \(the run: None, now: 3\)"):
        both = {"intervention_m": 3, "intervention_tau": 0.25}
        check_options("r", recorded, run_file(RunOptions(protocol_options=both), "r", "", builtin), builtin)
