"""No module outside ``protocols/past/`` imports PAST (issue 32 item 1: PAST is a protocol like the
others; core/ and the shared layers know no protocol, the other protocols share only
``protocols/shared/``).

Read from the source with ``ast`` (the graph of tests/test_import_graph.py, function-level imports
included), plus module paths named as strings for a lazy ``import_module`` (the public API's map).
The modules that still reach into PAST are listed below, each with its reason; the list only
shrinks: an entry that no longer imports PAST fails the test.
"""

from __future__ import annotations

import ast

from tests.test_import_graph import PACKAGE, import_graph, package_modules

PAST = f"{PACKAGE}.protocols.past"

# importer -> why it still imports PAST. Shrinks to the registration point as the work lands.
ALLOWED: dict[str, str] = {
    f"{PACKAGE}.protocols.builtin": "registers the built-in protocols: naming PAST's protocol is its job",
    PACKAGE: (
        "the public API's lazy re-exports (Family, Episode, World, ToolBox, ...): users' tests import "
        "them from the package"
    ),
}


def _in_past(module: str) -> bool:
    return module == PAST or module.startswith(PAST + ".")


def _named_modules(module: str) -> set[str]:
    """Modules of PAST named in full by a string constant (what ``import_module`` would load)."""
    tree = ast.parse(package_modules()[module].read_text())
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return {s for s in strings if _in_past(s)}


def past_importers() -> set[str]:
    graph = import_graph(runtime=True)
    return {
        module
        for module, imported in graph.items()
        if not _in_past(module) and (any(_in_past(m) for m in imported) or _named_modules(module))
    }


def test_the_check_finds_an_importer_of_past() -> None:
    # The registration point imports PAST's protocol object: the check sees real imports.
    assert f"{PACKAGE}.protocols.builtin" in past_importers()
    assert _named_modules(PACKAGE), "the public API's map names PAST's modules as strings"
    assert not _in_past(f"{PACKAGE}.protocols.pastry") and _in_past(f"{PAST}.schema")


def test_no_module_outside_past_imports_it_but_the_listed_ones() -> None:
    importers = past_importers()
    unexpected = sorted(importers - ALLOWED.keys())
    assert not unexpected, (
        "these modules import protocols.past; reach it through the protocol interface (protocols/base.py), "
        "or move what is protocol-neutral to protocols/shared/ or core/:\n" + "\n".join(unexpected)
    )
    gone = sorted(ALLOWED.keys() - importers)
    assert not gone, "these no longer import protocols.past: drop them from ALLOWED:\n" + "\n".join(gone)


def test_core_and_shared_know_no_protocol() -> None:
    protocols = tuple(
        f"{PACKAGE}.protocols.{name}" for name in ("past", "intervention", "stream", "plasticity")
    )
    graph = import_graph(runtime=True)
    reaching = sorted(
        f"{module} -> {imported}"
        for module, modules in graph.items()
        if module.startswith((f"{PACKAGE}.core", f"{PACKAGE}.protocols.shared"))
        for imported in modules
        if any(imported == p or imported.startswith(p + ".") for p in protocols)
    )
    assert not reaching, "core/ and protocols/shared/ import a protocol:\n" + "\n".join(reaching)
