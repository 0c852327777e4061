"""``--pastbench-shard=K/N``: run one deterministic slice of the benchmark (e.g. one CI job of N).

The unit of a shard is the episode: every item of one episode (both arms, all trials, all
models) lands in the same shard, so each shard's run holds complete on/off pairs and the shard
runs can be joined with ``pastbench merge`` into the run an unsharded ``pytest`` would write.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from ..errors import ShardSpecError


def parse_shard(value: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``; 1 ≤ K ≤ N."""
    k_text, slash, n_text = str(value).strip().partition("/")
    try:
        k, n = int(k_text), int(n_text)
    except ValueError:
        k = n = 0
    if not slash or n < 1 or not 1 <= k <= n:
        raise ShardSpecError(f"{value!r}: write K/N with 1 <= K <= N, e.g. 1/4 for the first of four shards")
    return k, n


def episode_key(item: Any) -> str:
    """File part of the node id (relative to the rootdir, so the same on every machine and
    worker; absolute paths would differ between CI runners) plus the episode id."""
    file_part = item.nodeid.split("::", 1)[0]
    episode = getattr(getattr(item, "episode", None), "id", None) or item.name.partition("[")[0]
    return f"{file_part}::{episode}"


def select_shard(items: Sequence[Any], k: int, n: int) -> tuple[list[Any], list[Any]]:
    """Split ``items`` into (kept, deselected) for shard ``k`` of ``n`` (1-based).

    Episodes are assigned round-robin over their sorted keys rather than by a hash mod n: with
    the few dozen episodes of a typical run a hash leaves shards unbalanced by several episodes,
    while round-robin keeps every shard within one episode of the others, and sorting
    interleaves the families so each shard gets a similar mix of costs. The result depends only
    on the selected node ids, so every xdist worker (which collects the same list) agrees.
    Items that are not benchmark items (a user's own tests) are kept in every shard.
    """
    if not 1 <= k <= n:
        raise ShardSpecError(f"shard {k}/{n}: need 1 <= K <= N")
    keys = sorted({episode_key(item) for item in items if getattr(item, "is_pastbench_item", False)})
    shard_of = {key: index % n for index, key in enumerate(keys)}
    kept: list[Any] = []
    deselected: list[Any] = []
    for item in items:
        if getattr(item, "is_pastbench_item", False) and shard_of[episode_key(item)] != k - 1:
            deselected.append(item)
        else:
            kept.append(item)
    return kept, deselected


def selection_hash(items: Sequence[Any]) -> str:
    """What the command selected before sharding (its episodes), as a short hash.

    Every shard of one command records the same value, so ``pastbench merge`` can tell the
    shards of one command from runs of other selections (another folder, ``-k``, dataset).
    """
    keys = sorted({episode_key(item) for item in items if getattr(item, "is_pastbench_item", False)})
    return hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16]
