from pathlib import Path

import pytest

from pytest_pastbench.errors import CacheMiss
from pytest_pastbench.models.cache import ResponseCache, replay_problem, request_key

MESSAGES = [{"role": "user", "content": "hi"}]


def test_key_depends_on_every_part_of_the_request() -> None:
    base = request_key("m", MESSAGES, None, {"temperature": 0}, 0)
    assert base == request_key("m", MESSAGES, None, {"temperature": 0}, 0)
    assert base != request_key("m2", MESSAGES, None, {"temperature": 0}, 0)
    assert base != request_key("m", [{"role": "user", "content": "ho"}], None, {"temperature": 0}, 0)
    assert base != request_key("m", MESSAGES, [{"type": "function"}], {"temperature": 0}, 0)
    assert base != request_key("m", MESSAGES, None, {"temperature": 1}, 0)
    assert base != request_key("m", MESSAGES, None, {"temperature": 0}, 1)


def test_rw_stores_and_returns(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite", "rw")
    assert cache.get("k") is None
    cache.put("k", {"content": "x"})
    assert ResponseCache(tmp_path / "c.sqlite", "rw").get("k") == {"content": "x"}
    assert (cache.hits, cache.misses) == (0, 1)


def test_replay_never_writes_and_fails_on_a_miss(tmp_path: Path) -> None:
    ResponseCache(tmp_path / "c.sqlite", "rw").put("known", {"content": "x"})
    replay = ResponseCache(tmp_path / "c.sqlite", "replay")
    assert replay.get("known") == {"content": "x"}
    replay.put("new", {"content": "y"})
    with pytest.raises(CacheMiss, match="replay mode"):
        replay.get("new")


def test_replay_of_a_missing_cache_creates_no_file_and_says_why_at_start(tmp_path: Path) -> None:
    missing = tmp_path / "cache" / "c.sqlite"
    with pytest.raises(CacheMiss, match="replay mode"):
        ResponseCache(missing, "replay").get("k")
    assert not missing.parent.exists()
    assert replay_problem(missing) == f"no cache at {missing}; fill it first with --pastbench-cache=rw"
    ResponseCache(missing, "rw")  # created, still empty
    assert (
        replay_problem(missing)
        == f"the cache {missing} holds no responses; fill it first with --pastbench-cache=rw"
    )
    ResponseCache(missing, "rw").put("k", {"content": "x"})
    assert replay_problem(missing) is None


def test_off_keeps_nothing_and_bad_modes_are_refused(tmp_path: Path) -> None:
    off = ResponseCache(tmp_path / "c.sqlite", "off")
    off.put("k", {"content": "x"})
    assert off.get("k") is None and not (tmp_path / "c.sqlite").exists()
    with pytest.raises(ValueError, match="choose one of off, rw, replay"):
        ResponseCache(tmp_path / "c.sqlite", "sometimes")
