"""PAST's protocol object: it names a family by its qualified id and file hash, collects one item
per episode × arm through ``collect.py``, words an item's status by its arm, and its offline
policy answers whatever no other protocol's does."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pytest_pastbench.plugin.options import RunOptions
from pytest_pastbench.protocols.base import BenchProtocol
from pytest_pastbench.protocols.past import collect as past_collect
from pytest_pastbench.protocols.past.protocol import PROTOCOL
from tests.family_samples import GOOD_MEMORY
from tests.protocols.stand_ins import Made, StandInFile


@pytest.fixture
def family_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny_prefs.yaml"
    path.write_text(GOOD_MEMORY)
    return path


def test_it_is_a_bench_protocol_with_the_past_format_tag() -> None:
    assert isinstance(PROTOCOL, BenchProtocol)
    assert (PROTOCOL.name, PROTOCOL.format_tag) == ("past", "pastbench/v1")
    assert {"memory", "on", "off"} <= set(PROTOCOL.markers)


def test_a_family_is_named_by_its_qualified_id_and_the_hash_of_its_bytes(family_file: Path) -> None:
    digest = hashlib.sha256(family_file.read_bytes()).hexdigest()
    assert PROTOCOL.family_identity(family_file) == ("memory.tiny_prefs", digest)
    assert PROTOCOL.describe(family_file) == "memory.tiny_prefs, 2 episodes"


def test_collect_names_the_family_and_yields_an_item_per_episode_and_arm(
    family_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(past_collect, "EpisodeItem", Made)
    parent = StandInFile(family_file, RunOptions())
    made = list(PROTOCOL.collect(parent))  # type: ignore[arg-type]
    assert parent.family_id == "memory.tiny_prefs"
    assert parent.file_hash == PROTOCOL.family_identity(family_file)[1]
    assert [m["name"] for m in made] == ["ep01[on-t0]", "ep01[off-t0]", "ep02[on-t0]", "ep02[off-t0]"]


@pytest.mark.parametrize(
    ("arm", "status"),
    [
        ("on", ("scored", "o", "SCORED 0.75")),
        ("off", ("control", "c", "CONTROL 0.75")),
        ("ablated", ("ablated", "a", "ABLATED 0.75")),
    ],
)
def test_an_items_status_says_its_arm_and_score(arm: str, status: tuple[str, str, str]) -> None:
    category, letter, (word, _) = PROTOCOL.test_status({"arm": arm, "score": 0.75}, verbosity=0)
    assert (category, letter, word) == status


def test_a_record_that_is_no_item_record_is_refused() -> None:
    with pytest.raises(ValueError):
        PROTOCOL.load_record({"nodeid": "x"})


def test_its_offline_policy_is_the_catch_all() -> None:
    policy = PROTOCOL.offline_policy()
    assert policy.catch_all and policy.handles([{"role": "user", "content": "hi"}], [])
