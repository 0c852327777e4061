"""The persistent store of one item: memory notes and skills in a directory, with an access log.

Each entry is one JSON file (``memory/<id>.json``, ``skills/<name>.json``) so a user can open an
item's store and read it; the in-memory index mirrors the files so search stays O(entries).
Every operation is appended to the access log, which is the evidence Mech (ra, uc) is read from.

Confinement (docs/design.md §9): ids and skill names come from the agent, so every path the store
derives goes through ``_entry_path``, which accepts one plain file name component, checks that
the resolved path stays inside the root and refuses to write through a symbolic link. Files are
only ever read at load time, and only regular files inside the root (never a FIFO, a device or
a link that points elsewhere). Sizes are capped so a looping agent cannot fill the disk.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from ..errors import StoreError
from .records import StoreAccess, StoreEntry
from .text import idf_overlap_score, matched_words, term_counts, term_groups

SEARCH_LIMIT = 5
MAX_ENTRY_CHARS = 20_000
MAX_SKILL_CHARS = 20_000  # all steps of one skill together
MAX_SKILL_STEPS = 100
MAX_TAGS = 20
MAX_TAG_CHARS = 64
MAX_META_CHARS = 200
MAX_ID_CHARS = 100
MAX_ENTRIES = 5_000
MAX_QUERY_CHARS = 2_000
# An entry file is at most a few entry texts long; anything bigger is not ours and is not read.
MAX_FILE_BYTES = 1_000_000
SUBFOLDERS = ("memory", "skills")
_SKILL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,79}$")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


class Store:
    """Directory-backed memory and skills of one item.

    Search matches ``text.term_groups`` (stemmed content words and compound parts), a query's
    terms weighted by ``text.term_counts``. Class attributes, so benchmarks/search_recall.py
    can compare them with plain words.
    """

    term_groups = staticmethod(term_groups)
    term_counts = staticmethod(term_counts)

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        # Resolved once: the containment check compares every derived path with this.
        self._real_root = self.root.resolve(strict=True)
        for sub in SUBFOLDERS:
            # A planted file or (dangling) link in its place is reported by _load and refused
            # by _entry_path; it must not stop the store from opening.
            with contextlib.suppress(FileExistsError):
                (self.root / sub).mkdir(exist_ok=True)
        self._entries: dict[str, StoreEntry] = {}
        self._tokens: dict[str, frozenset[str]] = {}
        self.access_log: list[StoreAccess] = []
        self.session = 0
        self._next_id = 1
        self.ignored_files: list[tuple[str, str]] = []  # (path, why) of files _load refused to read
        self.hidden_by_last_search: list[str] = []
        self._load()

    # -- lifecycle -----------------------------------------------------------------------------

    def _load(self) -> None:
        for sub in SUBFOLDERS:
            folder = self.root / sub
            if not self._is_own_folder(folder):
                self.ignored_files.append((str(folder), "not a directory inside the store root"))
                continue
            for path in sorted(folder.iterdir()):
                if path.suffix != ".json":
                    continue
                entry, why = self._read_entry_file(path, "skill" if sub == "skills" else "memory")
                if entry is None:
                    self.ignored_files.append((str(path), why))
                    continue
                self._index(entry)
                if entry.kind == "memory" and entry.id[1:].isdigit():
                    self._next_id = max(self._next_id, int(entry.id[1:]) + 1)

    def _read_entry_file(self, path: Path, kind: str) -> tuple[StoreEntry | None, str]:
        """Read one entry file if it is a regular file of ours; else (None, why)."""
        try:
            info = path.lstat()
        except OSError as exc:
            return None, f"cannot stat: {exc.strerror}"
        if stat.S_ISLNK(info.st_mode):
            return None, "symbolic link (never followed)"
        if not stat.S_ISREG(info.st_mode):
            return None, "not a regular file (FIFO, device or socket)"
        try:
            # O_NOFOLLOW | O_NONBLOCK: a file swapped for a link or a FIFO after the lstat above
            # fails or returns at once instead of escaping the root or blocking the run.
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            return None, f"cannot open: {exc.strerror}"
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                return None, "not a regular file (FIFO, device or socket)"
            if info.st_size > MAX_FILE_BYTES:
                return None, f"{info.st_size} bytes; the limit is {MAX_FILE_BYTES}"
            raw = handle.read(MAX_FILE_BYTES + 1)
        try:
            entry = StoreEntry.model_validate_json(raw)
        except ValueError as exc:
            return None, f"not a store entry: {str(exc).splitlines()[0]}"
        if entry.kind != kind or _file_name(entry.id) != path.stem:
            return None, f"entry id {entry.id!r} does not match its file"
        return entry, ""

    def clear(self) -> None:
        """Forget everything (the off arm's 'writes discarded at session end')."""
        for sub in SUBFOLDERS:
            folder = self.root / sub
            if folder.is_symlink() or folder.is_file():
                folder.unlink()  # remove the link itself; never empty the folder it points to
            else:
                shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True, exist_ok=True)
        self._entries.clear()
        self._tokens.clear()
        self._next_id = 1

    def remove(self, entry_ids: list[str]) -> None:
        """Take entries out for good, files included, without logging an access: the harness's
        own edit (the ablated arm), which the agent must not see as a deleted entry."""
        for entry_id in entry_ids:
            entry = self._entries.pop(entry_id)
            self._tokens.pop(entry_id, None)
            self._entry_path(entry).unlink(missing_ok=True)

    def snapshot(self) -> list[StoreEntry]:
        """Every entry, dead ones included (the snapshot is evidence, not a view)."""
        return [e.model_copy(deep=True) for e in sorted(self._entries.values(), key=_entry_order)]

    def entries(self, include_dead: bool = False) -> list[StoreEntry]:
        return [e for e in self.snapshot() if include_dead or not e.deleted]

    # -- operations (each is logged) -------------------------------------------------------------

    def write_memory(self, text: str, tags: list[str] | None = None, **meta: Any) -> StoreEntry:
        text = _checked_text(text)
        self._check_room()
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
        successor = changes.get("superseded_by")
        if successor is not None:
            # A pointer to nothing would hide the entry with no way to find what replaced it.
            if successor == entry_id:
                raise StoreError(f"entry {entry_id!r} cannot supersede itself")
            self._get(successor, kind="memory")
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

    def read(self, entry_id: str, live_at: str | None = None) -> StoreEntry:
        """One entry by id. With ``live_at`` (a clock) a superseded or expired entry is refused,
        with what replaced it: the E2 view, where dead entries never reach the agent."""
        try:
            entry = self._get(entry_id)
            if live_at is not None and not entry.is_live(live_at):
                raise StoreError(f"entry {entry_id!r} is no longer live ({_why_dead(entry)})")
        except StoreError:
            self._log("read", query=_loggable(entry_id), ok=False)
            raise
        self._log("read", query=entry_id, entry_ids=[entry.id], returned=[entry])
        return entry

    def write_skill(self, name: str, steps: list[str], tags: list[str] | None = None) -> StoreEntry:
        skill_id = _skill_id(name)
        if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
            raise StoreError("steps must be a non-empty list of strings")
        if len(steps) > MAX_SKILL_STEPS:
            raise StoreError(f"a skill has {len(steps)} steps; the limit is {MAX_SKILL_STEPS}")
        total = sum(len(s) for s in steps)
        if total > MAX_SKILL_CHARS:
            raise StoreError(f"the steps total {total} characters; the limit is {MAX_SKILL_CHARS}")
        if any(_SURROGATE.search(s) for s in steps):
            raise StoreError("steps must be valid Unicode text (no lone surrogates)")
        text = _checked_text(name.strip() + ":\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)))
        previous = self._entries.get(skill_id)
        if previous is None:
            self._check_room()
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
        try:
            skill_id = _skill_id(name)
        except StoreError:
            self._log("read", query=_loggable(name), ok=False)
            raise
        return self.read(skill_id)

    def search(
        self,
        query: str,
        kind: str = "memory",
        limit: int = SEARCH_LIMIT,
        live_at: str | None = None,
        min_overlap: int = 1,
    ) -> list[StoreEntry]:
        """Rank non-deleted entries of a kind by idf-weighted word overlap with the query.

        With ``live_at`` (a clock) superseded and expired entries are left out too (E2); the ids
        of matching entries left out that way are in ``hidden_by_last_search``. ``min_overlap``:
        how many query words an entry must share to count as a match.
        """
        if query is not None and not isinstance(query, str):
            raise StoreError("query must be a string")
        if query and len(query) > MAX_QUERY_CHARS:
            raise StoreError(f"query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}")
        ranked = self._rank(query or "", kind, min_overlap)
        live = [e for e in ranked if live_at is None or e.is_live(live_at)]
        shown = {e.id for e in live}
        self.hidden_by_last_search = [e.id for e in ranked if e.id not in shown]
        hits = live[:limit]
        if not hits:
            self._log("search", query=query)
            return []
        self._log("search", query=query, entry_ids=[e.id for e in hits], returned=hits)
        return hits

    def matching_ids(self, query: str, live_at: str | None = None, min_overlap: int = 2) -> list[str]:
        """Ids of entries (memory and skills) sharing ``min_overlap`` content words with ``query``.

        Not logged and never shown to the agent: a runtime probe (E4 asks it whether a task
        touches stored history), not a retrieval.
        """
        groups = self.term_groups(query)
        return sorted(
            e.id
            for e in self._entries.values()
            if not e.deleted
            and (live_at is None or e.is_live(live_at))
            and matched_words(groups, self._tokens[e.id]) >= min_overlap
        )

    def _rank(self, query: str, kind: str, min_overlap: int = 1) -> list[StoreEntry]:
        groups = self.term_groups(query)
        terms = {t for group in groups for t in group}
        pool = [e for e in self._entries.values() if e.kind == kind and not e.deleted]
        if not terms or not pool:
            return []
        # One intersection per entry gives both its overlap and the terms' document frequencies
        # (a term no entry holds is never scored), instead of a pass over the pool per term.
        overlaps = [(entry, terms & self._tokens[entry.id]) for entry in pool]
        frequency = Counter(t for _, overlap in overlaps for t in overlap)
        weights = self.term_counts(query)
        scored = []
        for entry, overlap in overlaps:
            # A non-empty overlap is one matched word; count words only when more are required.
            if overlap and (min_overlap <= 1 or matched_words(groups, overlap) >= min_overlap):
                score = idf_overlap_score(overlap, len(pool), frequency, weights)
                scored.append((-score, _entry_order(entry), entry))
        return [entry for _, _, entry in sorted(scored)]

    def require(self, entry_id: str, kind: str | None = None) -> None:
        """Raise ``StoreError`` unless a non-deleted entry with this id exists (not logged)."""
        self._get(entry_id, kind)

    # -- internals --------------------------------------------------------------------------------

    def _get(self, entry_id: str, kind: str | None = None) -> StoreEntry:
        _check_id(entry_id)
        entry = self._entries.get(entry_id)
        if entry is None or entry.deleted or (kind and entry.kind != kind):
            raise StoreError(f"no {kind or 'store'} entry with id {entry_id!r}")
        return entry

    def _check_room(self) -> None:
        if len(self._entries) >= MAX_ENTRIES:
            raise StoreError(f"the store holds {len(self._entries)} entries; the limit is {MAX_ENTRIES}")

    def _is_own_folder(self, folder: Path) -> bool:
        """A real directory (not a link) whose resolved path is inside the root."""
        return (
            not folder.is_symlink() and folder.is_dir() and folder.resolve().is_relative_to(self._real_root)
        )

    def _entry_path(self, entry: StoreEntry) -> Path:
        """The file of an entry, proven to lie inside the root; raises StoreError otherwise."""
        folder = self.root / ("skills" if entry.kind == "skill" else "memory")
        name = _file_name(entry.id)
        _check_component(name)
        if not self._is_own_folder(folder):
            raise StoreError(f"the store folder {folder.name!r} is not a directory inside the store root")
        path = folder / f"{name}.json"
        if path.is_symlink():
            raise StoreError(f"refusing to write through a symbolic link at {folder.name}/{path.name}")
        if not path.resolve().is_relative_to(self._real_root):
            raise StoreError(f"entry {entry.id!r} would be stored outside the store root")
        if path.exists() and not path.is_file():
            raise StoreError(f"{folder.name}/{path.name} exists and is not a regular file")
        return path

    def _index(self, entry: StoreEntry) -> None:
        self._entries[entry.id] = entry
        # Entity and scope (E2) are searchable like tags: "Pinecrest" finds the Pinecrest entries.
        indexed = " ".join([entry.text, *entry.tags, entry.entity, entry.scope])
        self._tokens[entry.id] = frozenset(t for group in self.term_groups(indexed) for t in group)

    def _save(self, entry: StoreEntry) -> None:
        path = self._entry_path(entry)
        # Write-then-rename: a crash never leaves a half-written entry behind. mkstemp creates
        # a fresh file (O_EXCL), so a link planted at a predictable temp name is never followed,
        # and rename replaces a directory entry, never the target of a link.
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(entry.model_dump_json(indent=1))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
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


def _why_dead(entry: StoreEntry) -> str:
    if entry.superseded_by:
        return f"superseded by {entry.superseded_by}"
    return f"expired {entry.expires}"


def _file_name(entry_id: str) -> str:
    return entry_id.replace(":", "_")


def _check_component(name: str) -> None:
    """One plain file name: nothing a path could be built from to leave its folder."""
    if (
        not name
        or name in (".", "..")
        or ".." in name
        or any(c in name for c in "/\\\0")
        or os.path.isabs(name)
        or len(name) > MAX_ID_CHARS + len("skill_")
    ):
        raise StoreError(f"{name!r} is not a valid store file name")


def _check_id(entry_id: Any) -> None:
    """Entry ids come from the agent: refuse anything that is not a short plain name."""
    if not isinstance(entry_id, str) or not entry_id:
        raise StoreError("id must be a non-empty string")
    if len(entry_id) > MAX_ID_CHARS:
        raise StoreError(f"id is {len(entry_id)} characters; the limit is {MAX_ID_CHARS}")
    if ".." in entry_id or any(c in entry_id for c in "/\\\0") or os.path.isabs(entry_id):
        raise StoreError(f"invalid id {entry_id!r}: ids must not contain '..', '/', '\\' or NUL")
    if _SURROGATE.search(entry_id):
        raise StoreError("id must be valid Unicode text (no lone surrogates)")


def _skill_id(name: Any) -> str:
    if not isinstance(name, str):
        raise StoreError("skill name must be a string")
    if ".." in name or any(c in name for c in "/\\\0") or os.path.isabs(name):
        raise StoreError(f"invalid skill name {name[:100]!r}: names must not contain '..', '/', '\\' or NUL")
    if not _SKILL_NAME.match(name):
        raise StoreError("skill name must be 1-80 letters, digits, spaces, '.', '_' or '-'")
    return "skill:" + name.strip().lower().replace(" ", "_")


def _loggable(value: Any) -> str:
    """What the access log records of a refused argument (bounded, always a string)."""
    return value[:MAX_ID_CHARS] if isinstance(value, str) else repr(value)[:MAX_ID_CHARS]


def _checked_text(text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise StoreError("text must be a non-empty string")
    if len(text) > MAX_ENTRY_CHARS:
        raise StoreError(f"text is {len(text)} characters; the limit is {MAX_ENTRY_CHARS}")
    if _SURROGATE.search(text):
        raise StoreError("text must be valid Unicode text (no lone surrogates)")
    return text.strip()


def _checked_tags(tags: Any) -> list[str]:
    if tags is None:
        return []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise StoreError("tags must be a list of strings")
    if len(tags) > MAX_TAGS:
        raise StoreError(f"{len(tags)} tags; the limit is {MAX_TAGS}")
    for tag in tags:
        if len(tag) > MAX_TAG_CHARS:
            raise StoreError(f"a tag is {len(tag)} characters; the limit is {MAX_TAG_CHARS}")
        if _SURROGATE.search(tag):
            raise StoreError("tags must be valid Unicode text (no lone surrogates)")
    return sorted({t.strip() for t in tags if t.strip()})


def _checked_meta(meta: dict[str, Any]) -> dict[str, Any]:
    allowed = {"entity", "scope", "expires", "superseded_by"}
    unknown = set(meta) - allowed
    if unknown:
        raise StoreError(f"unknown fields: {', '.join(sorted(unknown))}")
    for key, value in meta.items():
        if value is not None and not isinstance(value, str):
            raise StoreError(f"{key} must be a string")
        if isinstance(value, str) and len(value) > MAX_META_CHARS:
            raise StoreError(f"{key} is {len(value)} characters; the limit is {MAX_META_CHARS}")
        if isinstance(value, str) and _SURROGATE.search(value):
            raise StoreError(f"{key} must be valid Unicode text (no lone surrogates)")
    return {k: v for k, v in meta.items() if v is not None}
