#!/usr/bin/env python3
"""Move pytest_pastbench to the issue-19 layout, once, with ``git mv`` (history kept).

    python tools/relayout.py --dry-run     # the plan: moves, renames, refusals; touches nothing
    python tools/relayout.py               # do it (a clean git tree), then ruff; commit yourself

What it does, in order:

1. Refuses (exit 1, listing them) while a module of the package is not in ``MODULES``, while two
   modules would land on one path, or while a target path is taken by another file. It also
   refuses a dirty tree (``--allow-dirty`` to override), so ``git reset --hard`` undoes a run.
2. Rewrites every ``pytest_pastbench`` import (relative ones resolved against the module's old
   place, then written relative to its new place when that takes at most two dots, else
   absolute; absolute ones stay absolute) in the
   package, tests/, benchmarks/, examples/, tools/ and conftest.py; dotted names in strings and
   text (``"pytest_pastbench.session.X"`` monkeypatch targets, ``PROTOCOL_MODULES``, ``-p``
   names, the pytest11 entry point and the console script in pyproject.toml, docs); renames the
   identifiers of ``RENAMES`` and ``MODULE_RENAMES``; points "DESIGN §N" at docs/design.md.
3. ``git mv`` for each module that moves, ``git rm`` for the packages that disappear (their
   ``__init__`` holds only a docstring), and a docstring ``__init__.py`` for each new package.
4. ``ruff check --fix --select I,F401`` (import order changes with the paths) and ``ruff format``
   over the files it changed.

Re-running it is safe: modules already at their target are left alone, and only references to
modules still at an old path are rewritten, so a second run over the moved tree does nothing.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "pytest_pastbench"
REPO = Path(__file__).resolve().parents[1]

# Old module -> new module, for EVERY module of the package (identity when it stays). A module
# found in the package but not here stops the script. Entries for modules that do not exist are
# ignored (some only exist on other branches until they are merged).
MODULES: dict[str, str] = {
    # --- the package root: the public surface -----------------------------------------------------
    "": "",
    "errors": "errors",
    "hookspec": "hookspec",
    "version": "version",
    "resources": "resources",
    # --- plugin/: the pytest glue ---------------------------------------------------------------------
    "plugin": "plugin.hooks",
    "session": "plugin.run",
    "options": "plugin.options",
    "fixtures": "plugin.fixtures",
    "collect": "plugin.collection",
    "concurrency": "plugin.concurrency",
    "shard": "plugin.shard",
    "resume": "plugin.resume",
    "junit": "plugin.junit",
    "summary_line": "plugin.terminal",
    "progress": "plugin.progress",
    "regression": "plugin.regression",
    "run_models": "plugin.run_models",
    "run_report": "plugin.finish",
    "run_setup": "plugin.preflight",
    # --- protocols/ ----------------------------------------------------------------------------------
    "protocols": "protocols",
    "protocols.base": "protocols.base",
    "protocols.registry": "protocols.registry",
    "protocols.builtin": "protocols.builtin",
    "protocols.summary": "protocols.summary",
    "detect": "protocols.detect",
    # PAST
    "protocols.past": "protocols.past",
    "protocols.past.collect": "protocols.past.collect",
    "protocols.past.report": "protocols.past.report",
    "summary": "protocols.past.metrics",
    "schema": "protocols.past.schema",
    "runner": "protocols.past.engine",
    "scoring": "protocols.past.scoring",
    "checks": "protocols.past.checks",
    "matching": "protocols.past.matching",
    "mech": "protocols.past.mech",
    "losses": "protocols.past.losses",
    "offline.policies": "protocols.past.offline_policy",
    "dataset": "protocols.past.dataset",
    "dataset.audit": "protocols.past.dataset.audit",
    "dataset.export": "protocols.past.dataset.export",
    "dataset.shortcuts": "protocols.past.dataset.shortcuts",
    # interventions
    "protocols.intervention": "protocols.intervention",
    "protocols.intervention.items": "protocols.intervention.collect",
    "protocols.intervention.domain": "protocols.intervention.domain",
    "protocols.intervention.engine": "protocols.intervention.engine",
    "protocols.intervention.fallback": "protocols.intervention.fallback",
    "protocols.intervention.graph": "protocols.intervention.graph",
    "protocols.intervention.metrics": "protocols.intervention.metrics",
    "protocols.intervention.profiles": "protocols.intervention.profiles",
    "protocols.intervention.report": "protocols.intervention.report",
    "protocols.intervention.schema": "protocols.intervention.schema",
    "protocols.intervention.scoring": "protocols.intervention.scoring",
    "offline.intervention_policy": "protocols.intervention.offline_policy",
    # streams
    "protocols.stream": "protocols.stream",
    "protocols.stream.family": "protocols.stream.schema",
    "protocols.stream.item": "protocols.stream.collect",
    "protocols.stream.runner": "protocols.stream.engine",
    "protocols.stream.cli": "protocols.stream.cli",
    "protocols.stream.domains": "protocols.stream.domains",
    "protocols.stream.generator": "protocols.stream.generator",
    "protocols.stream.harness": "protocols.stream.harness",
    "protocols.stream.metrics": "protocols.stream.metrics",
    "protocols.stream.report": "protocols.stream.report",
    "protocols.stream.rules": "protocols.stream.rules",
    "protocols.stream.tickets": "protocols.stream.tickets",
    "offline.stream_policy": "protocols.stream.offline_policy",
    # plasticity
    "protocols.plasticity": "protocols.plasticity",
    "protocols.plasticity.artifacts": "protocols.plasticity.artifacts",
    "protocols.plasticity.chess_env": "protocols.plasticity.chess_env",
    "protocols.plasticity.engine": "protocols.plasticity.engine",
    "protocols.plasticity.metrics": "protocols.plasticity.metrics",
    "protocols.plasticity.report": "protocols.plasticity.report",
    "protocols.plasticity.schema": "protocols.plasticity.schema",
    "protocols.plasticity.text_env": "protocols.plasticity.text_env",
    "protocols.plasticity.toolbox": "protocols.plasticity.toolbox",
    "offline.plasticity_policy": "protocols.plasticity.offline_policy",
    # --- core/: what every protocol shares --------------------------------------------------------
    "store": "core.store",
    "world": "core.world",
    "tools": "core.tools",
    "trace": "core.trace",
    "records": "core.records",
    "sandbox": "core.sandbox",
    "stats": "core.stats",
    "text": "core.text",
    "loader": "core.family_files",
    # --- agents/ ---------------------------------------------------------------------------------------
    "agent": "agents.base",
    "agent_registry": "agents.registry",
    "mechanisms": "agents.mechanisms",
    "session_runner": "agents.session_runner",
    "adapters": "agents.external",
    "adapters.docker": "agents.external.docker",
    "adapters.driver": "agents.external.driver",
    "adapters.mcp_server": "agents.external.mcp_server",
    "adapters.mcp_stdio": "agents.external.mcp_stdio",
    "adapters.process": "agents.external.process",
    "adapters.profiles": "agents.external.profiles",
    "adapters.protocol": "agents.external.protocol",
    "adapters.shim": "agents.external.shim",
    # --- models/ ---------------------------------------------------------------------------------------
    "models": "models.client",
    "gateway": "models.gateway",
    "gateway_apis": "models.wire_formats",
    "gateway_process": "models.gateway_process",
    "cache": "models.cache",
    "budget": "models.budget",
    "rate_limit": "models.rate_limit",
    "offline": None,  # its modules go to models/ and protocols/*/; its __init__ is a docstring
    "offline.provider": "models.offline_provider",
    "offline.direct": "models.direct",
    # --- judge/ ----------------------------------------------------------------------------------------
    "judge": "judge.base",
    "llm_judge": "judge.llm",
    "offline.reference_judge": "judge.reference",
    "judge_agreement": "judge.agreement",
    # --- results/ --------------------------------------------------------------------------------------
    "output": "results.run_folder",
    "runs": "results.read",
    "item_record": "results.item_record",
    "run_aggregate": "results.aggregate",
    "merge": "results.merge",
    "baseline": "results.baseline",
    "gates": "results.gates",
    "compare": "results.compare",
    "table": "results.render.table",
    "html_report": "results.render.html",
    "plots": "results.render.plots",
    "ci_summary": "results.render.ci_summary",
    # --- cli/ ------------------------------------------------------------------------------------------
    "cli": "cli",
    # --- whole subpackages ("X.*": every module under X, the package included) ---------------------
    "protocols.stream.servelearn.*": "protocols.stream.servelearn.*",
}

# Docstrings of the packages the move creates (a package that already exists keeps its own).
NEW_PACKAGES: dict[str, str] = {
    "plugin": "The pytest glue: hooks (the pytest11 entry point), the run object, options, fixtures.",
    "core": "What every protocol shares: store, world, tools, trace, records, sandbox, statistics, text.",
    "agents": "Agents: the Agent protocol and budgets, selection, Hermes and its mechanisms, external ones.",
    "models": "Models: the client, the run's gateway and its wire formats, cache, budget, offline provider.",
    "judge": "Judges: the seam, the LLM judge, the offline reference judge, judge agreement.",
    "results": "Results: the run folder, reading and aggregating runs, merge, baselines, gates, compare.",
    "results.render": "Renderers of a run's summary: terminal table, HTML report, plots, CI summary.",
    "protocols.past": "PAST (docs/design.md §4): persistence on/off arms, Δ = S_on − S_off and Mech.",
    "cli": "The ``pastbench`` command.",
}

# Identifiers renamed everywhere (word boundary): one name per concept (session = one agent
# session; run = the pytest run).
RENAMES: dict[str, str] = {
    "PastbenchSession": "PastbenchRun",
    "pastbench_session": "pastbench_run",
    "SESSION_KEY": "RUN_KEY",
    "SessionRun": "SessionRecord",
}

# (old module, name) -> new name: names that mean something else elsewhere (``World`` is also
# the simulated services in world.py), renamed only where they come from that module.
MODULE_RENAMES: dict[tuple[str, str], str] = {
    ("schema", "World"): "WorldSeed",
}

# ruff from this interpreter's environment when it has it (a venv's python run directly).
RUFF = [sys.executable, "-m", "ruff"] if importlib.util.find_spec("ruff") else ["ruff"]

CITATION = re.compile(r"\bDESIGN(?:\.md)? §")
CITATION_TARGET = "docs/design.md §"

# A relative import that would climb further than this is written absolute.
MAX_DOTS = 2

# Where references are rewritten (relative to the repository root).
PY_ROOTS = (PACKAGE, "tests", "benchmarks", "examples", "tools")
TEXT_FILES = ("pyproject.toml", "conftest.py", "README.md", "mkdocs.yml", ".ci/run")
TEXT_ROOTS = ("docs",)
TEXT_SUFFIXES = {".py", ".md", ".toml", ".yml", ".yaml", ".cfg", ".ini", ".txt", ".sh"}


def full(rel: str | None) -> str | None:
    if rel is None:
        return None
    return f"{PACKAGE}.{rel}" if rel else PACKAGE


def module_path(name: str, is_package: bool) -> Path:
    parts = name.split(".")
    return Path(*parts, "__init__.py") if is_package else Path(*parts[:-1], parts[-1] + ".py")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, check=True, capture_output=True, text=True).stdout


# Modules that become the ``__init__`` of a package of the same name (one module per subcommand
# goes beside it later).
TO_PACKAGE = {"cli"}


@dataclass
class Plan:
    # full dotted old name -> full new name (None: the package goes away), where the name changes
    moves: dict[str, str | None] = field(default_factory=dict)
    paths: dict[Path, Path | None] = field(default_factory=dict)  # old file -> new file (None: git rm)
    relocated: set[str] = field(default_factory=set)  # old names whose file moves
    is_package_after: dict[str, bool] = field(default_factory=dict)  # old name -> a package after?
    packages: set[str] = field(default_factory=set)  # old names that are packages
    new_packages: set[str] = field(default_factory=set)  # new packages that need an __init__
    new_names: set[str] = field(default_factory=set)  # every module of the package after the move
    problems: list[str] = field(default_factory=list)


def current_modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of the package on disk (``_data`` is not code)."""
    found = {}
    for path in sorted((REPO / PACKAGE).rglob("*.py")):
        rel = path.relative_to(REPO)
        if "_data" in rel.parts or "__pycache__" in rel.parts:
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = rel
    return found


