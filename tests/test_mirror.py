"""Tests mirror the package: every module with logic has ``tests/<package path>/test_<module>.py``.

A module ``pytest_pastbench/<dir>/<module>.py`` is tested in ``tests/<dir>/test_<module>.py``; a
package's ``__init__.py`` counts as a module of its parent, tested in
``tests/<parent>/test_<package>.py``, the root package's in ``tests/test_pytest_pastbench.py``. A
module has logic when it defines a function or a method; a module of constants, re-exports or
plain records needs no file of its own.

``NOT_YET`` lists the modules that still have none; it is empty now, and it only shrinks: an
entry whose test file now exists, or whose module is gone or has no logic, fails here until it is
taken out. The rules are checked on made-up entries too, so an empty list tests something.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pytest_pastbench

PACKAGE = Path(pytest_pastbench.__file__).resolve().parent
TESTS = Path(__file__).resolve().parent

# Modules with logic and no mirrored test file yet, as paths under pytest_pastbench/.
NOT_YET: frozenset[str] = frozenset()


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


def untested(not_yet: frozenset[str]) -> list[str]:
    """Modules with logic, not in ``not_yet``, that have no mirrored test file."""
    return [
        f"{module.as_posix()}: {mirrored(module).relative_to(TESTS.parent)}"
        for module in modules_with_logic()
        if module.as_posix() not in not_yet and not mirrored(module).exists()
    ]


def stale(not_yet: frozenset[str]) -> list[str]:
    """Entries of ``not_yet`` to take out: tested now, gone or without logic."""
    with_logic = {module.as_posix() for module in modules_with_logic()}
    return sorted(module for module in not_yet if module not in with_logic or mirrored(Path(module)).exists())


def test_every_module_with_logic_has_a_mirrored_test_file() -> None:
    missing = untested(NOT_YET)
    assert not missing, "modules with logic and no mirrored test file:\n" + "\n".join(missing)


def test_the_allow_list_only_shrinks() -> None:
    out = stale(NOT_YET)
    assert not out, "take these out of NOT_YET (tested now, gone or without logic):\n" + "\n".join(out)


def test_the_rules_hold_on_made_up_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The scan sees the package (an empty scan would pass everything).
    found = {module.as_posix() for module in modules_with_logic()}
    assert {"plugin/hooks.py", "protocols/stream/servelearn/collect.py"} <= found
    # An entry is stale when its module is tested, gone or without logic.
    assert stale(frozenset({"plugin/hooks.py", "gone.py", "protocols/__init__.py"})) == [
        "gone.py",
        "plugin/hooks.py",
        "protocols/__init__.py",
    ]
    # A module without its mirrored file is reported, unless the allow-list names it.
    monkeypatch.setitem(globals(), "TESTS", tmp_path / "tests")  # where no test file exists
    assert "plugin/hooks.py" in {line.split(":")[0] for line in untested(frozenset())}
    assert "plugin/hooks.py" not in {line.split(":")[0] for line in untested(frozenset({"plugin/hooks.py"}))}


def test_the_mirror_and_the_logic_rule() -> None:
    assert mirrored(Path("models/gateway.py")) == TESTS / "models" / "test_gateway.py"
    assert mirrored(Path("agents/external/__init__.py")) == TESTS / "agents" / "test_external.py"
    assert mirrored(Path("__init__.py")) == TESTS / "test_pytest_pastbench.py"
    assert has_logic("class A:\n    def f(self) -> None: ...\n")
    assert not has_logic('"""Doc."""\nX = 1\nclass Record:\n    name: str\n')
