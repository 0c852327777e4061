"""What pastbench adds to pytest's final summary line ("… 1 gate failed in 9.76s").

The gates decide the exit code and a resume may have had nothing to do, so these belong where a
reader looks last. pytest has no hook for that line: this wraps the terminal reporter's public
builder of its parts, ``build_summary_stats_line``, once per part added.
"""

from __future__ import annotations

import re
from typing import Any

Part = tuple[str, dict[str, bool]]

# The words of the benchmark's test statuses (Protocol.test_status), in the order the final line
# shows them. pytest orders words it does not know by the first report of each, and with the
# longest items first a control item may finish first: "8 control, 8 scored" in one run and
# "8 scored, 8 control" in the next.
STATUS_ORDER = ("scored", "control", "ablated", "measured")
_STATUS_PART = re.compile(r"^\d+ (" + "|".join(STATUS_ORDER) + r")$")


def fixed_status_order(terminalreporter: Any) -> None:
    """Show the benchmark's counts in STATUS_ORDER, where pytest put the first of them."""
    build = terminalreporter.build_summary_stats_line

    def ordered() -> tuple[list[Part], str]:
        line, color = build()
        slots = [i for i, (text, _) in enumerate(line) if _STATUS_PART.match(text)]
        ours = sorted((line[i] for i in slots), key=lambda part: STATUS_ORDER.index(part[0].split()[1]))
        line = list(line)
        for slot, part in zip(slots, ours, strict=True):
            line[slot] = part
        return line, color

    terminalreporter.build_summary_stats_line = ordered


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
