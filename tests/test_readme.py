"""The README's examples are real: its family file validates and its commands are the CI's."""

import re
from pathlib import Path

import yaml

from pytest_pastbench.schema import Family

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def test_the_family_example_validates() -> None:
    [example] = [b for b in blocks("yaml") if "format: pastbench/v1" in b]
    family = Family.model_validate(yaml.safe_load(example.replace("…", "x")))
    assert family.qualified_id == "update.fact_correction"
    assert family.episodes[0].evidence.stale_facts


def test_the_first_lines_are_the_two_commands_and_ci_runs_the_second() -> None:
    commands = re.findall(r"^    (\S.*)$", README, re.M)[:2]
    assert commands[0] == "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && pytest"
    assert commands[1] == "bash .ci/run"
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert "pytest tests -n 2" in ci and 'pip install --quiet -e ".[dev]"' in ci
