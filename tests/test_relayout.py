"""tools/relayout.py, the one-shot move to the issue-19 layout: its table and its rewriting rules.

The move itself is proven by running it (on a scratch branch: the suite and ruff pass after it);
these tests keep the table complete until then and pin the rules on small inputs.
"""

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("relayout", ROOT / "tools" / "relayout.py")
relayout = importlib.util.module_from_spec(_spec)
sys.modules["relayout"] = relayout
_spec.loader.exec_module(relayout)

P = relayout.PACKAGE


def plan_of(moves: dict[str, str | None], packages: set[str] = frozenset()) -> "relayout.Plan":
    full_moves = {f"{P}.{old}": None if new is None else f"{P}.{new}" for old, new in moves.items()}
    plan = relayout.Plan(moves=full_moves, relocated=set(full_moves))
    plan.new_names = {new for new in full_moves.values() if new} | {f"{P}.{n}" for n in packages}
    return plan


def test_every_module_of_the_package_is_in_the_table() -> None:
    plan = relayout.make_plan()
    if not plan.paths:
        pytest.skip("the package is in its target layout already")
    assert plan.problems == [], "\n".join(plan.problems)


def test_dotted_names_follow_the_longest_old_module_and_never_twice() -> None:
    plan = plan_of(
        {"plugin": "plugin.hooks", "session": "plugin.run", "options": "plugin.options"}, {"plugin"}
    )
    assert (
        relayout.new_name_of(f"{P}.session.PastbenchSession.finish", plan)
        == f"{P}.plugin.run.PastbenchSession.finish"
    )
    assert relayout.new_name_of(f"{P}.plugin", plan) == f"{P}.plugin.hooks"
    # Already the new layout: left alone, so a second run changes nothing.
    assert relayout.new_name_of(f"{P}.plugin.options.resolve", plan) is None
    assert relayout.new_name_of(f"{P}.plugin.hooks", plan) is None
    assert relayout.new_name_of(f"{P}.stats", plan) is None


def test_imports_are_rewritten_relative_to_the_new_place() -> None:
    plan = plan_of(
        {"runner": "protocols.past.engine", "schema": "protocols.past.schema", "store": "core.store"}
    )
    source = (
        "from . import schema\n"
        "from .store import Store  # noqa: F401\n"
        "from .version import plugin_version\n"
        "import pytest_pastbench.store as store_module\n"
        "def f():\n"
        "    from .schema import World as WorldSeed\n"
    )
    modules = {f"{P}.{name}" for name in ("runner", "schema", "store", "version")}
    out = relayout.rewrite_imports(source, Path(P, "runner.py"), plan, modules, [])
    assert out.splitlines() == [
        "from . import schema",
        f"from {P}.core.store import Store  # noqa: F401",  # three dots: absolute
        f"from {P}.version import plugin_version",
        "import pytest_pastbench.core.store as store_module",
        "def f():",
        "    from .schema import WorldSeed",
    ]
    ast.parse(out)


def test_relative_imports_deeper_than_two_dots_become_absolute() -> None:
    plan = plan_of({"dataset.audit": "protocols.past.dataset.audit", "text": "core.text"})
    out = relayout.rewrite_imports(
        "from ..text import normalise\n", Path(P, "dataset", "audit.py"), plan, set(), []
    )
    assert out == f"from {P}.core.text import normalise\n"


def test_a_submodule_imported_from_its_package_follows_it_to_another_package() -> None:
    plan = plan_of({"adapters.process": "agents.external.process", "sandbox": "core.sandbox"})
    modules = {f"{P}.sandbox", f"{P}.version", f"{P}.adapters.process"}
    out = relayout.rewrite_imports(
        "from .. import sandbox, version\n", Path(P, "adapters", "process.py"), plan, modules, []
    )
    assert out.splitlines() == [f"from {P}.core import sandbox", f"from {P} import version"]


def test_text_citations_paths_and_identifiers() -> None:
    plan = plan_of({"session": "plugin.run", "offline.policies": "protocols.past.offline_policy"})
    text = 'see DESIGN §8 and pytest_pastbench/session.py; "pytest_pastbench.offline.policies.decide"'
    assert relayout.rewrite_text(text, plan) == (
        "see docs/design.md §8 and pytest_pastbench/plugin/run.py; "
        '"pytest_pastbench.protocols.past.offline_policy.decide"'
    )
    warnings: list[str] = []
    renamed = relayout.rename_identifiers(
        "x = PastbenchSession(); schema.World()", Path("t.py"), plan, warnings
    )
    assert renamed == "x = PastbenchRun(); schema.WorldSeed()" and warnings == []
    relayout.rename_identifiers("PastbenchSession = PastbenchRun", Path("t.py"), plan, warnings)
    assert warnings and "rename by hand" in warnings[0]
