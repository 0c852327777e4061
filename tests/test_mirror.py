"""Tests mirror the package: every module with logic has ``tests/<package path>/test_<module>.py``.

A module ``pytest_pastbench/<dir>/<module>.py`` is tested in ``tests/<dir>/test_<module>.py``; a
package's ``__init__.py`` counts as a module of its parent, tested in
``tests/<parent>/test_<package>.py``, the root package's in ``tests/test_pytest_pastbench.py``. A
module has logic when it defines a function or a method; a module of constants, re-exports or
plain records needs no file of its own.

``NOT_YET`` lists the modules that still have none. It only shrinks: an entry whose test file
now exists, or whose module is gone or has no logic, fails here until it is taken out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_pastbench

PACKAGE = Path(pytest_pastbench.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent

# Modules with logic and no mirrored test file yet, as paths under pytest_pastbench/.
NOT_YET = {
    "protocols/stream/servelearn/collect.py",
}


def mirrored(module: Path) -> Path:
    """The test file of a module of the package (a path under pytest_pastbench/)."""
    if module.name != "__init__.py":
        return TESTS / module.parent / f"test_{module.stem}.py"
    if module.parent == Path("."):
        return TESTS / "test_pytest_pastbench.py"
    return TESTS / module.parent.parent / f"test_{module.parent.name}.py"


def has_logic(source: str) -> bool:
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) for node in ast.walk(ast.parse(source))
    )


def modules_with_logic() -> list[Path]:
    return [
        path.relative_to(PACKAGE)
        for path in sorted(PACKAGE.rglob("*.py"))
        if has_logic(path.read_text(encoding="utf-8"))
    ]


def test_every_module_with_logic_has_a_mirrored_test_file() -> None:
    missing = [
        f"{module.as_posix()}: {mirrored(module).relative_to(TESTS.parent)}"
        for module in modules_with_logic()
        if module.as_posix() not in NOT_YET and not mirrored(module).exists()
    ]
    assert not missing, "modules with logic and no mirrored test file:\n" + "\n".join(missing)


def test_the_allow_list_only_shrinks() -> None:
    with_logic = {module.as_posix() for module in modules_with_logic()}
    stale = sorted(
        module for module in NOT_YET if module not in with_logic or mirrored(Path(module)).exists()
    )
    assert not stale, "take these out of NOT_YET (tested now, gone or without logic):\n" + "\n".join(stale)


def test_the_mirror_and_the_logic_rule() -> None:
    assert mirrored(Path("models/gateway.py")) == TESTS / "models" / "test_gateway.py"
    assert mirrored(Path("agents/external/__init__.py")) == TESTS / "agents" / "test_external.py"
    assert mirrored(Path("__init__.py")) == TESTS / "test_pytest_pastbench.py"
    assert has_logic("class A:\n    def f(self) -> None: ...\n")
    assert not has_logic('"""Doc."""\nX = 1\nclass Record:\n    name: str\n')
