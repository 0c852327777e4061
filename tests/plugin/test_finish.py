"""The end of a run on the controller: the run folder, the report written into it (or one line
why not), and the terminal report's last lines."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_pastbench.plugin.finish import PROGRESS_LEGEND, render, write_report
from tests.results.render.test_html import make_run


def pastbench_section_end(stdout: str) -> list[str]:
    """The pastbench lines just above pytest's final '=== … in Ns ===' line."""
    lines = stdout.splitlines()
    last = max(i for i, line in enumerate(lines) if line.startswith("=") and " in " in line)
    return lines[:last]


def test_a_run_writes_its_report_and_figures_and_prints_the_path_last(pytester: pytest.Pytester) -> None:
    """A run ends with the page a person opens: report.html with the PAST figures in plots/."""
    path = pytester.path / "families" / "memory" / "tiny_prefs.yaml"
    path.parent.mkdir(parents=True)
    from tests.family_samples import GOOD_MEMORY

    path.write_text(GOOD_MEMORY)
    # The project's conftest turns the report off for child runs; this run has the user's default.
    result = pytester.runpytest_subprocess(
        "families", "--pastbench-run-id=r", "-o", "pastbench_no_report=false"
    )
    assert result.ret == 0, result.stdout.str()
    run_dir = pytester.path / "reports" / "r"
    assert (run_dir / "report.html").is_file()
    assert sorted(p.name for p in (run_dir / "plots").glob("*.png")) == [
        "ablation_heatmap.png",
        "capability_delta.png",
        "frontier.png",
    ]
    page = (run_dir / "report.html").read_text()
    assert page.count('src="data:image/png;base64,') == 3  # the figures it drew, embedded once
    assert pastbench_section_end(result.stdout.str())[-1] == "report: reports/r/report.html"

    off = pytester.runpytest_subprocess("families", "--pastbench-run-id=q", "--pastbench-no-report")
    assert off.ret == 0, off.stdout.str()
    assert not (pytester.path / "reports" / "q" / "report.html").exists()
    assert not (pytester.path / "reports" / "q" / "plots").exists()
    assert not any(line.startswith("report: ") for line in off.stdout.lines)


def test_a_report_that_cannot_be_drawn_is_a_line_not_a_failed_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from pytest_pastbench.plugin.finish import write_report
    from pytest_pastbench.results.render import plots

    run_dir, _ = make_run(tmp_path)

    def broken(*args: object, **kwargs: object) -> None:
        raise TypeError("a drawing bug")

    monkeypatch.setattr(plots, "make_plots", broken)
    run = SimpleNamespace(
        summary={"configs": []},
        run_dir=run_dir,
        options=SimpleNamespace(report=True),
        report_path=None,
        interrupted=False,
        registry=None,
    )
    write_report(run)  # type: ignore[arg-type]
    assert run.report_path is None and run.report_error == "TypeError: a drawing bug"


class Terminal:
    def __init__(self, verbosity: int = 0) -> None:
        self.verbosity = verbosity
        self.lines: list[str] = []

    def write_line(self, line: str, **markup: object) -> None:
        self.lines.append(line)

    def section(self, title: str) -> None:
        self.lines.append(f"== {title}")


def finished_run(tmp_path: Path, **changes: object) -> SimpleNamespace:
    """What ``render`` and ``write_report`` read of a finished run (no protocol sections)."""
    fields: dict[str, object] = {
        "summary": {"configs": [], "run": {}},
        "records": {},
        "registry": [],
        "run_dir": tmp_path / "reports" / "r",
        "options": SimpleNamespace(agent_sandbox=True, report=True),
        "regression": None,
        "report_path": None,
        "report_error": None,
        "interrupted": False,
        "resume_command": lambda: "pytest --pastbench-resume=r",
    }
    return SimpleNamespace(**{**fields, **changes})


def test_the_report_path_is_the_last_line_and_a_partial_run_says_how_to_finish_it(tmp_path: Path) -> None:
    run = finished_run(tmp_path, report_path=tmp_path / "reports" / "r" / "report.html")
    terminal = Terminal()
    render(run, terminal)  # type: ignore[arg-type]
    assert terminal.lines[-3:] == [
        PROGRESS_LEGEND,
        f"run files: {run.run_dir}",
        f"report: {run.report_path}",
    ]
    run.summary["run"]["partial"] = {"reason": "interrupted", "finished": 3, "expected": 8}
    terminal = Terminal(verbosity=1)  # -v: words, not letters; no legend
    render(run, terminal)  # type: ignore[arg-type]
    assert PROGRESS_LEGEND not in terminal.lines
    assert terminal.lines[-1] == (
        "pastbench: PARTIAL run (interrupted: 3 of 8 items have a result); "
        "finish it with: pytest --pastbench-resume=r"
    )


def test_a_report_error_says_how_to_write_it_and_an_unsandboxed_run_is_flagged(tmp_path: Path) -> None:
    run = finished_run(
        tmp_path,
        report_error="TypeError: a drawing bug",
        options=SimpleNamespace(agent_sandbox=False, report=True),
    )
    terminal = Terminal()
    render(run, terminal)  # type: ignore[arg-type]
    assert terminal.lines[-1] == (
        f"pastbench: no report written (TypeError: a drawing bug); try: pastbench html {run.run_dir}"
    )
    assert any("ran UNSANDBOXED" in line for line in terminal.lines)


@pytest.mark.parametrize(
    "changes",
    [{"interrupted": True}, {"options": SimpleNamespace(report=False)}, {"summary": None}, {"run_dir": None}],
)
def test_no_report_after_ctrl_c_with_no_report_or_without_a_run(tmp_path: Path, changes: dict) -> None:
    run = finished_run(tmp_path / "nothing-here", **changes)
    write_report(run)  # type: ignore[arg-type]
    assert run.report_path is None and run.report_error is None  # not tried, so not failed either
