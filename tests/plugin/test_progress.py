"""The live status line (--pastbench-progress): pytest's own -q/-v output stays what it was."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from pytest_pastbench.plugin.progress import ProgressLine, StatusScreen, eta_seconds, status_text
from tests.test_plugin import outcomes, run

# One episode of each built-in SM memory family: 6 items, a few seconds offline.
SLICE = ("--pastbench-families=builtin", "-m", "memory", "-k", "SM0 and ep01")
# A project conftest that makes the line draw at every report (not every 30 s) with a fresh ledger.
ALWAYS = (
    "from pytest_pastbench.plugin import progress\nprogress.PLAIN_EVERY_S = progress.LEDGER_EVERY_S = 0\n"
)


def screen(output: str, width: int = 80) -> list[str]:
    """What a terminal ``width`` wide shows after ``output``: CR, LF, erase line, cursor up / to a
    column, and long lines wrapped (a character past the right edge goes to the next row)."""
    rows: list[list[str]] = [[]]
    row = column = 0
    for token in re.finditer(r"\x1b\[(\d*)([A-Za-z])|\r|\n|[^\x1b\r\n]", output):
        text, number, command = token.group(0), token.group(1), token.group(2)
        if text == "\n":
            row, column = row + 1, 0
        elif text == "\r":
            column = 0
        elif command == "A":
            row -= int(number or 1)
        elif command == "G":
            column = int(number or 1) - 1
        elif command == "K":
            rows[row] = []  # 2K: the whole line
        elif command is None:
            if column >= width:
                row, column = row + 1, 0
                while len(rows) <= row:
                    rows.append([])
            rows[row] += [" "] * (column + 1 - len(rows[row]))
            rows[row][column] = text
            column += 1
        while len(rows) <= row:
            rows.append([])
    lines = ["".join(cells).rstrip() for cells in rows]
    while lines and not lines[-1]:
        lines.pop()  # blank rows under the cursor (the erased line's) show nothing
    return lines


def normalized(lines: list[str]) -> list[str]:
    """The time replaced by N, and the '=' padding pytest centres the final line with trimmed to
    one: a run that crosses 10 s (a loaded machine) adds a digit, and pytest takes one '=' off."""
    timed = (re.sub(r" in [\d.]+s( \([\d:]+\))?", " in Ns", line) for line in lines)
    return [re.sub(r"^=+ (.*?) =+$", r"= \1 =", line) for line in timed]


def test_the_line_counts_items_calls_tokens_dollars_blocked_and_eta() -> None:
    ledger = {
        "a": {"calls": 300, "prompt_tokens": 1_000_000, "completion_tokens": 204_551, "cost_usd": 0.4},
        "b": {"calls": 10, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.02},
    }
    assert status_text(12, 40, 1, ledger, 60.0) == (
        "pastbench 12/40 items · 310 calls · 1.2M tokens · $0.42 · 1 blocked · ETA 2m20s"
    )
    ledger["b"]["cost_usd"] = None  # unknown is not free
    assert "· unpriced ·" in status_text(12, 40, 1, ledger, 60.0)
    assert status_text(0, 40, 0, {}, 5.0).endswith("0 calls · 0 tokens · $0.00 · 0 blocked · ETA --")
    assert status_text(40, 40, 0, {}, 5.0).endswith("ETA 0s")
    assert "ETA 2h00m" in status_text(1, 3, 0, {}, 3600.0)


class _Writer:
    """What the line needs of pytest's TerminalWriter: ``_file``, ``fullwidth``, ``write``, ``flush``."""

    def __init__(self, width: int = 80) -> None:
        self._file = io.StringIO()
        self.fullwidth = width

    def write(self, text: str) -> None:
        self._file.write(text)

    def flush(self) -> None:
        self._file.flush()


def test_the_screen_pytest_leaves_is_the_screen_it_would_leave_without_the_line() -> None:
    plain, with_line = _Writer(), _Writer()
    status = StatusScreen(with_line)
    for part in ["collected 3 items\n", "\n", "fam.yaml ", "o", "c", "o", " [100%]", "\n", "== done =="]:
        status.show(f"pastbench {len(part)}/3 items")  # on an empty row, then under pytest's line
        for writer in (plain, with_line):
            writer.write(part)
    status.show("pastbench 3/3 items · a line much longer than the terminal is wide, cut" + "." * 60)
    raw = status._file.getvalue()
    assert "\x1b[1A" in raw and "pastbench 1/3 items" in raw  # it was drawn under pytest's line
    assert max(len(line) for line in screen(raw)) <= 79  # never wraps
    status.detach()
    assert with_line._file is status._file  # the writer has its own stream back
    assert screen(status._file.getvalue()) == screen(plain._file.getvalue())


