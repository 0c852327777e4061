"""The README and the docs pages are real: their family files validate, the options and commands
they show exist, the output they quote is what the command prints, and CI runs their set-up.

Every page is read (``tests/docs_text.py``): a passage keeps its test when it moves between the
README and a page. Commands whose quoted output a test of their own checks are listed in
``CHECKED_ELSEWHERE`` rather than run twice.
"""

from __future__ import annotations

import glob
import re
import shlex
from pathlib import Path

import pytest
import yaml

from pytest_pastbench.cli import build_parser, main
from pytest_pastbench.protocols.past.dataset.audit import describe_protocol_family
from pytest_pastbench.protocols.past.family_files import load_family
from pytest_pastbench.protocols.standalone import standalone_registry
from tests.docs_text import DOCS, README, ROOT, command_lines, docs_text, fenced_blocks, pages
from tests.family_samples import GOOD_MEMORY
from tests.quoted_runs import RunCache, expected_returncode, mismatch
from tests.quoted_runs import quoted_runs as pytest_runs

FAMILY_FORMATS = {
    "pastbench/v1",
    "pastbench/intervention-v1",
    "pastbench/stream-v1",
    "pastbench/plasticity-v1",
}
# `$ command` blocks whose output a dedicated test already compares with what the command prints.
CHECKED_ELSEWHERE = {
    "pastbench judge-agreement examples/judge-agreement/labels.jsonl": "tests/judge/test_agreement.py",
    "pastbench judge-agreement examples/judge-agreement/labels-v3-*.jsonl": "tests/judge/test_agreement.py",
}


def test_the_first_lines_are_the_two_commands_and_ci_runs_the_second() -> None:
    commands = re.findall(r"^    (\S.*)$", README.read_text(), re.M)[:2]
    assert commands[0] == "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && pytest"
    assert commands[1] == "bash .ci/run"
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert "pytest tests -n 2" in ci and 'pip install --quiet -e ".[dev]"' in ci
    # the docs site is built strictly, after the linters and before the tests
    [docs] = [i for i, line in enumerate(ci) if "mkdocs build --strict" in line]
    assert ci.index("ruff format --check .") < docs < ci.index("pytest tests -n 2")


def test_every_family_example_validates(tmp_path: Path) -> None:
    examples = [b for b in fenced_blocks("yaml") if b.startswith("format: pastbench/")]
    formats = set()
    for n, example in enumerate(examples):
        data = yaml.safe_load(example.replace("…", "x"))
        formats.add(data["format"])
        path = tmp_path / str(n) / f"{data['id']}.yaml"
        path.parent.mkdir()
        path.write_text(example.replace("…", "x"))
        if (
            describe_protocol_family(path, standalone_registry()) is None
        ):  # a PAST family (the protocols' files describe)
            family, _ = load_family(path)
            assert family.episodes, path
    assert formats == FAMILY_FORMATS  # each protocol's page shows a valid family file


def test_the_past_family_example_is_the_one_the_text_explains() -> None:
    [example] = [b for b in fenced_blocks("yaml") if b.startswith("format: pastbench/v1")]
    data = yaml.safe_load(example.replace("…", "x"))
    assert f"{data['capability']}.{data['id']}" == "update.fact_correction"
    assert data["episodes"][0]["evidence"]["stale_facts"]


def test_every_option_the_docs_name_exists_and_every_option_is_documented(
    pytestconfig: pytest.Config,
) -> None:
    registered = {
        "--" + dest.replace("_", "-") for dest in vars(pytestconfig.option) if dest.startswith("pastbench_")
    }
    named = set(re.findall(r"--pastbench-[a-z0-9]+(?:-[a-z0-9]+)*", docs_text()))
    # A docs example that declares its own protocol's option (docs/extending.md) may name it.
    declared = {f"--pastbench-{name}" for name in re.findall(r'OptionSpec\(\s*"([a-z0-9-]+)"', docs_text())}
    assert named - registered - declared == set(), "the docs name options that do not exist"
    assert registered - named == set(), "options missing from the docs (docs/options.md)"