def _parents(name: str) -> set[str]:
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def expanded_modules(on_disk: dict[str, Path]) -> dict[str, str | None]:
    """MODULES with each ``X.*`` entry spelled out for the modules under X on disk (relative names)."""
    table = {old: new for old, new in MODULES.items() if not old.endswith(".*")}
    for old, new in MODULES.items():
        if not old.endswith(".*"):
            continue
        old_prefix, new_prefix = old.removesuffix(".*"), (new or "").removesuffix(".*")
        for name in on_disk:
            relative = name.removeprefix(PACKAGE + ".")
            if relative == old_prefix or relative.startswith(old_prefix + "."):
                table[relative] = new_prefix + relative.removeprefix(old_prefix)
    return table


def make_plan() -> Plan:
    plan = Plan()
    on_disk = current_modules()
    table = expanded_modules(on_disk)
    mapping = {full(old): full(new) for old, new in table.items()}
    known = set(mapping) | {new for new in mapping.values() if new}
    known |= {parent for name in list(known) for parent in _parents(name)}
    for name in sorted(set(on_disk) - known):
        plan.problems.append(f"unmapped module: {on_disk[name]} ({name}); add it to MODULES")
    for old_rel, new_rel in table.items():
        old, new = full(old_rel), full(new_rel)
        path = on_disk.get(old)
        if path is None:
            continue
        was_package = path.name == "__init__.py"
        if was_package and new is not None and new.startswith(old + "."):
            continue  # the new package that took an old module's name (plugin/, models/, judge/)
        is_package = was_package or old_rel in TO_PACKAGE
        new_path = module_path(new, is_package) if new is not None else None
        if new_path == path:
            continue
        if new is None:
            body = ast.parse((REPO / path).read_text()).body
            if len(body) > 1 or (body and not isinstance(body[0], ast.Expr)):
                plan.problems.append(f"{path} holds code: map {old} to a module instead of away")
        if was_package:
            plan.packages.add(old)
        if new != old:
            plan.moves[old] = new
        plan.relocated.add(old)
        plan.is_package_after[old] = is_package
        plan.paths[path] = new_path
    leaving = set(plan.paths)
    landing: dict[Path, Path] = {}
    for old_path, new_path in plan.paths.items():
        if new_path is None:
            continue
        if new_path in landing:
            plan.problems.append(f"{landing[new_path]} and {old_path} would both become {new_path}")
        landing[new_path] = old_path
        if (REPO / new_path).exists() and new_path not in leaving:
            plan.problems.append(f"{new_path} exists already: {old_path} cannot move there")
    after = {name for name in on_disk if name not in plan.relocated}
    after |= {plan.moves.get(old, old) for old in plan.relocated if plan.moves.get(old, old)}
    for name in sorted(after):
        plan.new_packages |= {parent for parent in _parents(name) if parent not in after}
    plan.new_names = after | plan.new_packages
    return plan