def raw_stdout(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, str]:
    """A run and its stdout as written, carriage returns included (RunResult's lines split them)."""
    result = run(pytester, *args)
    return result, (pytester.path / "stdout").read_bytes().decode()


class _Report:
    def __init__(self, blocked: bool | None = None, nodeid: str = "a.yaml::ep01[on]") -> None:
        self.nodeid = nodeid
        if blocked is not None:  # only the report that carries an item's payload counts it
            self.pastbench = {"record": {"infra_blocked": blocked}}


def test_plain_lines_count_reports_and_blocked_items_every_30_s_reading_the_ledger_once_a_second(
    capsys: pytest.CaptureFixture[str],
) -> None:
    clock, reads = [0.0], []

    def ledger() -> dict[str, dict[str, float]]:
        reads.append(clock[0])
        return {"m": {"calls": len(reads), "prompt_tokens": 10, "completion_tokens": 5, "cost_usd": None}}

    line = ProgressLine(None, "plain", ledger, clock=lambda: clock[0])  # type: ignore[arg-type]
    line._writer = _Writer()  # what pytest_sessionstart finds on a terminal-less run
    ids = ["a.yaml::ep01[on]", "a.yaml::ep01[off]", "b.yml::ep01[on]", "test_x.py::test_plain"]
    line.pytest_xdist_node_collection_finished(None, ids)
    line.pytest_xdist_node_collection_finished(None, ids)  # the other worker: the same items
    assert line.total == 3
    line.pytest_runtest_logstart()  # t=0: the clock starts, nothing printed before 30 s
    for t, report in [(10.0, _Report(False)), (20.0, _Report()), (31.0, _Report(True)), (31.5, _Report())]:
        clock[0] = t
        line.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    assert capsys.readouterr().err.splitlines() == [
        "pastbench 2/3 items · 1 calls · 15 tokens · unpriced · 1 blocked · ETA 16s"
    ]
    clock[0] = 61.5
    line.pytest_runtest_logreport(_Report(False))  # type: ignore[arg-type]
    assert capsys.readouterr().err.splitlines() == [
        "pastbench 3/3 items · 2 calls · 15 tokens · unpriced · 1 blocked · ETA 0s"
    ]
    assert reads == [31.0, 61.5]  # read only when a line is drawn, at most once a second


def test_the_eta_is_work_left_at_the_rate_of_work_done_not_items_finished() -> None:
    """16 items in flight, the first of 100 just finished after 10 s: the ledger's tokens say ten
    items' work is done (1,000 tokens an item, by the finished one's record: 100,000 in all), so
    90 s are left; items finished per second said 990 s (the 40-minute ETA of a two-minute run)."""
    assert eta_seconds(1, 100, 10.0, tokens_now=10_000, work_tokens=100_000) == pytest.approx(90.0)
    assert "ETA 1m30s" in status_text(1, 100, 0, {"m": {"prompt_tokens": 10_000}}, 10.0, 100_000)
    # No measure of work (offline items that use no tokens): finished items per second.
    assert eta_seconds(1, 100, 10.0, tokens_now=0, work_tokens=None) == pytest.approx(990.0)
    # The estimate of the work was low (more done than it expects): items, never 0 s early.
    assert eta_seconds(50, 100, 10.0, tokens_now=90_000, work_tokens=80_000) == pytest.approx(10.0)
    assert eta_seconds(0, 100, 10.0, tokens_now=5_000, work_tokens=None) is None
    assert eta_seconds(100, 100, 10.0, tokens_now=5_000, work_tokens=5_000) == 0.0
    # Items of a kind none of which finished: no estimate, not a guess from other kinds' items.
    assert eta_seconds(5, 100, 10.0, tokens_now=5_000, work_tokens=None, unknown=True) is None


