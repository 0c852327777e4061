"""JUnit XML: per-item properties, run properties, and one summary testcase per config × family."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from pytest_pastbench.plugin.junit import family_testcase_properties, item_properties
from pytest_pastbench.protocols.standalone import standalone_registry
from tests.family_samples import GOOD_MEMORY, GOOD_UPDATE

MODELS = ("pastbench/blind", "pastbench/curator")


def make_project(pytester: pytest.Pytester) -> None:
    for name, text in {"tiny_prefs": GOOD_MEMORY, "tiny_corrections": GOOD_UPDATE}.items():
        capability = "update" if "corrections" in name else "memory"
        path = pytester.path / "families" / capability / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def properties(testcase: ET.Element) -> dict[str, str]:
    return {p.get("name"): p.get("value") for p in testcase.iter("property")}  # type: ignore[misc]


def test_item_properties_carry_score_arm_family_sessions_and_mech() -> None:
    record = {
        "family": "memory.x",
        "capability": "memory",
        "episode": "ep01",
        "arm": "on",
        "trial": 0,
        "model": "pastbench/recall",
        "score": 0.5,
        "infra_blocked": False,
        "sessions": [{"stage": "eval_near", "index": 2, "s": 0.5}],
        "mech": {"wp": 1.0, "ra": None, "mech": 0.8},
    }
    props = dict(item_properties(record, standalone_registry()))
    assert props["pastbench.score"] == 0.5 and props["pastbench.arm"] == "on"
    assert props["pastbench.s.eval_near.2"] == 0.5
    assert props["pastbench.mech.wp"] == 1.0 and "pastbench.mech.ra" not in props


def test_family_testcase_properties() -> None:
    entry = {
        "capability": "update",
        "s_on": 0.9,
        "s_off": 0.3,
        "delta": 0.6,
        "delta_ci": [0.4, 0.8],
        "mech": 0.95,
        "n_episodes": 4,
        "infra_blocked": 0,
    }
    assert family_testcase_properties(entry) == [
        ("pastbench.delta", 0.6),
        ("pastbench.delta_ci.low", 0.4),
        ("pastbench.delta_ci.high", 0.8),
        ("pastbench.s_on", 0.9),
        ("pastbench.s_off", 0.3),
        ("pastbench.mech", 0.95),
        ("pastbench.n_episodes", 4),
        ("pastbench.infra_blocked", 0),
        ("pastbench.capability", "update"),
    ]
    no_ci = dict(family_testcase_properties({**entry, "delta_ci": None}))
    assert no_ci["pastbench.delta_ci.low"] is None and no_ci["pastbench.delta_ci.high"] is None


def test_family_testcases_under_xdist(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    models = [f"--pastbench-model={m}" for m in MODELS]
    result = pytester.runpytest_subprocess(
        "families", "-n", "2", *models, "--pastbench-run-id=j", "--junitxml=out.xml"
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    summary = json.loads((pytester.path / "reports/j/sequence_summary.json").read_text())
    suite = ET.parse(pytester.path / "out.xml").getroot().find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    items = [c for c in cases if c.get("classname") != "pastbench.summary"]
    family_cases = {c.get("name"): c for c in cases if c.get("classname") == "pastbench.summary"}
    # 2 models × 3 episodes × 2 arms items, plus 2 configs × 2 families summary testcases.
    assert len(items) == 12
    assert sorted(family_cases) == sorted(
        f"hermes@{model}::{family}"
        for model in MODELS
        for family in ("memory.tiny_prefs", "update.tiny_corrections")
    )
    assert suite.get("tests") == "16" and suite.get("failures") == "0" and suite.get("errors") == "0"
    for config in summary["configs"]:
        for family, entry in config["families"].items():
            case = family_cases[f"{config['label']}::{family}"]
            assert case.find("failure") is None and case.find("error") is None
            props = properties(case)
            assert float(props["pastbench.delta"]) == pytest.approx(entry["delta"])
            for end, value in zip(("low", "high"), entry["delta_ci"] or (None, None), strict=True):
                text = props[f"pastbench.delta_ci.{end}"]  # None: too few paired units for a CI
                assert text == "None" if value is None else float(text) == pytest.approx(value)
            assert float(props["pastbench.s_on"]) == pytest.approx(entry["s_on"])
            assert float(props["pastbench.s_off"]) == pytest.approx(entry["s_off"])
            assert float(props["pastbench.mech"]) == pytest.approx(entry["mech"])
            assert int(props["pastbench.n_episodes"]) == entry["n_episodes"]
    curator = properties(family_cases["hermes@pastbench/curator::memory.tiny_prefs"])
    assert float(curator["pastbench.delta"]) > 0.5
    # Per-item and run properties survive xdist beside them.
    assert all("pastbench.score" in properties(c) for c in items)
    run_props = {p.get("name") for p in suite.find("properties") or []}
    assert "pastbench.hermes@pastbench/curator.overall.delta" in run_props


def test_family_testcases_keep_their_names_under_xunit2_and_a_prefix(pytester: pytest.Pytester) -> None:
    make_project(pytester)
    result = pytester.runpytest_subprocess(
        "families",
        "-o",
        "junit_family=xunit2",
        "--junitprefix=pre",
        "--junitxml=out.xml",
        "-p",
        "no:cacheprovider",
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    suite = ET.parse(pytester.path / "out.xml").getroot().find("testsuite")
    assert suite is not None
    names = sorted(
        c.get("name") for c in suite.findall("testcase") if c.get("classname") == "pastbench.summary"
    )
    assert names == [
        "hermes@pastbench/recall::memory.tiny_prefs",
        "hermes@pastbench/recall::update.tiny_corrections",
    ]
    assert suite.get("tests") == "8"
    # xunit2 keeps only schema attributes: no stray attribute on the summary testcases.
    summary_case = next(c for c in suite.findall("testcase") if c.get("classname") == "pastbench.summary")
    assert set(summary_case.attrib) <= {"classname", "name", "time", "file", "line"}


def test_property_values_are_rounded_as_in_the_summary() -> None:
    record = {
        "family": "update.x",
        "capability": "update",
        "episode": "ep01",
        "arm": "on",
        "trial": 0,
        "model": "pastbench/recall",
        "score": 0.1 + 0.2 + 0.3,  # 0.6000000000000001
        "infra_blocked": False,
        "sessions": [{"stage": "eval_far", "index": 3, "s": 2 / 3}],
        "mech": {"wp": 0.1 * 3, "mech": 0.7},
    }
    props = dict(item_properties(record, standalone_registry()))
    assert props["pastbench.score"] == 0.6 and repr(props["pastbench.score"]) == "0.6"
    assert props["pastbench.s.eval_far.3"] == 0.6667 and props["pastbench.mech.wp"] == 0.3
    family = dict(family_testcase_properties({"delta": 0.1 + 0.2, "delta_ci": [1 / 3, 0.5], "s_on": 0.7}))
    assert family["pastbench.delta"] == 0.3 and family["pastbench.delta_ci.low"] == 0.3333
