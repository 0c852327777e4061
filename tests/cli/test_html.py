"""``pastbench html RUN``: a self-contained HTML report of a run; bad input is exit 2 and one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.cli import main
from tests.results.render.test_html import make_all_protocols_run, make_run


def test_cli_writes_report_html_and_prints_its_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, _ = make_run(tmp_path)
    assert main(["html", str(run_dir)]) == 0
    assert capsys.readouterr().out.strip() == str(run_dir / "report.html")
    assert 'id="summary-table"' in (run_dir / "report.html").read_text()

    out = tmp_path / "sub" / "page.html"
    assert main(["html", str(run_dir), "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert out.is_file()


def test_cli_unreadable_run_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["html", str(tmp_path / "nothing")]) == 2
    captured = capsys.readouterr()
    assert "nothing" in captured.err and captured.out == ""


def test_a_damaged_protocol_results_file_exits_2_with_its_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = make_all_protocols_run(tmp_path, 1)
    (run_dir / "protocol_results.json").write_text("{not json")
    assert main(["html", str(run_dir)]) == 2
    assert "protocol_results.json: unreadable" in capsys.readouterr().err
    assert not (run_dir / "report.html").exists()


def test_a_page_that_cannot_be_written_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, _ = make_run(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    out = blocker / "page.html"  # its folder is a file
    assert main(["html", str(run_dir), "-o", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"pastbench html: cannot write {out}: ")
    assert len(captured.err.splitlines()) == 1 and captured.out == ""