# --- rewriting ---------------------------------------------------------------------------------


def new_name_of(dotted: str, plan: Plan) -> str | None:
    """The new dotted name of a reference to an old module (or to a name inside one), or None.

    The longest old module that prefixes the reference wins, unless a longer prefix already names
    a module of the new layout (``pytest_pastbench.plugin.hooks``), so that a reference written
    for the new layout, or rewritten once, is left alone.
    """
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        head = ".".join(parts[:i])
        if head in plan.moves:
            if any(".".join(parts[:j]) in plan.new_names for j in range(i + 1, len(parts) + 1)):
                return None
            new = plan.moves[head]
            return None if new is None else ".".join([new, *parts[i:]])
    return None


def resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    here = module.split(".") if is_package else module.split(".")[:-1]
    base = here[: len(here) - level + 1]
    return ".".join([*base, *([target] if target else [])])


def relative_form(importer: str, importer_is_package: bool, target: str) -> str:
    """``target`` as a relative import from the module ``importer``: ``..core.store``."""
    here = importer.split(".") if importer_is_package else importer.split(".")[:-1]
    there = target.split(".")
    common = 0
    while common < min(len(here), len(there)) and here[common] == there[common]:
        common += 1
    return "." * (len(here) - common + 1) + ".".join(there[common:])


