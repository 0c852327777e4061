"""--pastbench-shard=K/N: a deterministic, balanced partition by whole episodes."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from types import SimpleNamespace

import pytest

from pytest_pastbench.errors import ShardSpecError
from pytest_pastbench.plugin.shard import episode_key, parse_shard, select_shard
from tests.family_samples import GOOD_MEMORY, GOOD_UPDATE, builtin_sample


def fake_items(families: int = 5, episodes: int = 7) -> list[SimpleNamespace]:
    items = []
    for f in range(families):
        for e in range(episodes):
            for model in ("m1", "m2"):
                for trial in (0, 1):
                    for arm in ("on", "off"):
                        name = f"ep{e:02d}[{arm}-t{trial}-{model}]"
                        items.append(
                            SimpleNamespace(
                                nodeid=f"families/cap/fam{f}.yaml::{name}",
                                name=name,
                                episode=SimpleNamespace(id=f"ep{e:02d}"),
                                is_pastbench_item=True,
                            )
                        )
    return items


def test_shards_partition_the_items_and_keep_episodes_whole() -> None:
    items = fake_items()
    plain = SimpleNamespace(nodeid="tests/test_x.py::test_plain", name="test_plain")
    shards = [select_shard([*items, plain], k, 4) for k in (1, 2, 3, 4)]
    kept_ids = [[i.nodeid for i in kept if i is not plain] for kept, _ in shards]
    # A user's own test is never sharded away.
    assert all(plain in kept for kept, _ in shards)
    # No overlap, none missing, and each shard deselects exactly what the others keep.
    flat = [nodeid for ids in kept_ids for nodeid in ids]
    assert sorted(flat) == sorted(i.nodeid for i in items)
    for (kept, deselected), ids in zip(shards, kept_ids, strict=True):
        assert len(kept) + len(deselected) == len(items) + 1
        assert not set(ids) & {i.nodeid for i in deselected}
    # Every item of an episode (arms, trials, models) is in one shard.
    shard_of: dict[str, set[int]] = defaultdict(set)
    for index, ids in enumerate(kept_ids):
        for item in items:
            if item.nodeid in ids:
                shard_of[episode_key(item)].add(index)
    assert len(shard_of) == 35 and all(len(s) == 1 for s in shard_of.values())
    # Balanced: episode counts per shard differ by at most one.
    sizes = [len({episode_key(i) for i in items if i.nodeid in ids}) for ids in kept_ids]
    assert max(sizes) - min(sizes) <= 1


def test_assignment_does_not_depend_on_item_order() -> None:
    items = fake_items()
    shuffled = items[:]
    random.Random(7).shuffle(shuffled)
    for k in (1, 2, 3):
        first = {i.nodeid for i in select_shard(items, k, 3)[0]}
        again = {i.nodeid for i in select_shard(shuffled, k, 3)[0]}
        assert first == again
        # The kept items stay in their collection order.
        assert [i.nodeid for i in select_shard(shuffled, k, 3)[0]] == [
            i.nodeid for i in shuffled if i.nodeid in first
        ]


def test_one_shard_keeps_everything() -> None:
    items = fake_items(2, 2)
    assert select_shard(items, 1, 1) == (items, [])


@pytest.mark.parametrize("value", ["0/3", "4/3", "1/0", "3", "a/b", "", "1/2/3"])
def test_parse_shard_rejects_what_is_not_k_of_n(value: str) -> None:
    with pytest.raises(ShardSpecError, match="K/N with 1 <= K <= N"):
        parse_shard(value)


def test_parse_shard() -> None:
    assert parse_shard("2/4") == (2, 4) and parse_shard(" 1/1 ") == (1, 1)


def collected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.stdout.lines if "::" in line]


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_builtin_shards_partition_all_models_trials_and_arms(pytester: pytest.Pytester) -> None:
    common = [
        *builtin_sample(),
        "--pastbench-model=pastbench/blind",
        "--pastbench-model=pastbench/curator",
        "--pastbench-trials=2",
        "--collect-only",
        "-q",
        "-m",
        "not intervention",  # the PAST episodes of the built-in set
    ]
    everything = collected(pytester.runpytest_subprocess(*common))
    assert len(everything) == 32 * 2 * 2 * 2
    shards = [
        collected(pytester.runpytest_subprocess(*common, f"--pastbench-shard={k}/3")) for k in (1, 2, 3)
    ]
    assert sorted(sum(shards, [])) == sorted(everything)
    assert sorted(len(s) for s in shards) == [80, 88, 88]  # 10 or 11 episodes × 8 items
    owner: dict[str, set[int]] = defaultdict(set)
    for index, ids in enumerate(shards):
        for nodeid in ids:
            owner[nodeid.split("[")[0]].add(index)
    assert len(owner) == 32 and all(len(s) == 1 for s in owner.values())


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_a_shard_under_xdist_runs_just_its_episodes(pytester: pytest.Pytester) -> None:
    for name, text in {"tiny_prefs": GOOD_MEMORY, "tiny_corrections": GOOD_UPDATE}.items():
        capability = "update" if "corrections" in name else "memory"
        path = pytester.path / "families" / capability / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    expected = collected(
        pytester.runpytest_subprocess("families", "--collect-only", "-q", "--pastbench-shard=2/2")
    )
    assert len(expected) == 2  # one of three episodes, both arms
    # Every worker must deselect the same items, or xdist refuses the run.
    result = pytester.runpytest_subprocess(
        "families", "-n", "2", "--pastbench-shard=2/2", "--pastbench-run-id=s2"
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    # (xdist's controller does not count deselections in its summary line)
    assert {k: v for k, v in result.parseoutcomes().items() if k != "seconds"} == {"scored": 1, "control": 1}
    records = json.loads((pytester.path / "reports/s2/sequence_results.json").read_text())["records"]
    assert sorted(r["nodeid"] for r in records) == sorted(expected)


@pytest.mark.parametrize("value", ["4/3", "0/2", "two/3"])
def test_a_bad_shard_is_a_usage_error_with_a_fix(pytester: pytest.Pytester, value: str) -> None:
    result = pytester.runpytest_subprocess(f"--pastbench-shard={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if "pastbench-shard" in line]
    assert errors == [
        f"ERROR: --pastbench-shard={value!r}: write K/N with 1 <= K <= N, "
        "e.g. 1/4 for the first of four shards"
    ]
