"""Family validation (errors name the field path), policy rules and the built-in set."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pytest_pastbench.errors import FamilyFileError
from pytest_pastbench.protocols.intervention.collect import load_intervention_family
from pytest_pastbench.protocols.intervention.graph import DependencyGraph
from pytest_pastbench.protocols.intervention.schema import PolicyRule
from pytest_pastbench.resources import families_dir
from tests.docs_text import fenced_blocks
from tests.protocols.intervention.samples import TINY


def write(tmp_path: Path, data: dict, name: str = "tiny") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["profiles"]["light"].update(regression=["nope"]),
            "profiles.light.regression: no query with id 'nope'",
        ),
        (
            lambda d: d["events"][0].update(targets=["ghost"]),
            "events.method.targets: no query with id 'ghost'",
        ),
        (
            lambda d: d["queries"][0].update(depends_on=["tool:nope"]),
            "query:corr_a: depends_on names unknown node(s) ['tool:nope']",
        ),
        (lambda d: d["events"][0].update(kind="surprise"), "events.0.kind"),
        (lambda d: d["events"][0].update(version="3"), "events.0.version"),
        (lambda d: d["queries"][0].update(checks=[{"type": "tool_ok"}]), "queries.0.checks.0.tool_ok.tool"),
        (lambda d: d.update(profiles={"light": d["profiles"]["light"]}), "profiles"),
        (lambda d: d["queries"].append(dict(d["queries"][0])), "query ids must be unique"),
    ],
)
def test_a_bad_family_names_the_field(tmp_path: Path, change, message: str) -> None:  # noqa: ANN001
    data = yaml.safe_load(TINY)
    change(data)
    with pytest.raises(FamilyFileError) as error:
        load_intervention_family(write(tmp_path, data))
    assert str(tmp_path / "tiny.yaml") in str(error.value) and message in str(error.value)


def test_the_id_must_be_the_file_name(tmp_path: Path) -> None:
    with pytest.raises(FamilyFileError, match="must equal the file name 'other'"):
        load_intervention_family(write(tmp_path, yaml.safe_load(TINY), name="other"))


@pytest.mark.parametrize(
    ("rule", "arguments", "broken"),
    [
        ({"param": "retention_days", "max": 365}, {"retention_days": 400}, True),
        ({"param": "retention_days", "max": 365}, {"retention_days": 365}, False),
        ({"param": "retention_days", "max": 365}, {}, False),
        ({"param": "policy", "equals": "strict"}, {}, True),
        ({"param": "policy", "equals": "strict"}, {"policy": "standard"}, True),
        (
            {"param": "approver", "required": True, "when": {"param": "amount", "gt": 100}},
            {"amount": 90},
            False,
        ),
        (
            {"param": "approver", "required": True, "when": {"param": "amount", "gt": 100}},
            {"amount": 900},
            True,
        ),
        (
            {"param": "redact", "equals": True, "when": {"param": "audience", "equals": "external"}},
            {"audience": "team"},
            False,
        ),
        (
            {"param": "redact", "equals": True, "when": {"param": "audience", "equals": "external"}},
            {"audience": "external", "redact": False},
            True,
        ),
    ],
)
def test_policy_rules(rule: dict, arguments: dict, broken: bool) -> None:
    assert PolicyRule.model_validate(rule).broken_by(arguments) is broken


def test_the_builtin_set_has_three_domains_each_with_a_schema_and_a_policy_event_over_three_profiles() -> (
    None
):
    families = [
        load_intervention_family(p) for p in sorted((families_dir() / "interventions").glob("*.yaml"))
    ]
    assert len({f.domain for f in families}) >= 3
    assert any(f.domain.startswith("analytics") for f in families)
    assert any(f.domain.startswith("finance") for f in families)
    for family in families:
        kinds = {e.kind for e in family.events}
        assert {"schema_change", "policy_change"} <= kinds, family.id
        assert {"light", "middle", "power"} <= set(family.profiles), family.id
        assert not any(
            DependencyGraph.of(family).edges[f"memory:{m.id}"] for m in family.profiles["light"].memories
        )
        assert family.profiles["power"].skills and all(e.fallbacks for e in family.events)


def test_the_docs_example_validates(tmp_path: Path) -> None:
    [example] = [b for b in fenced_blocks("yaml") if "pastbench/intervention-v1" in b]
    family = load_intervention_family(write(tmp_path, yaml.safe_load(example), name="stats_mini"))
    assert family.profiles["power"].skills and family.events[0].targets == ["corr_a", "corr_b"]


def test_pastbench_validate_reads_intervention_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_pastbench.cli import main

    assert main(["validate", str(families_dir() / "interventions" / "analytics.yaml")]) == 0
    assert "(intervention.analytics, 2 events × 3 profiles)" in capsys.readouterr().out
    data = yaml.safe_load(TINY)
    data["events"][0]["targets"] = ["ghost"]
    write(tmp_path, data)
    assert main(["validate", str(tmp_path)]) == 1
    assert "FAIL" in capsys.readouterr().out
