"""Where the packaged data lives: ``families/`` and ``agents/`` in a checkout or in the wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    # A wheel carries the data inside the package (_data/); an editable install or a checkout
    # finds it beside the package.
    packaged = _PACKAGE / "_data" / name
    return packaged if packaged.is_dir() else _PACKAGE.parent / name


def families_dir() -> Path:
    return _data_dir("families")


def agents_dir() -> Path:
    return _data_dir("agents")