def documented_cli_commands() -> list[str]:
    return sorted(
        {line.removeprefix("$ ") for line in command_lines("pastbench ") + command_lines("$ pastbench ")}
    )


@pytest.mark.parametrize("line", documented_cli_commands())
def test_every_pastbench_command_the_docs_show_parses(line: str) -> None:
    argv = shlex.split(line, comments=True)[1:]
    try:
        build_parser().parse_args(argv)  # an unknown subcommand or flag exits with the reason
    except SystemExit as exc:
        pytest.fail(f"{line}: {exc}")


def quoted_runs() -> list[tuple[str, list[str]]]:
    """``$ pastbench …`` lines of the docs with the output lines quoted under them (indented or
    fenced), up to a blank line or the fence's end; ``…`` marks a line left out."""
    runs = []
    lines = docs_text().splitlines()
    for i, line in enumerate(lines):
        match = re.match(r"^( *)\$ (pastbench .*)$", line)
        if match is None:
            continue
        indent, output = match.group(1), []
        for following in lines[i + 1 :]:
            if not following.strip() or following.strip().startswith("```"):
                break
            output.append(following.removeprefix(indent).rstrip())
        runs.append((match.group(2), output))
    return runs


def test_every_quoted_output_is_checked() -> None:
    commands = {command for command, _ in quoted_runs()}
    assert set(CHECKED_ELSEWHERE) <= commands, "a command listed as checked elsewhere left the docs"
    assert commands - set(CHECKED_ELSEWHERE), "no quoted output left to run here"