@dataclass
class Importer:
    """The file whose imports are rewritten: its module now and after the move."""

    old: str | None  # dotted name, None outside the package
    was_package: bool
    new: str | None
    is_package: bool
    relocated: bool

    @classmethod
    def of(cls, rel: Path, plan: Plan) -> Importer:
        if rel.parts[0] != PACKAGE or rel.suffix != ".py":
            return cls(None, False, None, False, False)
        parts = list(rel.with_suffix("").parts)
        was_package = parts[-1] == "__init__"
        if was_package:
            parts.pop()
        old = ".".join(parts)
        new = plan.moves.get(old, old) or old
        return cls(old, was_package, new, plan.is_package_after.get(old, was_package), old in plan.relocated)


def _offset(lines: list[str], line: int, col: int) -> int:
    """Character offset of ast's (line, UTF-8 byte column)."""
    before = sum(len(x) for x in lines[: line - 1])
    return before + len(lines[line - 1].encode()[:col].decode(errors="ignore"))


def rewrite_imports(source: str, rel: Path, plan: Plan, modules: set[str], warnings: list[str]) -> str:
    """Rewrite the ``from``/``import`` statements of one file for the new layout."""
    importer = Importer.of(rel, plan)
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []
    for node in ast.walk(ast.parse(source)):
        text = None
        if isinstance(node, ast.ImportFrom):
            if node.level:
                if importer.old is None:
                    continue
                absolute = resolve_relative(importer.old, importer.was_package, node.level, node.module)
            elif node.module and (node.module == PACKAGE or node.module.startswith(PACKAGE + ".")):
                absolute = node.module
            else:
                continue
            segment = source[
                _offset(lines, node.lineno, node.col_offset) : _offset(
                    lines, node.end_lineno, node.end_col_offset
                )
            ]
            text = _rewrite_from(node, segment, absolute, importer, plan, modules, warnings, rel)
        elif isinstance(node, ast.Import):
            aliases = []
            for alias in node.names:
                new = new_name_of(alias.name, plan) or alias.name
                aliases.append(new + (f" as {alias.asname}" if alias.asname else ""))
            if any(new_name_of(alias.name, plan) for alias in node.names):
                text = "import " + ", ".join(aliases)
        if text is not None:
            start = _offset(lines, node.lineno, node.col_offset)
            end = _offset(lines, node.end_lineno, node.end_col_offset)
            indent = lines[node.lineno - 1][
                : len(lines[node.lineno - 1]) - len(lines[node.lineno - 1].lstrip())
            ]
            edits.append((start, end, text.replace("\n", "\n" + indent)))
    for start, end, text in sorted(edits, reverse=True):
        source = source[:start] + text + source[end:]
    return source


