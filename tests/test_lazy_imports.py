"""Every function-level import in the package says why it is there (issue 32 item 3).

An import inside a function hides a dependency from the reader and from the module-level import
graph, so it stays only where it earns its place (a heavy optional dependency, pytest's light start
in tests/test_lazy_start.py) and says so. The convention, checked here from the source with
``ast``: a function-level import is explained when

- a comment that starts with ``# lazy`` (any case: ``# lazy: litellm``) or ``# noqa`` stands on
  its first line or on the line just above it; a comment above a run of consecutive imports (or on
  any of them) covers the run; or
- its module's docstring has the sentence "Imports inside functions ..." that gives the reason for
  all of them at once.

Imports under ``if TYPE_CHECKING:`` never run and are left out.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest_pastbench
from tests.test_import_graph import _is_type_checking

ROOT = Path(pytest_pastbench.__file__).parent
DOCSTRING_SENTENCE = "Imports inside functions"
REASON_PREFIXES = ("# lazy", "# noqa")


def _function_level_imports(node: ast.AST, *, inside: bool = False) -> list[ast.stmt]:
    """Import statements inside a def or class body, not under ``if TYPE_CHECKING:``."""
    found: list[ast.stmt] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            if inside:
                found.append(child)
            continue
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.orelse:
                found += _function_level_imports(ast.Module(body=[stmt], type_ignores=[]), inside=inside)
            continue
        nested = inside or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        found += _function_level_imports(child, inside=nested)
    return found


def _comments_by_line(source: str) -> dict[int, str]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {tok.start[0]: tok.string for tok in tokens if tok.type == tokenize.COMMENT}


def unexplained_imports(path: Path, root: Path = ROOT) -> list[str]:
    """``file:line`` of each function-level import in ``path`` that gives no reason."""
    source = path.read_text()
    tree = ast.parse(source, str(path))
    if DOCSTRING_SENTENCE in (ast.get_docstring(tree) or ""):
        return []
    comments = _comments_by_line(source)
    imports = _function_level_imports(tree)
    import_lines = {line for node in imports for line in range(node.lineno, (node.end_lineno or 0) + 1)}

    def explained(line: int) -> bool:
        # Up through the run of imports this one belongs to, to the line just above the run.
        while True:
            if comments.get(line, "").lower().startswith(REASON_PREFIXES):
                return True
            if line not in import_lines:
                return False
            line -= 1

    where = path.relative_to(root.parent)
    return [f"{where}:{node.lineno}" for node in imports if not explained(node.end_lineno or node.lineno)]


def test_the_walk_finds_function_level_imports_only() -> None:
    tree = ast.parse(
        "import os\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import json\n"
        "def f():\n    import re\n    if TYPE_CHECKING:\n        import csv\n"
        "class C:\n    import abc\n"
    )
    assert [n.names[0].name for n in _function_level_imports(tree)] == ["re", "abc"]


def test_a_reason_is_a_lazy_comment_or_the_docstring_sentence(tmp_path: Path) -> None:
    package = tmp_path / "pytest_pastbench"
    package.mkdir()
    body = (
        "def f():\n    import json\n    # lazy: heavy\n    import csv\n    import abc\n\n    import re\n"
        "    import io  # noqa: PLC0415\n"
    )
    bare = package / "bare.py"
    bare.write_text(body)
    explained = package / "explained.py"
    explained.write_text(f'"""Imports inside functions keep the start light."""\n{body}')
    assert unexplained_imports(bare, package) == ["pytest_pastbench/bare.py:2", "pytest_pastbench/bare.py:7"]
    assert unexplained_imports(explained, package) == []


def test_every_function_level_import_says_why() -> None:
    missing = [where for path in sorted(ROOT.rglob("*.py")) for where in unexplained_imports(path)]
    assert not missing, (
        f"{len(missing)} function-level imports give no reason: move each to the top, or say why it "
        f"is lazy with a trailing '# lazy: ...' comment or a module docstring sentence "
        f"'{DOCSTRING_SENTENCE} ...':\n" + "\n".join(missing)
    )
