"""Is this file a family file, and of which protocol? Kept import-light: it runs for every YAML
file pytest visits."""

from __future__ import annotations

import re
from pathlib import Path

FORMAT_TAG = "pastbench/v1"
# The other protocols (DESIGN §8) are family types of their own: ``pastbench/<protocol>-v1``.
PROTOCOL_FORMAT_TAGS = {
    "pastbench/intervention-v1": "intervention",
    "pastbench/stream-v1": "stream",
    "pastbench/plasticity-v1": "plasticity",
}
FAMILY_SUFFIXES = (".yaml", ".yml")
_FORMAT_LINE = re.compile(rb"^format:\s*['\"]?(pastbench/[a-z0-9-]+)['\"]?\s*(?:#.*)?$", re.MULTILINE)
_HEAD_BYTES = 4096


def family_format(path: Path) -> str | None:
    """The format tag a YAML file declares near its top (``pastbench/...``), or None."""
    if path.suffix not in FAMILY_SUFFIXES:
        return None
    try:
        with path.open("rb") as handle:
            match = _FORMAT_LINE.search(handle.read(_HEAD_BYTES))
    except OSError:
        return None
    if match is None:
        return None
    tag = match.group(1).decode()
    return tag if tag == FORMAT_TAG or tag in PROTOCOL_FORMAT_TAGS else None


def is_family_file(path: Path) -> bool:
    """A YAML file of any pastbench protocol (PAST or one of DESIGN §8's)."""
    return family_format(path) is not None


def is_past_family_file(path: Path) -> bool:
    """A family file of the PAST protocol (``format: pastbench/v1``)."""
    return family_format(path) == FORMAT_TAG