@pytest.mark.parametrize(
    ("command", "quoted"), [run for run in quoted_runs() if run[0] not in CHECKED_ELSEWHERE]
)
def test_the_quoted_output_is_what_the_command_prints(
    command: str, quoted: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    argv = [a for arg in shlex.split(command)[1:] for a in (sorted(glob.glob(arg)) if "*" in arg else [arg])]
    assert main(argv) == 0
    printed = iter(line.rstrip() for line in capsys.readouterr().out.splitlines())
    for line in (q for q in quoted if q != "…"):
        assert line in printed, f"{command}: the docs quote {line!r}, which it did not print (in this order)"


# Quoted one-line errors whose set-up (a container engine that is not there, a malformed
# leaderboard file) a test of their own builds; each is compared there.
ERRORS_CHECKED_ELSEWHERE = {
    "ERROR: --pastbench-agent: no container engine reachable": "tests/agents/external/test_agent_files.py",
    "ERROR: --pastbench-stream-reference=…/bad.csv": "tests/protocols/stream/servelearn/test_plugin.py",
}
# What a quoted start-up error says it is about: an option's value, or a model missing its key.
OPTION_ERROR = re.compile(r"^ERROR: (--pastbench-[a-z-]+)=(?:'([^']*)'|([^:\s]*)):")
KEY_ERROR = re.compile(r"^ERROR: (judge model )?(\S+) needs ([A-Z_]+) set in the environment")


def quoted_errors() -> list[str]:
    """The docs' inline quotes of a start-up error, `ERROR: …`, one line each (a quote may wrap)."""
    text = re.sub(r"\s*\n\s*", " ", docs_text())
    return sorted(set(re.findall(r"`(ERROR: [^`]+)`", text)))


def error_run(quote: str) -> tuple[list[str], str | None]:
    """The options that make the run print ``quote``, and the variable to unset for it."""
    if (option := OPTION_ERROR.match(quote)) is not None:
        return [f"{option.group(1)}={option.group(2) or option.group(3)}"], None
    if (key := KEY_ERROR.match(quote)) is not None:
        flag = "--pastbench-judge-model" if key.group(1) else "--pastbench-model"
        return [f"{flag}={key.group(2)}"], key.group(3)
    raise AssertionError(f"no way to produce the quoted error {quote!r}: add it to ERRORS_CHECKED_ELSEWHERE")


@pytest.mark.parametrize(
    "quote",
    [q for q in quoted_errors() if not any(q.startswith(e) for e in ERRORS_CHECKED_ELSEWHERE)],
    ids=lambda quote: quote.removeprefix("ERROR: ")[:40],
)
def test_every_quoted_start_up_error_is_what_the_run_prints(
    quote: str, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quoted error is printed by its option, word for word (``…`` stands for a part left out)."""
    options, unset = error_run(quote)
    if unset is not None:
        monkeypatch.delenv(unset, raising=False)
    family = pytester.path / "families" / "memory" / "tiny_prefs.yaml"
    family.parent.mkdir(parents=True)
    family.write_text(GOOD_MEMORY)
    result = pytester.runpytest_subprocess("families", *options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stderr.str()
    printed = [line for line in result.stderr.lines if line.startswith("ERROR: ")]
    pattern = re.escape(quote).replace(re.escape("…"), ".*")
    assert any(re.fullmatch(pattern, line) for line in printed), f"quoted {quote!r}; printed {printed}"


def test_every_quoted_error_checked_elsewhere_is_still_quoted() -> None:
    quotes = quoted_errors()
    for start in ERRORS_CHECKED_ELSEWHERE:
        assert any(q.startswith(start) for q in quotes), f"{start!r} left the docs"


def test_the_site_lists_every_page_and_the_readme_links_resolve() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())

    def leaves(nav: list[str | dict[str, str | list]]) -> list[str]:
        values = [next(iter(e.values())) if isinstance(e, dict) else e for e in nav]
        return [page for v in values for page in (leaves(v) if isinstance(v, list) else [v])]

    in_nav = set(leaves(config["nav"]))
    assert in_nav == {str(p.relative_to(DOCS)) for p in pages() if p != README}
    for target in re.findall(r"\]\((docs/[^)#]+)", README.read_text()):
        assert (ROOT / target).is_file(), target


def test_the_docs_quote_pytest_runs() -> None:
    pages_quoting = {run.page.name for run in pytest_runs()}
    assert {"README.md", "getting-started.md", "agents.md"} <= pages_quoting


@pytest.mark.slow  # whole pytest runs (the update capability, an ablation): minutes on 2 shared cores
@pytest.mark.parametrize("command", sorted({run.command for run in pytest_runs()}))
def test_every_quoted_pytest_run_is_what_the_command_prints(command: str, tmp_path: Path) -> None:
    """Each ``$ pytest …`` block, run again (once for every block quoting it): the same lines,
    with only what varies by machine masked (tests/quoted_runs.py). A stale block is regenerated
    with ``python -m tests.quoted_runs``."""
    printed = RunCache(tmp_path).get(command)
    assert printed.returncode == expected_returncode(printed.lines), (
        "\n".join(printed.lines[-40:]) + printed.stderr[-3000:]
    )
    for run in (r for r in pytest_runs() if r.command == command):
        why = mismatch(run, printed.lines)
        assert why is None, f"{why}; rerun `python -m tests.quoted_runs` to regenerate the quotes"


@pytest.mark.slow  # two runs of the Update capability: minutes on 2 shared cores
def test_the_quoted_gate_verdict_is_what_the_gate_prints(tmp_path: Path) -> None:
    """docs/ci.md quotes a failing gate after two runs it names; both run again, the verdict
    line and the run's last line are the quoted ones (the run time masked)."""
    page = re.sub(r"\s*\n\s*", " ", (DOCS / "ci.md").read_text())
    [(save, compare, last)] = re.findall(
        r"After `(pytest [^`]+--pastbench-save=main)`, `(pytest [^`]+)` printed \(and ended with `([^`]+)`\)",
        page,
    )
    [verdict] = [
        line.strip() for line in (DOCS / "ci.md").read_text().splitlines() if line.startswith("    FAIL  ")
    ]
    storage = f" -p no:cacheprovider --pastbench-storage={tmp_path / 'baselines'}"
    cache = RunCache(tmp_path)
    assert cache.get(save + storage).returncode == 0
    printed = cache.get(compare + storage)
    assert printed.returncode == 1, "\n".join(printed.lines[-20:]) + printed.stderr[-2000:]
    assert verdict in [line.strip() for line in printed.lines]
    assert re.fullmatch(rf"=* ?{re.escape(last)} in [\d.]+s(?: \([\d:]+\))? ?=*", printed.lines[-1])
