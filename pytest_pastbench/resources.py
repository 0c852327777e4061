"""Where the packaged data lives: ``families/`` and ``agents/`` in a checkout or in the wheel, and
the package's own files (prompts). Modules find files through here, not beside their own
``__file__``, so they can move between subpackages."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    # A wheel carries the data inside the package (_data/); an editable install or a checkout
    # finds it beside the package.
    packaged = _PACKAGE / "_data" / name
    return packaged if packaged.is_dir() else _PACKAGE.parent / name


def package_dir() -> Path:
    """The installed ``pytest_pastbench`` folder."""
    return _PACKAGE


def prompt_file(name: str) -> Path:
    return _PACKAGE / "prompts" / name


def families_dir() -> Path:
    return _data_dir("families")


def labels_file() -> Path:
    """The shipped labelled answer set (``pastbench grader-agreement``'s default input); it lives
    in the families folder, so a wheel carries it with them."""
    return families_dir() / "labels" / "answers.jsonl"


def agents_dir() -> Path:
    return _data_dir("agents")


# Node ids of the packaged families start here instead of at their install path.
PACKAGED_ID_ROOT = "pastbench"


def packaged_nodeid(path: Path) -> str | None:
    """``pastbench/update/rule_migration.yaml`` for a family file of the installed package.

    pytest would name it by its path from the rootdir (``.venv/lib/python3.11/site-packages/…``),
    which differs per machine and virtualenv; ids relative to the families root are stable, so
    ``-k``, ``--deselect``, ``--lf`` and JUnit classnames read the same everywhere. A checkout's
    own ``families/`` keeps pytest's ids (``families/update/…``).
    """
    try:
        relative = path.resolve().relative_to(_PACKAGE / "_data" / "families")
    except ValueError:
        return None
    return f"{PACKAGED_ID_ROOT}/{relative.as_posix()}"
