"""The persistent store of one item: memory notes and skills in a directory, with an access log.

Each entry is one JSON file (``memory/<id>.json``, ``skills/<name>.json``) so a user can open an
item's store and read it; the in-memory index mirrors the files so search stays O(entries).
Every operation is appended to the access log, which is the evidence Mech (ra, uc) is read from.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path
from typing import Any

from .records import StoreAccess, StoreEntry
from .text import content_words

SEARCH_LIMIT = 5
MAX_ENTRY_CHARS = 20_000
_SKILL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,79}$")


class StoreError(ValueError):
    """A store operation the agent asked for cannot be done; reported to it as a tool error."""


class Store:
    """Directory-backed memory and skills of one item."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        (self.root / "memory").mkdir(parents=True, exist_ok=True)
        (self.root / "skills").mkdir(parents=True, exist_ok=True)
        self._entries: dict[str, StoreEntry] = {}
        self._tokens: dict[str, frozenset[str]] = {}
        self.access_log: list[StoreAccess] = []
        self.session = 0
        self._next_id = 1
        self._load()

    # -- lifecycle -----------------------------------------------------------------------------

    def _load(self) -> None:
        for path in sorted(self.root.glob("*/*.json")):
            entry = StoreEntry.model_validate_json(path.read_text())
            self._index(entry)
            if entry.kind == "memory" and entry.id[1:].isdigit():
                self._next_id = max(self._next_id, int(entry.id[1:]) + 1)

    def clear(self) -> None:
        """Forget everything (the off arm's 'writes discarded at session end')."""
        for sub in ("memory", "skills"):
            shutil.rmtree(self.root / sub, ignore_errors=True)
            (self.root / sub).mkdir(parents=True)
        self._entries.clear()
        self._tokens.clear()
        self._next_id = 1

    def snapshot(self) -> list[StoreEntry]:
        """Every entry, dead ones included (the snapshot is evidence, not a view)."""
        return [e.model_copy(deep=True) for e in sorted(self._entries.values(), key=_entry_order)]

    def entries(self, include_dead: bool = False) -> list[StoreEntry]:
        return [e for e in self.snapshot() if include_dead or not e.deleted]

    # -- operations (each is logged) -------------------------------------------------------------

    def write_memory(self, text: str, tags: list[str] | None = None, **meta: Any) -> StoreEntry:
        text = _checked_text(text)
        entry = StoreEntry(
            id=f"m{self._next_id:04d}",
            kind="memory",
            text=text,
            tags=_checked_tags(tags),
            created_session=self.session,
            updated_session=self.session,
            **_checked_meta(meta),
        )
        self._next_id += 1
        self._save(entry)
        self._log("write", entry_ids=[entry.id])
        return entry

    def update_memory(self, entry_id: str, text: str | None = None, **meta: Any) -> StoreEntry:
        entry = self._get(entry_id, kind="memory")
        changes: dict[str, Any] = {"updated_session": self.session, **_checked_meta(meta)}
        if text is not None:
            changes["text"] = _checked_text(text)
        entry = entry.model_copy(update=changes)
        self._save(entry)
        self._log("update", entry_ids=[entry.id])
        return entry

    def delete(self, entry_id: str) -> None:
        entry = self._get(entry_id)
        self._save(entry.model_copy(update={"deleted": True, "updated_session": self.session}))
        self._log("delete", entry_ids=[entry_id])

    def read(self, entry_id: str) -> StoreEntry:
        try:
            entry = self._get(entry_id)
        except StoreError:
            self._log("read", query=entry_id, ok=False)
            raise
        self._log("read", query=entry_id, entry_ids=[entry.id], returned=[entry])
        return entry

    def write_skill(self, name: str, steps: list[str], tags: list[str] | None = None) -> StoreEntry:
        if not isinstance(name, str) or not _SKILL_NAME.match(name):
            raise StoreError("skill name must be 1-80 letters, digits, spaces, '.', '_' or '-'")
        if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
            raise StoreError("steps must be a non-empty list of strings")
        skill_id = "skill:" + name.strip().lower().replace(" ", "_")
        text = _checked_text(name.strip() + ":\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)))
        previous = self._entries.get(skill_id)
        entry = StoreEntry(
            id=skill_id,
            kind="skill",
            name=name.strip(),
            text=text,
            tags=_checked_tags(tags),
            created_session=previous.created_session if previous else self.session,
            updated_session=self.session,
        )
        self._save(entry)
        self._log("update" if previous and not previous.deleted else "write", entry_ids=[entry.id])
        return entry

    def read_skill(self, name: str) -> StoreEntry:
        return self.read("skill:" + str(name).strip().lower().replace(" ", "_"))

    def search(self, query: str, kind: str = "memory", limit: int = SEARCH_LIMIT) -> list[StoreEntry]:
        """Rank non-deleted entries of a kind by idf-weighted word overlap with the query."""
        terms = set(content_words(query or ""))
        pool = [e for e in self._entries.values() if e.kind == kind and not e.deleted]
        if not terms or not pool:
            self._log("search", query=query)
            return []
        frequency = {t: sum(1 for e in pool if t in self._tokens[e.id]) for t in terms}
        scored = []
        for entry in pool:
            overlap = terms & self._tokens[entry.id]
            if overlap:
                score = sum(math.log(1 + len(pool) / frequency[t]) for t in overlap)
                scored.append((-score, _entry_order(entry), entry))
        hits = [entry for _, _, entry in sorted(scored)[:limit]]
        self._log("search", query=query, entry_ids=[e.id for e in hits], returned=hits)
        return hits

    # -- internals --------------------------------------------------------------------------------

    def _get(self, entry_id: str, kind: str | None = None) -> StoreEntry:
        entry = self._entries.get(str(entry_id))
        if entry is None or entry.deleted or (kind and entry.kind != kind):
            raise StoreError(f"no {kind or 'store'} entry with id {entry_id!r}")
        return entry

    def _index(self, entry: StoreEntry) -> None:
        self._entries[entry.id] = entry
        self._tokens[entry.id] = frozenset(content_words(entry.text + " " + " ".join(entry.tags)))

    def _save(self, entry: StoreEntry) -> None:
        folder = "skills" if entry.kind == "skill" else "memory"
        path = self.root / folder / (entry.id.replace(":", "_") + ".json")
        # Write-then-rename: a crash never leaves a half-written entry behind.
        tmp = path.with_suffix(".tmp")
        tmp.write_text(entry.model_dump_json(indent=1))
        os.replace(tmp, path)
        self._index(entry)

    def _log(
        self,
        op: str,
        *,
        query: str = "",
        entry_ids: list[str] | None = None,
        returned: list[StoreEntry] | None = None,
        ok: bool = True,
    ) -> None:
        self.access_log.append(
            StoreAccess(
                op=op,  # type: ignore[arg-type]
                session=self.session,
                query=str(query),
                entry_ids=entry_ids or [],
                returned_texts=[e.text for e in returned or []],
                ok=ok,
            )
        )

    def log_json(self) -> list[dict[str, Any]]:
        return [json.loads(a.model_dump_json()) for a in self.access_log]


def _entry_order(entry: StoreEntry) -> tuple[int, str]:
    return (0 if entry.kind == "memory" else 1, entry.id)


def _checked_text(text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise StoreError("text must be a non-empty string")
    if len(text) > MAX_ENTRY_CHARS:
        raise StoreError(f"text is {len(text)} characters; the limit is {MAX_ENTRY_CHARS}")
    return text.strip()


def _checked_tags(tags: Any) -> list[str]:
    if tags is None:
        return []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise StoreError("tags must be a list of strings")
    return sorted({t.strip() for t in tags if t.strip()})


def _checked_meta(meta: dict[str, Any]) -> dict[str, Any]:
    allowed = {"entity", "scope", "expires", "superseded_by"}
    unknown = set(meta) - allowed
    if unknown:
        raise StoreError(f"unknown fields: {', '.join(sorted(unknown))}")
    for key, value in meta.items():
        if value is not None and not isinstance(value, str):
            raise StoreError(f"{key} must be a string")
    return {k: v for k, v in meta.items() if v is not None}