def test_the_eta_weighs_each_protocols_items_by_their_own_finished_ones(tmp_path: Path) -> None:
    """A mixed run: 10 heavy items of one protocol run first, then 90 light ones of another. The
    heavy ones' tokens said nothing of the light ones' (the ETA said 38 minutes for a 6-minute run):
    until a light item finishes there is no ETA, then each kind counts at its own size."""
    heavy = tmp_path / "heavy.yaml"
    light = tmp_path / "light.yaml"
    heavy.write_text("format: pastbench/heavy\n")
    light.write_text("format: pastbench/light\n")

    class Config:
        rootpath = tmp_path

    ids = [f"heavy.yaml::h{i}" for i in range(10)] + [f"light.yaml::l{i}" for i in range(90)]
    line = ProgressLine(Config(), "plain", dict)  # type: ignore[arg-type]
    line.pytest_xdist_node_collection_finished(None, ids)
    assert line.total == 100
    done = _Report(False, nodeid="heavy.yaml::h0")
    done.pastbench["record"].update(prompt_tokens=10_000)
    line.pytest_runtest_logreport(done)  # type: ignore[arg-type]
    assert line.expected_work() == (None, True)  # no light item finished: its size is unknown
    light_done = _Report(False, nodeid="light.yaml::l0")
    light_done.pastbench["record"].update(prompt_tokens=100)
    line.pytest_runtest_logreport(light_done)  # type: ignore[arg-type]
    assert line.expected_work() == (pytest.approx(10 * 10_000 + 90 * 100), False)


def test_the_progress_line_learns_an_items_tokens_from_finished_records(
    capsys: pytest.CaptureFixture[str],
) -> None:
    clock = [0.0]
    ledger = {"m": {"calls": 40, "prompt_tokens": 9_000, "completion_tokens": 1_000, "cost_usd": 0.0}}
    line = ProgressLine(None, "plain", lambda: ledger, clock=lambda: clock[0])  # type: ignore[arg-type]
    line._writer = _Writer()
    line.pytest_xdist_node_collection_finished(None, [f"a.yaml::ep{i:02d}[on]" for i in range(100)])
    line.pytest_runtest_logstart()
    clock[0] = 31.0
    report = _Report(False)
    report.pastbench["record"].update(prompt_tokens=900, completion_tokens=100)
    line.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    # 10,000 of 100 × 1,000 tokens done in 31 s: 279 s left (items finished said 51 minutes).
    assert capsys.readouterr().err.strip().endswith("ETA 4m39s")


class _Terminal(_Writer):
    """pytest's writer, with stderr merged into its stream as a CI log merges them."""

    def __init__(self) -> None:
        super().__init__()
        self.log = self._file


def test_in_plain_mode_the_line_waits_for_pytests_newline_and_is_a_line_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [0.0]
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal.log)  # one log, both streams
    line = ProgressLine(None, "plain", dict, clock=lambda: clock[0])  # type: ignore[arg-type]
    line._writer = terminal
    line.mode = "plain"
    from pytest_pastbench.plugin.progress import _LineTap

    line._tap = _LineTap(terminal, line._after_pytest_writes)  # what pytest_sessionstart installs
    line.pytest_xdist_node_collection_finished(None, ["a.yaml::ep01[on]", "a.yaml::ep01[off]"])
    terminal.write("families/a.yaml ")
    line.pytest_runtest_logstart()
    clock[0] = 40.0
    terminal.write("m")
    line.pytest_runtest_logreport(_Report(False))  # due, but pytest is mid-line: it waits
    assert "pastbench" not in terminal.log.getvalue()
    terminal.write("m")
    terminal.write("                    [100%]")
    terminal.write("\n")
    terminal.write("== 2 passed ==\n")
    assert terminal.log.getvalue().splitlines() == [
        "families/a.yaml mm                    [100%]",
        "pastbench 1/2 items · 0 calls · 0 tokens · $0.00 · 0 blocked · ETA 40s",
        "== 2 passed ==",
    ]
    clock[0] = 80.0
    line.pytest_runtest_logreport(_Report(False))  # between pytest's lines: at once
    assert terminal.log.getvalue().splitlines()[-1].startswith("pastbench 2/2 items")
    line.pytest_unconfigure()
    assert terminal._file is terminal.log  # the writer has its own stream back


