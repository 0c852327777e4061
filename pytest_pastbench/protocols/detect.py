"""Does this file declare a pastbench format tag, and which? Kept import-light: it runs for every
YAML file pytest visits. Which protocol reads a tag is the registry's (protocols/registry.py)."""

from __future__ import annotations

import re
from pathlib import Path

FORMAT_TAG = "pastbench/v1"  # PAST's (its dataset tools look for PAST files only)
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
    return None if match is None else match.group(1).decode()


def is_family_file(path: Path) -> bool:
    """A YAML file that declares a pastbench format tag (of any protocol)."""
    return family_format(path) is not None


def is_past_family_file(path: Path) -> bool:
    """A family file of the PAST protocol (``format: pastbench/v1``)."""
    return family_format(path) == FORMAT_TAG
