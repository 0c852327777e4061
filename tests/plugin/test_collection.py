"""Collection details: the work estimate of an item and the longest-first order (every process)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.plugin.collection import longest_first
from tests.docs_text import docs_text


class _Item:
    def __init__(self, name: str, work: int | None) -> None:
        self.name = name
        if work is not None:
            self.work_estimate = lambda: work

    def __repr__(self) -> str:
        return self.name


def test_longest_first_puts_unknown_lengths_first_then_longest_with_ties_in_collection_order() -> None:
    items: list[Any] = [_Item("a", 2), _Item("b", 5), _Item("own-test", None), _Item("c", 2), _Item("d", 9)]
    assert [i.name for i in longest_first(items)] == ["own-test", "d", "b", "a", "c"]
    assert longest_first([]) == []


def test_an_item_s_work_is_its_user_turns_and_the_control_arm_runs_only_the_eval_sessions(
    pytester: pytest.Pytester,
) -> None:
    # SM03_fact_correction ep01: learn (2 turns), learn (1), distractor (1), eval_near (1), eval_far (1),
    # and the 4.0 eval_far with its present record (1).
    selection = ["-k", "fact_correction and ep01", "--collect-only", "-p", "no:cacheprovider"]
    reprec = pytester.inline_run("--pastbench-families=builtin", *selection)
    items = reprec.getcalls("pytest_collection_finish")[0].session.items
    work = {item.name: item.work_estimate() for item in items}
    assert work == {"ep01[off-t0]": 3, "ep01[on-t0]": 7}


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_xdist_workers_run_the_longest_items_first(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "import json, os\n"
        "def pytest_collection_finish(session):\n"
        "    worker = getattr(session.config, 'workerinput', {}).get('workerid')\n"
        "    if worker:\n"
        "        with open(f'order-{worker}.json', 'w') as handle:\n"
        "            json.dump([i.name for i in session.items], handle)\n"
    )
    selection = "fact_correction and (ep01 or ep02)"
    result = pytester.runpytest_subprocess(
        "--pastbench-families=builtin", "-k", selection, "--pastbench-model=pastbench/blind", "-n", "2"
    )
    assert result.ret == 0
    orders = [json.loads((pytester.path / f"order-gw{i}.json").read_text()) for i in (0, 1)]
    assert orders[0] == orders[1]  # xdist requires the same order on every worker
    assert [name.split("[")[1] for name in orders[0]] == ["on-t0]", "on-t0]", "off-t0]", "off-t0]"]


def test_one_process_with_sessions_in_flight_runs_the_longest_items_first_too(
    pytester: pytest.Pytester,
) -> None:
    # K items overlap at -n 0 as well: the run ends with its last long item (measured at K=64,
    # 1 s per call: items span 81.6 s longest first, 95.4 s in collection order).
    selection = ["-k", "fact_correction and (ep01 or ep02)", "--pastbench-model=pastbench/blind", "-v"]
    # A process of its own: after another in-process run in this worker, pytester's restored
    # sys.modules leaves the plugin's registry holding the PAST classes of the first run.
    result = pytester.runpytest_subprocess(
        "--pastbench-families=builtin", *selection, "-p", "no:cacheprovider"
    )
    assert result.ret == 0
    ran = [line.split("::")[1].split(" ")[0] for line in result.outlines if "::ep0" in line]
    assert ran == ["ep01[on-t0]", "ep02[on-t0]", "ep01[off-t0]", "ep02[off-t0]"]


def test_packaged_families_have_ids_from_the_families_root(pytester: pytest.Pytester) -> None:
    """An installed wheel's families: ids ``pastbench/<capability>/<file>::…``, not the path into
    site-packages; ``-k``, ``--deselect`` and JUnit classnames use them."""
    import xml.etree.ElementTree as ET

    source = Path(__file__).resolve().parents[2] / "families" / "update" / "SM04_rule_migration.yaml"
    package = pytester.path / ".venv/lib/python3.11/site-packages/pytest_pastbench"
    (package / "_data/families/update").mkdir(parents=True)
    (package / "_data/families/update/SM04_rule_migration.yaml").write_text(source.read_text())
    # The plugin as a wheel installs it: its data inside the package, in the project's .venv.
    pytester.makeconftest(
        "from pathlib import Path\n"
        "import pytest_pastbench.resources as resources\n"
        f"resources._PACKAGE = Path({str(package)!r})\n"
    )
    listed = pytester.runpytest_subprocess("--pastbench-families=builtin", "--collect-only", "-q")
    ids = [line for line in listed.stdout.lines if "::" in line]
    assert ids[:2] == [
        "pastbench/update/SM04_rule_migration.yaml::ep01[on-t0]",
        "pastbench/update/SM04_rule_migration.yaml::ep01[off-t0]",
    ]
    result = pytester.runpytest_subprocess(
        "--pastbench-families=builtin",
        "-k",
        "rule_migration and (ep01 or ep02)",
        "--deselect",
        "pastbench/update/SM04_rule_migration.yaml::ep02[off-t0]",
        "--junitxml=out.xml",
        "-q",
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    outcomes = result.parseoutcomes()
    assert (outcomes["scored"], outcomes["control"], outcomes["deselected"]) == (2, 1, len(ids) - 3)
    suite = ET.parse(pytester.path / "out.xml").getroot().find("testsuite")
    assert suite is not None
    classnames = sorted({case.get("classname") for case in suite.iter("testcase")})
    assert classnames == ["pastbench.summary", "pastbench.update.SM04_rule_migration.yaml"]
    # Three items and one summary test case for the one family.
    assert suite.get("tests") == "4"
    assert "site-packages" not in (pytester.path / "out.xml").read_text()


FAILING_ON = "families/update/tiny_corrections.yaml::ep01[on-t0]"
ITS_CONTROL = "families/update/tiny_corrections.yaml::ep01[off-t0]"


def _collected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.stdout.lines if "::" in line]


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_lf_and_ff_rerun_the_failed_items_with_their_control_arms(pytester: pytest.Pytester) -> None:
    """The README's promise: with a threshold, ``--lf`` reruns the failed episodes (on item and its
    control item, so the rerun has a Δ) and nothing else, under ``-n`` too; ``--ff`` runs them first."""
    from tests.family_samples import GOOD_MEMORY, GOOD_UPDATE

    for path, text in (
        ("memory/tiny_prefs.yaml", GOOD_MEMORY),
        ("update/tiny_corrections.yaml", GOOD_UPDATE),
    ):
        (pytester.path / "families" / path).parent.mkdir(parents=True)
        (pytester.path / "families" / path).write_text(text)
    threshold = "--pastbench-pass-threshold=0.9"  # the recall model keeps the stale fact: 0.6 there
    first = pytester.runpytest_subprocess("families", threshold)
    first.assert_outcomes(failed=1)
    lastfailed = pytester.path / ".pytest_cache/v/cache/lastfailed"
    assert list(json.loads(lastfailed.read_text())) == [FAILING_ON]

    selected = pytester.runpytest_subprocess("families", "--lf", "--co", "-q")
    assert _collected(selected) == [FAILING_ON, ITS_CONTROL]
    pytester.runpytest_subprocess("families", "--lf", "--co").stdout.fnmatch_lines(
        ["run-last-failure: rerun previous 2 failures*"]
    )
    rerun = pytester.runpytest_subprocess("families", "--lf", "-n", "2", threshold, "--pastbench-run-id=lf")
    rerun.assert_outcomes(failed=1)
    header = "pastbench: the failed on items rerun with their episodes' 1 control items"
    assert header in docs_text().replace("\n  ", " ")  # the docs quote what the run prints
    rerun.stdout.fnmatch_lines([f"{header}*"])
    records = json.loads((pytester.path / "reports/lf/sequence_results.json").read_text())["records"]
    assert sorted(r["nodeid"] for r in records) == sorted([FAILING_ON, ITS_CONTROL])
    summary = json.loads((pytester.path / "reports/lf/sequence_summary.json").read_text())
    assert summary["configs"][0]["families"]["update.tiny_corrections"]["delta"] is not None
    # The control item ran alongside; it is not remembered as a failure.
    assert list(json.loads(lastfailed.read_text())) == [FAILING_ON]

    first_failed = pytester.runpytest_subprocess("families", "--ff", "--co", "-q")
    assert _collected(first_failed)[:2] == [FAILING_ON, ITS_CONTROL] and len(_collected(first_failed)) == 6