def _spell(target: str, importer: Importer, relative: bool) -> str:
    """Relative stays relative up to MAX_DOTS (``..core.store``); deeper, the absolute name reads
    better than ``....core.store``."""
    if relative and importer.new is not None:
        spelled = relative_form(importer.new, importer.is_package, target)
        if len(spelled) - len(spelled.lstrip(".")) <= MAX_DOTS:
            return spelled
    return target


def _rewrite_from(  # noqa: PLR0913 (one statement's whole context)
    node: ast.ImportFrom,
    segment: str,
    absolute: str,
    importer: Importer,
    plan: Plan,
    modules: set[str],
    warnings: list[str],
    rel: Path,
) -> str | None:
    """The new text of ``from X import a, b``, or None when nothing changes.

    ``from P import name`` where ``P.name`` is a module that lands in another package becomes its
    own ``from NEWPARENT import newname as name``.
    """
    relative = node.level > 0
    target = new_name_of(absolute, plan) or absolute
    groups: dict[str, list[str]] = {}
    names_changed = False
    for alias in node.names:
        bound = alias.asname or alias.name
        submodule = f"{absolute}.{alias.name}"
        if submodule in modules or submodule in plan.moves:
            parent, _, leaf = (new_name_of(submodule, plan) or submodule).rpartition(".")
            names_changed |= parent != target or leaf != alias.name
            groups.setdefault(parent, []).append(leaf if leaf == bound else f"{leaf} as {bound}")
            continue
        renamed = MODULE_RENAMES.get((absolute.removeprefix(PACKAGE).removeprefix("."), alias.name))
        if renamed:
            names_changed = True
            if alias.asname is None:
                warnings.append(
                    f"{rel}: imports {alias.name} from {absolute} unaliased; now '{renamed} as {alias.name}'"
                )
            spelled = renamed if bound == renamed else f"{renamed} as {bound}"
        else:
            spelled = alias.name + (f" as {alias.asname}" if alias.asname else "")
        groups.setdefault(target, []).append(spelled)
    if target == absolute and not names_changed and not (relative and importer.relocated):
        return None
    if not names_changed:
        # Only the module changes: keep the names as written (parentheses, comments).
        head = re.match(r"from\s+[.\w]+\s+import", segment)
        assert head, segment
        return f"from {_spell(target, importer, relative)} import" + segment[head.end() :]
    return "\n".join(
        f"from {_spell(module, importer, relative)} import {', '.join(names)}"
        for module, names in groups.items()
    )


