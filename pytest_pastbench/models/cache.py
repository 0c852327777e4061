"""The model-response cache: one SQLite file, written by one process (the gateway or the run).

Keyed by (model, messages, tools, params, trial), so a rerun of the same run makes no model call
(``rw``), and ``replay`` turns any miss into an error: a free, deterministic CI rerun that can
never silently call a paid provider.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from typing import Any

from ..errors import CacheMiss

CACHE_MODES = ("off", "rw", "replay")
CACHE_FILE = "responses.sqlite"


def request_key(
    model: str, messages: list[dict[str, Any]], tools: Any, params: dict[str, Any], trial: int
) -> str:
    canonical = json.dumps(
        {"model": model, "messages": messages, "tools": tools, "params": params, "trial": trial},
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def _read_only_uri(path: Path) -> str:
    return f"{path.resolve().as_uri()}?mode=ro"


def replay_problem(path: Path) -> str | None:
    """Why ``replay`` from ``path`` cannot answer a single request (no file, no responses), or None."""
    if not path.is_file():
        return f"no cache at {path}; fill it first with --pastbench-cache=rw"
    try:
        with closing(sqlite3.connect(_read_only_uri(path), uri=True)) as db:
            (count,) = db.execute("SELECT count(*) FROM responses").fetchone()
    except sqlite3.Error as exc:
        return f"cannot read the cache {path}: {exc}"
    return None if count else f"the cache {path} holds no responses; fill it first with --pastbench-cache=rw"


class ResponseCache:
    def __init__(self, path: Path, mode: str) -> None:
        if mode not in CACHE_MODES:
            raise ValueError(f"cache mode {mode!r}: choose one of {', '.join(CACHE_MODES)}")
        self.mode = mode
        self.path = Path(path)
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if mode == "replay" and self.path.is_file():
            # Read-only: replay never writes, and a cache that is not there stays not there
            # (every request is then a miss) instead of becoming an empty file.
            self._db = sqlite3.connect(_read_only_uri(self.path), uri=True, check_same_thread=False)
        elif mode == "rw":
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # One connection shared by the gateway's threads, serialised by the lock.
            self._db = sqlite3.connect(self.path, check_same_thread=False)
            self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, reply TEXT)")
            self._db.commit()

    def get(self, key: str) -> dict[str, Any] | None:
        if self.mode == "off":
            return None
        row = None
        if self._db is not None:
            with self._lock:
                row = self._db.execute("SELECT reply FROM responses WHERE key = ?", (key,)).fetchone()
        if row is not None:
            self.hits += 1
            return json.loads(row[0])
        self.misses += 1
        if self.mode == "replay":
            raise CacheMiss(f"no cached response for request {key[:12]} in replay mode ({self.path})")
        return None

    def put(self, key: str, reply: dict[str, Any]) -> None:
        if self._db is None or self.mode != "rw":
            return
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, reply) VALUES (?, ?)", (key, json.dumps(reply))
            )
            self._db.commit()

    def close(self) -> None:
        if self._db is not None:
            with self._lock:
                self._db.close()
            self._db = None
