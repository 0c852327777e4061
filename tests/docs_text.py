"""The project's documentation as its tests read it: README.md and every page of the docs site.

Tests that hold the docs to what they promise (an example that validates, a command's printed
output) read this text, so a passage can move between the README and a docs page without
losing its test.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def pages() -> list[Path]:
    """README.md first, then the docs pages in a stable order."""
    return [README, *sorted(DOCS.rglob("*.md"))]


@cache
def docs_text() -> str:
    return "\n\n".join(page.read_text() for page in pages())


def fenced_blocks(language: str) -> list[str]:
    """The bodies of the ```language fenced blocks of every page (``""`` for unmarked fences)."""
    return re.findall(rf"^ *```{language}\n(.*?)^ *```", docs_text(), re.S | re.M)


def command_lines(start: str) -> list[str]:
    """The command lines of the docs that start with ``start``, stripped: code lines indented as
    a block (a trailing backslash continues one onto the next) and ``$ ``-prompted lines."""
    joined = re.sub(r"\\\n\s*", " ", docs_text())
    code = (line.strip() for line in joined.splitlines() if line.startswith("    ") or line.startswith("$ "))
    return [line for line in code if line.startswith(start)]
