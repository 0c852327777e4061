"""The docs' quoted pytest runs: a fenced block that starts with ``$ pytest …`` is the command and,
under it, what the command prints. ``tests/test_readme.py`` runs every such block's command and
compares; this module is what the test and the regeneration share, so a quote is produced by its
command and never typed:

    python -m tests.quoted_runs            # rerun every quoted command, rewrite the blocks in place
    python -m tests.quoted_runs -k ablation   # only the blocks whose command contains "ablation"

A block quotes the whole output, or parts of it separated by a line ``…`` (each part printed as a
contiguous run of lines, in that order). What changes from machine to machine or run to run is
masked on both sides before comparing (``normalise``): the platform, rootdir and plugin lines, the
progress letters (their order under ``-n`` is the scheduler's), the durations, the run folder's
id, and a table's wall-time column. Each distinct command runs once per test session
(``RunCache``), however many pages quote it.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.docs_text import ROOT, pages

ELIDED = "…"
BLOCK = re.compile(r"^( *)```\n\1(\$ pytest [^\n]*\n.*?)^ *```", re.S | re.M)
# What a quote shows instead of the machine's own paths.
SHOWN_ROOTDIR = "/home/you/pytest-pastbench"
SHOWN_REPORT_DIR = "reports"
RUN_TIMEOUT_S = 3600  # a hang guard only: the whole-dataset quotes take minutes on a loaded machine

MASKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^platform .*$"), "platform …"),
    (re.compile(r"^rootdir: .*$"), "rootdir: …"),
    (re.compile(r"^plugins: .*$"), "plugins: …"),
    (re.compile(r"^[a-zA-Z.]+ +\[ *\d+%\]$"), "<progress letters>"),
    (re.compile(r" in \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?"), " in Ns"),
    (re.compile(r"\d{8}-\d{6}-s\d+"), "<run-id>"),
]
PADDED = re.compile(r"^=+ (.*?) =+$")  # pytest pads these to the width: the padding follows the time
# pytest's last line (padded with "=", or bare under -q)
FINAL = re.compile(r"^(?:=+ )?\d+ \w+.* in \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?(?: =+)?$")
WALL_COLUMN = "wall s/"
DEV_ONLY = re.compile(r"^hypothesis profile ")


@dataclass
class QuotedRun:
    page: Path
    command: str  # as quoted, without the "$ "
    quoted: list[str]  # the lines under it
    indent: str = ""

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.command)[1:]

    def parts(self) -> list[list[str]]:
        """The quoted lines in their contiguous parts (split at ``…``)."""
        parts: list[list[str]] = [[]]
        for line in self.quoted:
            if line == ELIDED:
                parts.append([])
            else:
                parts[-1].append(line)
        return [p for p in parts if p]


def quoted_runs() -> list[QuotedRun]:
    """Every ``$ pytest`` block of the README and the docs pages, in page order."""
    runs = []
    for page in pages():
        for match in BLOCK.finditer(page.read_text()):
            indent = match.group(1)
            first, *rest = [line.removeprefix(indent).rstrip() for line in match.group(2).splitlines()]
            runs.append(QuotedRun(page, first.removeprefix("$ "), rest, indent))
    return runs


def normalise(lines: list[str]) -> list[str]:
    """The lines with what varies between machines and runs masked (the same on both sides)."""
    out = []
    wall_at: int | None = None
    for line in lines:
        line = line.rstrip()
        for pattern, mask in MASKS:
            line = pattern.sub(mask, line)
        if (padded := PADDED.match(line)) is not None:
            line = f"= {padded.group(1)} ="
        if WALL_COLUMN in line:
            wall_at = line.index(WALL_COLUMN)  # a table of per-config wall times: load, not result
        elif not line:
            wall_at = None
        elif wall_at is not None and not set(line) <= {"-", " "}:
            line = line[:wall_at] + "<wall>"
        out.append(line)
    return out


def shown(lines: list[str], report_dir: Path) -> list[str]:
    """The printed lines as a quote shows them: the repository and report folder as a user's,
    without the lines only a developer's environment adds (the dev extras' hypothesis plugin)."""
    return [
        line.replace(str(report_dir), SHOWN_REPORT_DIR).replace(str(ROOT), SHOWN_ROOTDIR)
        for line in lines
        if not DEV_ONLY.match(line)
    ]


@dataclass
class Printed:
    lines: list[str]
    returncode: int
    stderr: str = ""


def run_command(command: str, report_dir: Path) -> Printed:
    """What ``command`` prints from the repository's root (its run files go to ``report_dir``)."""
    argv = shlex.split(command)[1:]
    env = {**os.environ, "COLUMNS": "80"}  # pytest pads and wraps to the width: a quote's is 80
    env.pop("PYTEST_ADDOPTS", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *argv, f"--pastbench-report-dir={report_dir}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        env=env,
    )
    return Printed(shown(run.stdout.splitlines(), report_dir), run.returncode, run.stderr)