DOTTED = re.compile(rf"\b{PACKAGE}(?:\.[A-Za-z_]\w*)+")
SLASHED = re.compile(rf"\b{PACKAGE}(?:/[A-Za-z_]\w*)+(?:\.py|/)?")


def rewrite_text(text: str, plan: Plan) -> str:
    """Dotted names and paths of old modules in any text; citations; identifier renames."""

    def dotted(match: re.Match[str]) -> str:
        return new_name_of(match.group(0), plan) or match.group(0)

    def slashed(match: re.Match[str]) -> str:
        raw = match.group(0)
        body = raw.removesuffix(".py").removesuffix("/")
        new = new_name_of(body.replace("/", "."), plan)
        if new is None:
            return raw
        moved_package = body.replace("/", ".") in plan.packages
        if raw.endswith(".py") and not moved_package:
            return new.replace(".", "/") + ".py"
        if raw.endswith(".py"):
            return new.replace(".", "/") + "/__init__.py"
        return new.replace(".", "/") + ("/" if raw.endswith("/") else "")

    text = DOTTED.sub(dotted, text)
    text = SLASHED.sub(slashed, text)
    return CITATION.sub(CITATION_TARGET, text)


def rename_identifiers(text: str, rel: Path, plan: Plan, warnings: list[str]) -> str:
    for old, new in RENAMES.items():
        if not re.search(rf"\b{old}\b", text):
            continue
        if re.search(rf"\b{new}\b", text):
            warnings.append(f"{rel}: has both {old} and {new}; {old} left as it is (rename by hand)")
            continue
        text = re.sub(rf"\b{old}\b", new, text)
    importer = Importer.of(rel, plan)
    for (module, old), new in MODULE_RENAMES.items():
        # ``schema.World`` wherever the module is bound under its own name; the bare name in the
        # module itself. Imports were renamed by rewrite_imports.
        text = re.sub(rf"\b{module.split('.')[-1]}\.{old}\b", f"{module.split('.')[-1]}.{new}", text)
        if importer.old == full(module):
            text = re.sub(rf"\b{old}\b", new, text)
    return text


