"""The Jinja2 side of the report page: the environment that renders its templates, and what the
templates share (``templates/macros.html.j2`` and the helpers registered here).

Everything that came from a run (labels, reasons, model output, tool results) is untrusted text.
The templates are autoescaped (``.html.j2``: every ``{{ value }}`` is HTML-escaped unless it is
``Markup``), and ``json_for_script`` writes JSON that can sit inside
``<script type="application/json">``. The style sheet and the viewer script are included as they
are (``.css``, ``.js``: no escaping, and no run data in them).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # jinja2 is imported when a page is rendered, not at plugin start
    from jinja2 import Environment
    from markupsafe import Markup

TEMPLATES = Path(__file__).parent / "templates"
# A protocol's default section: the terminal's text of its summary, preformatted.
TEXT_SECTION = TEMPLATES / "text_section.html.j2"

# A cell that holds a number (optionally signed, with a CI, a ratio or a unit after it).
_NUMERIC = re.compile(r"^[+−-]?(\d[\d.,]*|—|N/A)(\s|$|%|/|→|\()")


def json_for_script(value: Any) -> Markup:
    """JSON that cannot end or alter a ``<script>`` element: ``<``, ``>``, ``&`` as \\u escapes.

    These characters only occur inside JSON strings, where the escapes mean the same to JSON.parse.
    """
    from markupsafe import Markup  # lazy: jinja2 and markupsafe, only when HTML is written

    text = json.dumps(value, ensure_ascii=False, sort_keys=False)
    return Markup(text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))


def ci_parts(text: str) -> tuple[str, str | None]:
    """``+0.36 [+0.26, +0.47]`` -> (``+0.36``, ``+0.26, +0.47]``): the CI may wrap under the value."""
    value, bracket, rest = str(text).partition(" [")
    return value, (rest if bracket else None)


def is_numeric(text: Any) -> bool:
    """A cell that holds a number: right-aligned in a table."""
    return bool(_NUMERIC.match(str(text)))


def breakable(text: Any) -> Markup:
    """Escaped text with a line-break opportunity (``<wbr>``) after each ``.``, ``_`` and ``/``: a
    family id wraps at its parts rather than mid-word when its column must narrow."""
    from markupsafe import Markup, escape  # lazy: jinja2 and markupsafe, only when HTML is written

    return Markup(re.sub(r"([._/])", r"\1<wbr>", str(escape("" if text is None else text))))


@cache
def environment(folder: Path) -> Environment:
    """The environment of a template in ``folder`` (a protocol's own, or the page's): its own
    folder first, then the page's templates, so any template can import the page's macros."""
    # lazy: jinja2 and markupsafe, only when HTML is written
    from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, select_autoescape

    loaders = [FileSystemLoader(folder)] + ([FileSystemLoader(TEMPLATES)] if folder != TEMPLATES else [])
    env = Environment(
        loader=ChoiceLoader(loaders),
        autoescape=select_autoescape(enabled_extensions=("html", "j2"), default_for_string=True),
        undefined=StrictUndefined,  # a misspelt name is an error, not an empty cell
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters["ci_parts"] = ci_parts
    env.filters["breakable"] = breakable
    env.tests["numeric"] = is_numeric
    return env


def render_template(template: Path, context: dict[str, Any]) -> Markup:
    """``template`` (a file) rendered with ``context``; its output is markup, safe to embed."""
    from markupsafe import Markup  # lazy: jinja2 and markupsafe, only when HTML is written

    return Markup(environment(template.parent).get_template(template.name).render(**context))