@dataclass
class RunCache:
    """Each command once: several blocks (the README and a docs page) may quote the same run."""

    folder: Path
    printed: dict[str, Printed] = field(default_factory=dict)

    def get(self, command: str) -> Printed:
        if command not in self.printed:
            report_dir = self.folder / f"run{len(self.printed)}"
            self.printed[command] = run_command(command, report_dir)
        return self.printed[command]


def expected_returncode(printed: list[str]) -> int:
    """0 unless the run's own summary line counts a failure or an error."""
    summary = next((line for line in reversed(printed) if FINAL.match(line)), "")
    return 1 if re.search(r"\d+ (failed|errors?)\b", summary) else 0


def mismatch(run: QuotedRun, printed: list[str]) -> str | None:
    """Why the quote is not what the command printed; None when it is."""
    got = normalise(printed)
    if ELIDED not in run.quoted:
        want = normalise(run.quoted)
        if want == got:
            return None
        first = next(
            (n for n, (a, b) in enumerate(zip(want, got, strict=False)) if a != b), min(len(want), len(got))
        )
        return (
            f"{run.page.name}: `{run.command}`: line {first + 1} differs "
            f"(quoted {want[first : first + 1]}, printed {got[first : first + 1]})"
        )
    at = 0
    for part in run.parts():
        want = normalise(part)
        found = next((i for i in range(at, len(got) - len(want) + 1) if got[i : i + len(want)] == want), None)
        if found is None:
            return (
                f"{run.page.name}: `{run.command}`: the quoted lines {part[:2]}… were not printed (in order)"
            )
        at = found + len(want)
    return None


def _key(line: str) -> str:
    """Where a quoted part starts in a new output: the line with its numbers masked, or for
    pytest's last line (its counts change with the data) any last line."""
    if FINAL.match(line):
        return "<the run's last line>"
    return re.sub(r"[+−-]?\d+(?:\.\d+)?", "#", normalise([line])[0])


def regenerated(run: QuotedRun, printed: list[str]) -> list[str]:
    """The block's new lines: the whole output, or each quoted part re-read at the line that
    starts like it (numbers aside) with as many lines; ValueError when a part's start is gone."""
    if ELIDED not in run.quoted:
        return printed
    lines: list[str] = []
    at = 0
    for n, part in enumerate(run.parts()):
        found = next((i for i in range(at, len(printed)) if _key(printed[i]) == _key(part[0])), None)
        if found is None:
            raise ValueError(f"{run.page.name}: `{run.command}`: no printed line starts like {part[0]!r}")
        if n or run.quoted[0] == ELIDED:
            lines.append(ELIDED)
        lines += printed[found : found + len(part)]
        at = found + len(part)
    if run.quoted[-1] == ELIDED:
        lines.append(ELIDED)
    return lines


def rewrite(run: QuotedRun, lines: list[str]) -> None:
    """Put ``lines`` under the block's command in its page."""
    text = run.page.read_text()
    old = "\n".join(run.indent + line for line in [f"$ {run.command}", *run.quoted]) + "\n"
    new = "\n".join((run.indent + line).rstrip() for line in [f"$ {run.command}", *lines]) + "\n"
    assert old in text, f"{run.page}: the block of `{run.command}` is not where it was read"
    run.page.write_text(text.replace(old, new, 1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.quoted_runs", description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", dest="keyword", default="", help="only the blocks whose command contains this")
    parser.add_argument("--check", action="store_true", help="compare only, change nothing")
    args = parser.parse_args(argv)
    failed = 0
    with tempfile.TemporaryDirectory() as folder:
        cache = RunCache(Path(folder))
        for run in [r for r in quoted_runs() if args.keyword in r.command]:
            printed = cache.get(run.command)
            why = mismatch(run, printed.lines)
            print(f"{run.page.relative_to(ROOT)}: $ {run.command}: {'ok' if why is None else 'stale'}")
            if why is None or args.check:
                failed += why is not None
                continue
            try:
                rewrite(run, regenerated(run, printed.lines))
            except ValueError as exc:
                print(f"  {exc}: edit the block by hand")
                failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
