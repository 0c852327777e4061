"""A stand-in for pytest's terminal reporter that keeps what a report writes, as lines."""

from __future__ import annotations

from typing import Any


class Terminal:
    """Sections are kept as ``== <title>``; markup (colours) is dropped."""

    def __init__(self, currentfspath: Any = None) -> None:
        self.lines: list[str] = []
        self.currentfspath = currentfspath  # a progress line named a file: a newline is pending

    def section(self, title: str) -> None:
        self.lines.append(f"== {title}")

    def write_line(self, line: str, **markup: Any) -> None:
        self.lines.append(line)
