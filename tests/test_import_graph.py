"""The package's import graph has no cycle (issue 19: zero import cycles, enforced in CI).

The graph is read from the source with ``ast``, not by importing. An edge A -> B is an
``import``/``from ... import`` in A that loads B. Importing ``pkg.sub.mod`` also runs
``pkg/__init__`` and ``pkg/sub/__init__``, so those are edges too; ``from . import name`` is an
edge to the submodule ``name`` when there is one. Imports under ``if TYPE_CHECKING:`` never run
and are left out.

Two graphs, two rules:

- module level (what runs when a module is imported): no cycle, no exception. Such a cycle makes
  import order matter (a half-initialised module, an ImportError that depends on which module
  came first).
- runtime (module level plus the imports inside functions): no cycle either, except through the
  deferred edges listed in ``DEFERRED_BACK_EDGES``, each with the reason it is still there. A
  function-level import that closes a cycle hides the same tangle: neither module can be read,
  tested or moved without the other. An entry that no longer closes a cycle fails the test, so the
  list only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_pastbench

PACKAGE = "pytest_pastbench"
ROOT = Path(pytest_pastbench.__file__).parent

# (importer, imported): function-level imports that still close a cycle, and why.
DEFERRED_BACK_EDGES: dict[tuple[str, str], str] = {}

# Who may build the registry outside pytest (protocols/standalone.py loads every protocol): the
# entry points only; everything below them is handed a registry.
REGISTRY_BUILDERS = (f"{PACKAGE}.cli", f"{PACKAGE}.plugin", f"{PACKAGE}.models.gateway_process")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_time_nodes(body: list[ast.stmt]):  # noqa: ANN202 (generator of ast nodes)
    """Import statements run when the module body runs (not in functions, not TYPE_CHECKING)."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _import_time_nodes(node.body)
            yield from _import_time_nodes(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _import_time_nodes(block)
        elif isinstance(node, ast.With | ast.ClassDef):
            yield from _import_time_nodes(node.body)


def _runtime_nodes(body: list[ast.stmt]):  # noqa: ANN202 (generator of ast nodes)
    """Every import statement that can run: the module level and inside functions."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _runtime_nodes(node.orelse)
        else:
            yield from _runtime_nodes(
                [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)]
            )


def _with_parents(name: str, modules: dict[str, Path]) -> set[str]:
    """``a.b.c`` loads ``a``, ``a.b`` and ``a.b.c``: the ones that are modules of the package."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)} & modules.keys()


def imports_of(module: str, modules: dict[str, Path], *, runtime: bool = False) -> set[str]:
    """The package modules ``module`` loads directly: on import, or also from its functions."""
    path = modules[module]
    is_package = path.name == "__init__.py"
    here = module.split(".") if is_package else module.split(".")[:-1]
    found: set[str] = set()
    statements = _runtime_nodes if runtime else _import_time_nodes
    for node in statements(ast.parse(path.read_text(), str(path)).body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found |= _with_parents(alias.name, modules)
            continue
        base = ".".join(here[: len(here) - node.level + 1]) if node.level else ""
        target = ".".join(part for part in (base, node.module or "") if part)
        found |= _with_parents(target, modules)
        for alias in node.names:
            found |= _with_parents(f"{target}.{alias.name}", modules)
    found.discard(module)
    # A package's own __init__ is run before any of its submodules, never because of them.
    return {name for name in found if not module.startswith(name + ".")}


def import_graph(*, runtime: bool = False) -> dict[str, set[str]]:
    modules = package_modules()
    return {name: imports_of(name, modules, runtime=runtime) for name in modules}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), sorted, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(components)


def test_the_graph_is_read_from_the_package() -> None:
    graph = import_graph()
    assert len(graph) > 50
    # Real edges are found: relative, absolute and parent-package ones.
    assert sum(map(len, graph.values())) > 200
    assert sum(f"{PACKAGE}.errors" in deps for deps in graph.values()) > 20, "the errors module is imported"
    packages = {name for name, path in package_modules().items() if path.name == "__init__.py"}
    assert any(deps & packages for deps in graph.values()), "importing a submodule runs its package"


def test_find_cycles_reports_a_cycle_and_nothing_else() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert find_cycles(graph) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def _cycles_text(cycles: list[list[str]]) -> str:
    return "\n".join(" <-> ".join(cycle) for cycle in cycles)


def test_function_level_imports_are_in_the_runtime_graph() -> None:
    static, runtime = import_graph(), import_graph(runtime=True)
    assert all(static[name] <= runtime[name] for name in static)
    # The run object imports most of what it drives inside functions, so there is more to see.
    assert sum(map(len, runtime.values())) > sum(map(len, static.values()))


def test_module_level_imports_have_no_cycle() -> None:
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles through module-level imports:\n" + _cycles_text(cycles)


def test_runtime_imports_have_no_cycle_but_the_listed_deferred_edges() -> None:
    graph = import_graph(runtime=True)
    for importer, imported in DEFERRED_BACK_EDGES:
        assert imported in graph.get(importer, set()), (
            f"{importer} no longer imports {imported}: drop the entry"
        )
        graph[importer].discard(imported)
    cycles = find_cycles(graph)
    assert not cycles, "import cycles (function-level imports included):\n" + _cycles_text(cycles)
    for importer, imported in DEFERRED_BACK_EDGES:
        graph[importer].add(imported)
        assert find_cycles(graph), f"{importer} -> {imported} closes no cycle any more: drop the entry"
        graph[importer].discard(imported)


def test_the_plugin_glue_stays_under_300_lines() -> None:
    # Issue 19: hooks only; the work is the run object's and its collaborators'.
    lines = (ROOT / "plugin" / "hooks.py").read_text().count("\n")
    assert lines < 300, f"plugin/hooks.py has {lines} lines: move what is not a hook out of it"


def test_only_the_entry_points_build_the_registry() -> None:
    graph = import_graph(runtime=True)
    builders = {name for name, deps in graph.items() if f"{PACKAGE}.protocols.standalone" in deps}
    assert builders, "the registry is built somewhere"
    below = sorted(b for b in builders if not b.startswith(REGISTRY_BUILDERS))
    assert not below, f"modules below the entry points build the registry instead of taking it: {below}"
