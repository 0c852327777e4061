"""``pastbench servelearn download [DIR]``: the authors' published ``dataset/`` folder, fetched at a
pinned commit of their repository and checked file by file.

The commit fixes the tree: GitHub's tree listing of that commit gives every file's git blob hash,
and each downloaded file must hash to it (``sha1("blob <size>\\0" + bytes)``), so a file changed,
cut or served from elsewhere is refused, never written. What was written is recorded in
``DIR/download.json`` (the repository, the commit and each file's SHA-256). ``--scenario`` keeps
some scenarios only; the ``README.md`` comes along.

Nothing is fetched by the plugin or the tests: this command is for a user with network. The
tests point ``--api-base`` / ``--raw-base`` at a server on 127.0.0.1.
"""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request
from pathlib import Path, PurePosixPath
from typing import Any

REPOSITORY = "Infini-AI-Lab/ServeLearnBench"
# The authors' repository at the last change of dataset/ when this was written.
COMMIT = "0102d861a97f4ccca42ea4e6cf8e8a1670b7f5c2"
API_BASE = "https://api.github.com"
RAW_BASE = "https://raw.githubusercontent.com"
DATASET = "dataset"
RECORD = "download.json"
TIMEOUT_S = 60.0


class DownloadError(Exception):
    """Why nothing more was written: the listing, a file or its hash."""


def blob_sha(data: bytes) -> str:
    """Git's hash of a file's bytes (what a tree listing gives for it)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _get(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:  # noqa: S310 - https or a test's loopback
            return bytes(response.read())
    except (urllib.error.URLError, OSError) as exc:
        raise DownloadError(f"{url}: {getattr(exc, 'reason', exc)}") from None


def dataset_files(
    api_base: str, repository: str, commit: str, scenarios: list[str] | None
) -> list[tuple[str, str]]:
    """``(path under dataset/, blob hash)`` of the commit's dataset files (some scenarios only)."""
    url = f"{api_base.rstrip('/')}/repos/{repository}/git/trees/{commit}?recursive=1"
    try:
        listing: Any = json.loads(_get(url))
    except ValueError:
        raise DownloadError(f"{url}: not a JSON tree listing") from None
    if not isinstance(listing, dict) or not isinstance(listing.get("tree"), list) or listing.get("truncated"):
        raise DownloadError(f"{url}: no complete tree listing of commit {commit}")
    files = []
    for entry in listing["tree"]:
        path = PurePosixPath(str(entry.get("path", "")))
        if entry.get("type") != "blob" or path.parts[:1] != (DATASET,) or ".." in path.parts:
            continue
        inner = PurePosixPath(*path.parts[1:])
        in_scenario = len(inner.parts) > 2 and inner.parts[0] in ("data", "environments")
        scenario = inner.parts[1] if in_scenario else None
        if scenarios and scenario is not None and scenario not in scenarios:
            continue
        files.append((str(inner), str(entry.get("sha", ""))))
    if not any(p.startswith("data/") for p, _ in files):
        wanted = f" for {', '.join(scenarios)}" if scenarios else ""
        raise DownloadError(f"commit {commit} of {repository} has no {DATASET}/data files{wanted}")
    return sorted(files)


def download(
    dest: Path,
    *,
    api_base: str = API_BASE,
    raw_base: str = RAW_BASE,
    repository: str = REPOSITORY,
    commit: str = COMMIT,
    scenarios: list[str] | None = None,
) -> dict[str, str]:
    """Fetch and check every file, then write them under ``dest``; ``path -> SHA-256``."""
    checked: dict[str, bytes] = {}
    for path, sha in dataset_files(api_base, repository, commit, scenarios):
        data = _get(f"{raw_base.rstrip('/')}/{repository}/{commit}/{DATASET}/{path}")
        if blob_sha(data) != sha:
            raise DownloadError(
                f"{DATASET}/{path}: its bytes hash to {blob_sha(data)}, not the {sha} of commit {commit}; "
                "nothing was written"
            )
        checked[path] = data
    written = {}
    for path, data in checked.items():  # only once every file checked out
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written[path] = hashlib.sha256(data).hexdigest()
    record = {"repository": repository, "commit": commit, "files": written}
    (dest / RECORD).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return written
