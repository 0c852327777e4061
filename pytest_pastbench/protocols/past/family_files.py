"""Reading PAST's family files: the generic reader (``core/family_files.py``) with PAST's schema."""

from __future__ import annotations

from pathlib import Path

from pytest_pastbench.core.family_files import load_family_model
from pytest_pastbench.protocols.past.schema import Family


def load_family(path: Path) -> tuple[Family, str]:
    """Validate a PAST family file; return it with the SHA-256 of its bytes."""
    return load_family_model(path, Family)
