"""Is this file a family file? Kept import-light: it runs for every YAML file pytest visits."""

from __future__ import annotations

import re
from pathlib import Path

FORMAT_TAG = "pastbench/v1"
FAMILY_SUFFIXES = (".yaml", ".yml")
_FORMAT_LINE = re.compile(rb"^format:\s*['\"]?" + re.escape(FORMAT_TAG.encode()), re.MULTILINE)
_HEAD_BYTES = 4096


def is_family_file(path: Path) -> bool:
    """A YAML file that declares ``format: pastbench/v1`` near its top."""
    if path.suffix not in FAMILY_SUFFIXES:
        return False
    try:
        with path.open("rb") as handle:
            return bool(_FORMAT_LINE.search(handle.read(_HEAD_BYTES)))
    except OSError:
        return False
