"""What pastbench adds to pytest's final summary line ("… 1 gate failed in 9.76s").

The gates decide the exit code and a resume may have had nothing to do, so these belong where a
reader looks last. pytest has no hook for that line: this wraps the terminal reporter's public
builder of its parts, ``build_summary_stats_line``, once per part added.
"""

from __future__ import annotations

from typing import Any

Part = tuple[str, dict[str, bool]]


def add_parts(terminalreporter: Any, parts: list[Part], failed: bool = False) -> None:
    """Append ``parts`` (text, markup) to the final line; ``failed`` turns the whole line red."""
    if not parts:
        return
    build = terminalreporter.build_summary_stats_line

    def with_parts() -> tuple[list[Part], str]:
        line, color = build()
        line = [part for part in line if part[0] != "no tests ran"] + parts
        return line, "red" if failed else color

    terminalreporter.build_summary_stats_line = with_parts
