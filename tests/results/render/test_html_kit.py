"""What the report's templates share: escaping of run text, JSON inside <script>, cell helpers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jinja2 import UndefinedError

from pytest_pastbench.results.render.html_kit import (
    TEMPLATES,
    breakable,
    ci_parts,
    is_numeric,
    json_for_script,
    render_template,
)


def test_json_for_script_cannot_close_the_script_and_reads_back_the_same() -> None:
    value = {"reason": "</script><script>alert(1)</script> & more", "n": [1, 2]}
    text = str(json_for_script(value))
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == value


def test_breakable_escapes_then_offers_breaks_at_the_parts_of_an_id() -> None:
    assert str(breakable("update/rule_migration.v2")) == "update/<wbr>rule_<wbr>migration.<wbr>v2"
    assert str(breakable("<b>a.b</b>")) == "&lt;b&gt;a.<wbr>b&lt;/<wbr>b&gt;"
    assert str(breakable(None)) == ""


def test_ci_parts_and_numeric_cells() -> None:
    assert ci_parts("+0.36 [+0.26, +0.47]") == ("+0.36", "+0.26, +0.47]")
    assert ci_parts("0.29") == ("0.29", None)
    for cell in ("+0.36 [+0.26, +0.47]", "−0.12", "12%", "3/4", "—", "N/A", "1,024 tokens"):
        assert is_numeric(cell), cell
    for cell in ("memory", "update/rule_migration", "", "v2 run"):
        assert not is_numeric(cell), cell


def test_templates_escape_run_text_and_fail_on_a_misspelt_name(tmp_path: Path) -> None:
    template = tmp_path / "cell.html.j2"
    template.write_text("<td>{{ reason }}</td>")
    assert str(render_template(template, {"reason": "<img src=x onerror=alert(1)>"})) == (
        "<td>&lt;img src=x onerror=alert(1)&gt;</td>"
    )
    with pytest.raises(UndefinedError):
        render_template(template, {"reasons": "typo"})


def test_a_protocols_template_can_import_the_pages_macros(tmp_path: Path) -> None:
    assert (TEMPLATES / "macros.html.j2").is_file()
    template = tmp_path / "section.html.j2"
    template.write_text('{% import "macros.html.j2" as m %}ok')
    assert str(render_template(template, {})) == "ok"
