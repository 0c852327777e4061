"""One word, one meaning: what ``--pastbench-agent`` selects is an *agent file*; "profile" is the
intervention protocol's *user-state profile* only (the source paper's term, ``pastbench_profile``).

The agents package, its docs page, the agent files and the examples must not call an agent file a
profile again: no identifier or file name with "profile" in it, and in their prose and messages
"profile" only as "user-state profile".
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import pytest_pastbench
from pytest_pastbench.resources import agents_dir

PACKAGE = Path(pytest_pastbench.__file__).resolve().parent
REPO = Path(__file__).resolve().parents[2]
AGENTS_PACKAGE = PACKAGE / "agents"
# Where the agent meaning is written for users: the agents page, the agent files, the examples.
PROSE = [REPO / "docs" / "agents.md", *sorted(agents_dir().glob("*.yaml"))] + sorted(
    p for p in (REPO / "examples").rglob("*") if p.is_file() and p.suffix in {".md", ".py", ".sh", ".yaml"}
)
# "profile" as a word (not cProfile), unless it is the intervention protocol's user-state profile.
STRAY = re.compile(r"(?<!user-state )\bprofiles?\b", re.IGNORECASE)


def identifiers(source: str) -> set[str]:
    """Every name a module defines or uses: variables, arguments, functions, classes, attributes,
    keywords and imported modules and names."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        match node:
            case ast.Name(id=name) | ast.Attribute(attr=name) | ast.arg(arg=name):
                names.add(name)
            case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name) | ast.ClassDef(name=name):
                names.add(name)
            case ast.keyword(arg=str() as name):
                names.add(name)
            case ast.alias(name=name, asname=asname):
                names.update({name, asname or name})
            case ast.ImportFrom(module=str() as module):
                names.add(module)
    return names


def stray_words(text: str) -> list[str]:
    """The lines of ``text`` that say "profile" for anything but a user-state profile."""
    return [line.strip() for line in text.splitlines() if STRAY.search(line)]


def test_the_word_rule_tells_the_two_meanings_apart() -> None:
    assert stray_words("a profile file\nseeded by the user-state profile\ncProfile\n") == ["a profile file"]
    assert stray_words("Profiles: hermes, hermes-plus") == ["Profiles: hermes, hermes-plus"]
    source = "from .external.profiles import x\nclass SubprocessProfile: ...\ndef load_agent_profile(): ..."
    assert {name for name in identifiers(source) if "profile" in name.lower()} == {
        "external.profiles",
        "SubprocessProfile",
        "load_agent_profile",
    }


@pytest.mark.parametrize(
    "module", sorted(AGENTS_PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_no_agent_module_calls_an_agent_file_a_profile(module: Path) -> None:
    assert "profile" not in str(module.relative_to(PACKAGE)).lower()
    source = module.read_text(encoding="utf-8")
    assert not [name for name in identifiers(source) if "profile" in name.lower()]
    assert not stray_words(source)


@pytest.mark.parametrize("path", PROSE, ids=lambda p: str(p.relative_to(REPO)))
def test_the_agents_docs_files_and_examples_say_agent_file(path: Path) -> None:
    assert not stray_words(path.read_text(encoding="utf-8"))