def files_to_rewrite() -> list[Path]:
    tracked = set(git("ls-files").splitlines()) | set(
        git("ls-files", "--others", "--exclude-standard").splitlines()
    )
    chosen = []
    for name in sorted(tracked):
        rel = Path(name)
        if not (REPO / rel).is_file():
            continue
        python = rel.suffix == ".py" and rel.parts[0] in PY_ROOTS
        text = name in TEXT_FILES or (rel.parts[0] in TEXT_ROOTS and rel.suffix in TEXT_SUFFIXES)
        if python or text:
            chosen.append(rel)
    # The script and its test spell old names on purpose.
    return [rel for rel in chosen if rel not in (Path("tools/relayout.py"), Path("tests/test_relayout.py"))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    parser.add_argument("--allow-dirty", action="store_true", help="run on a tree with uncommitted changes")
    parser.add_argument("--no-ruff", action="store_true", help="skip ruff's import sorting and format")
    args = parser.parse_args(argv)

    plan = make_plan()
    if plan.problems:
        print("relayout: refusing to run:", file=sys.stderr)
        for problem in plan.problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    if (
        not args.allow_dirty
        and not args.dry_run
        and git("status", "--porcelain", "--untracked-files=no").strip()
    ):
        print(
            "relayout: the git tree has uncommitted changes; commit them (or --allow-dirty)", file=sys.stderr
        )
        return 1
    if not plan.paths:
        print("relayout: every module is at its target already; nothing to do")
        return 0

    modules = set(current_modules())
    warnings: list[str] = []
    changed: dict[Path, str] = {}
    for rel in files_to_rewrite():
        source = (REPO / rel).read_text()
        text = source
        if rel.suffix == ".py":
            try:
                text = rewrite_imports(text, rel, plan, modules, warnings)
            except SyntaxError as exc:
                warnings.append(f"{rel}: not parsed ({exc}); only its text was rewritten")
        text = rewrite_text(text, plan)
        text = rename_identifiers(text, rel, plan, warnings)
        if text != source:
            changed[rel] = text

    print(f"relayout: {len(plan.paths)} files move, {len(changed)} files rewritten")
    width = max(len(str(old)) for old in plan.paths)
    for old_path, new_path in sorted(plan.paths.items()):
        print(f"  {str(old_path):<{width}} -> {new_path or '(git rm)'}")
    for package in sorted(plan.new_packages):
        print(f"  new package {package}")
    for warning in warnings:
        print(f"  warning: {warning}")
    if args.dry_run:
        return 0

    for rel, text in changed.items():
        (REPO / rel).write_text(text)
    for old_path, new_path in plan.paths.items():
        if new_path is None:
            git("rm", "-q", str(old_path))
            continue
        (REPO / new_path).parent.mkdir(parents=True, exist_ok=True)
        git("mv", str(old_path), str(new_path))
    for package in sorted(plan.new_packages):
        init = REPO / module_path(package, True)
        if not init.exists():
            relative_name = package.removeprefix(PACKAGE + ".")
            doc = NEW_PACKAGES.get(relative_name, f"{relative_name}.")
            init.write_text(f'"""{doc}"""\n')
            git("add", str(init.relative_to(REPO)))
    # Folders the move emptied (what is left in them is __pycache__) go too.
    for folder in sorted({old.parent for old in plan.paths}, key=lambda f: -len(f.parts)):
        if (REPO / folder).is_dir() and not git("ls-files", str(folder)).strip():
            shutil.rmtree(REPO / folder)
    touched = sorted({str(plan.paths.get(rel, rel)) for rel in changed if plan.paths.get(rel, rel)})
    py_files = [name for name in touched if name.endswith(".py")]
    if py_files and not args.no_ruff:
        subprocess.run(
            [*RUFF, "check", "--fix", "--select", "I,F401", "-q", *py_files], cwd=REPO, check=False
        )
        subprocess.run([*RUFF, "format", "-q", *py_files], cwd=REPO, check=False)
    leftovers = stale_references(plan)
    for leftover in leftovers:
        print(f"  left for a hand: {leftover}")
    print("relayout: done; run ruff check . && pytest tests -n 2 -m 'not slow', then commit")
    return 0


def stale_references(plan: Plan) -> list[str]:
    """References that still name a module the move took away (built names, f-strings)."""
    gone = {old for old in plan.moves if old not in plan.new_names}
    found = []
    for rel in files_to_rewrite():
        for number, line in enumerate((REPO / rel).read_text().splitlines(), 1):
            for match in DOTTED.finditer(line):
                parts = match.group(0).split(".")
                prefixes = [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
                if any(p in gone for p in prefixes) and not any(p in plan.new_names for p in prefixes[1:]):
                    found.append(f"{rel}:{number}: {match.group(0)}")
    return found


if __name__ == "__main__":
    sys.exit(main())
