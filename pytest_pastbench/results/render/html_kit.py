"""Escaping and table markup shared by the report page's sections.

Everything that came from a run (labels, reasons, model output, tool results) is untrusted text:
``esc`` for markup, ``json_for_script`` for JSON inside ``<script type="application/json">``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

# A cell that holds a number (optionally signed, with a CI, a ratio or a unit after it).
_NUMERIC = re.compile(r"^[+−-]?(\d[\d.,]*|—|N/A)(\s|$|%|/|→|\()")


def esc(value: Any) -> str:
    from html import escape

    return escape("" if value is None else str(value), quote=True)


def json_for_script(value: Any) -> str:
    """JSON that cannot end or alter a ``<script>`` element: ``<``, ``>``, ``&`` as \\u escapes.

    These characters only occur inside JSON strings, where the escapes mean the same to JSON.parse.
    """
    text = json.dumps(value, ensure_ascii=False, sort_keys=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def ci_cell(text: str, cls: str = "") -> str:
    """``+0.36 [+0.26, +0.47]`` as a cell whose CI may wrap under the value on a narrow page."""
    value, bracket, rest = text.partition(" [")
    ci = f' <span class="ci">[{esc(rest)}</span>' if bracket else ""
    return f'<td class="num wrap {cls}">{esc(value)}{ci}</td>'


def text_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], *, table_id: str = "", labels: int = 1
) -> str:
    """A table of text cells: the first ``labels`` columns are labels (wrap anywhere), numeric
    looking cells are right-aligned; it scrolls in its own box if it still cannot fit."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for index, cell in enumerate(row):
            if index < labels:
                cells.append(f'<td class="label">{esc(cell)}</td>')
            elif " [" in cell and _NUMERIC.match(cell):
                cells.append(ci_cell(cell))
            elif _NUMERIC.match(cell):
                cells.append(f'<td class="num">{esc(cell)}</td>')
            else:
                cells.append(f"<td>{esc(cell)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    if not body:
        body.append(f'<tr><td colspan="{len(headers)}" class="muted">nothing measured</td></tr>')
    ident = f' id="{esc(table_id)}"' if table_id else ""
    return (
        f'<div class="table-wrap"><table{ident}><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )
