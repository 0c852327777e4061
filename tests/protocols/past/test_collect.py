"""PAST's collection: one item per episode × model × trial × mechanism set × arm, with stable
readable ids in a fixed order, the family's markers registered and its words as keywords."""

from __future__ import annotations

import pytest

from tests.family_samples import GOOD_MEMORY


class Collected:
    """An item as ``--collect-only -q`` lists it."""

    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid
        self.name = nodeid.rpartition("::")[2]


def collected(pytester: pytest.Pytester, *args: str) -> list[Collected]:
    """The items of a project holding one PAST family, collected in a process of their own (a
    second collection in one process is not what a run does)."""
    (pytester.path / "families" / "memory").mkdir(parents=True, exist_ok=True)
    (pytester.path / "families" / "memory" / "tiny_prefs.yaml").write_text(GOOD_MEMORY)
    result = pytester.runpytest_subprocess(
        "families", "--collect-only", "-q", "-p", "no:cacheprovider", *args
    )
    assert result.ret == 0, result.stdout.str()
    return [Collected(line) for line in result.outlines if "::" in line]


def test_ids_are_episode_then_arm_and_trial_in_a_fixed_order(pytester: pytest.Pytester) -> None:
    items = collected(pytester, "--pastbench-trials=2")
    assert [item.name for item in items] == [
        "ep01[on-t0]", "ep01[off-t0]", "ep01[on-t1]", "ep01[off-t1]",
        "ep02[on-t0]", "ep02[off-t0]", "ep02[on-t1]", "ep02[off-t1]",
    ]  # fmt: skip
    assert items[0].nodeid == "families/memory/tiny_prefs.yaml::ep01[on-t0]"


def test_several_models_and_mechanism_sets_join_the_id(pytester: pytest.Pytester) -> None:
    items = collected(
        pytester,
        "--pastbench-persistence=on",
        "--pastbench-model=pastbench/blind",
        "--pastbench-model=pastbench/recall",
        "--pastbench-mechanisms=E1",
        "--pastbench-mechanisms=E1,E5",
        "-k",
        "ep01",
    )
    assert [item.name for item in items] == [
        "ep01[on-t0-pastbench/blind-E1]", "ep01[on-t0-pastbench/blind-E1+E5]",
        "ep01[on-t0-pastbench/recall-E1]", "ep01[on-t0-pastbench/recall-E1+E5]",
    ]  # fmt: skip


def test_markers_and_keywords_select_by_capability_family_arm_and_set(pytester: pytest.Pytester) -> None:
    off = collected(pytester, "--strict-markers", "-m", "memory and tiny_prefs and off")
    assert [item.name for item in off] == ["ep01[off-t0]", "ep02[off-t0]"]
    by_keyword = collected(pytester, "-k", "memory.tiny_prefs and ep02 and on")
    assert [item.name for item in by_keyword] == ["ep02[on-t0]"]
    e5 = collected(pytester, "--pastbench-mechanisms=E5", "--pastbench-mechanisms=E1", "-k", "E5 and ep01")
    assert [item.name for item in e5] == ["ep01[on-t0-E5]", "ep01[off-t0-E5]"]