def test_a_line_held_for_pytests_newline_says_the_counts_when_it_is_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Due while both items ran and held until pytest's "[100%]" line ended: it says 2/2, not the
    "0/2 items" a newcomer read under a finished progress line."""
    from pytest_pastbench.plugin.progress import _LineTap

    clock = [0.0]
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal.log)
    line = ProgressLine(None, "plain", dict, clock=lambda: clock[0])  # type: ignore[arg-type]
    line._writer = terminal
    line._tap = _LineTap(terminal, line._after_pytest_writes)
    line.pytest_xdist_node_collection_finished(None, ["a.yaml::ep01[on]", "a.yaml::ep01[off]"])
    terminal.write("families/a.yaml ")
    line.pytest_runtest_logstart()
    clock[0] = 40.0
    line.pytest_runtest_logstart()  # due with 0 of 2 done, pytest mid-line: held
    for letter in "oc":
        line.pytest_runtest_logreport(_Report(False))
        terminal.write(letter)
    terminal.write("  [100%]\n")
    assert terminal.log.getvalue().splitlines()[-1].startswith("pastbench 2/2 items")


@pytest.mark.parametrize("verbosity", ["-q", pytest.param("-v", marks=pytest.mark.slow)])
def test_pytests_output_is_unchanged_on_a_terminal_and_in_a_log(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, verbosity: str
) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # -v lines are longer: they wrap, and the line goes under them
    pytester.makeconftest(ALWAYS)
    results = {
        mode: raw_stdout(pytester, *SLICE, verbosity, f"--pastbench-progress={mode}", "--pastbench-run-id=p")
        for mode in ("off", "tty", "plain")
    }
    counts = outcomes(results["off"][0])
    assert counts["scored"] == counts["control"] == 3 and counts["deselected"] > 0  # the rest of the data
    assert outcomes(results["tty"][0]) == outcomes(results["plain"][0]) == outcomes(results["off"][0])
    off, tty, plain = (results[mode][1] for mode in ("off", "tty", "plain"))
    # On a terminal: drawn (and redrawn) in place, gone from the screen pytest leaves.
    assert "pastbench 5/6 items · " in tty and "pastbench 1" not in off
    assert normalized(screen(tty)) == normalized(screen(off))
    # In a log: lines on stderr, pytest's stdout byte for byte what it was.
    assert normalized(plain.splitlines()) == normalized(off.splitlines())
    lines = [line for line in results["plain"][0].errlines if line.startswith("pastbench ")]
    assert lines[-1].startswith("pastbench 6/6 items · ") and lines[-1].endswith("· 0 blocked · ETA 0s")
    assert not [line for line in results["off"][0].errlines if line.startswith("pastbench ")]


@pytest.mark.slow
def test_under_xdist_the_controller_counts_reports_and_reads_the_gateways_ledger(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(ALWAYS)
    result = run(pytester, *SLICE, "-n", "2", "--pastbench-progress=plain")
    assert outcomes(result)["scored"] == 3
    last = [line for line in result.errlines if line.startswith("pastbench ")][-1]
    calls = int(re.search(r"· ([\d,]+) calls", last).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert last.startswith("pastbench 6/6 items") and calls > 0
    assert re.search(r"· [\d.]+k tokens · \$0\.00 · 0 blocked · ETA 0s$", last), last


def test_a_short_run_prints_no_plain_line(pytester: pytest.Pytester) -> None:
    result = run(pytester, *SLICE, "--pastbench-progress=plain")  # done long before 30 s
    assert outcomes(result)["scored"] == 3 and "pastbench 1" not in result.stderr.str()


@pytest.mark.parametrize("turned_off", [("-p", "no:pastbench_progress"), ("-o", "pastbench_progress=off")])
def test_the_line_is_turned_off_by_blocking_the_plugin_or_by_the_ini_key(
    pytester: pytest.Pytester, turned_off: tuple[str, str]
) -> None:
    pytester.makeconftest(ALWAYS)  # auto here (no terminal) is plain, a line at every report
    result = run(pytester, *SLICE, *turned_off)
    assert outcomes(result)["scored"] == 3
    assert "pastbench 1" not in result.stdout.str() + result.stderr.str()


def test_a_bad_mode_is_a_usage_error(pytester: pytest.Pytester) -> None:
    bad = run(pytester, "--pastbench-progress=loud")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    assert "--pastbench-progress='loud': choose one of auto, tty, plain, off" in bad.stderr.str()
