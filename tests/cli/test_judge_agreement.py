"""``pastbench judge-agreement``: a judge's scores against human labels; exit 1 below
``--min-agreement`` or when a sample got no verdict, 2 on bad input."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_pastbench.models.client import use_alias_file
from tests.docs_text import docs_text
from tests.judge.test_agreement import EXAMPLE, run_cli, sample, write


def test_the_command_with_the_offline_judge_on_a_known_file(tmp_path: Path) -> None:
    labels = write(
        tmp_path / "l.jsonl",
        sample("Kestrel invoices are routed to the OPS-BILLING queue.", 1.0, id="all-terms"),  # judge 1.0
        sample("No idea, sorry.", 0.0, id="none"),  # judge 0.0
        sample("Kestrel invoices are not routed to the OPS-BILLING queue.", 0.0, id="negated"),  # judge 1.0
    )
    code, out, err = run_cli(str(labels))
    assert (code, err) == (0, "")
    assert re.search(r"agreement \(\|diff\| ≤ 0\.5\)\s+66\.7% \(2/3\)", out)
    assert re.search(r"mean \|judge − human\|\s+0\.33", out)
    assert re.search(r"human fail\s+1\s+1", out)  # the negated answer fools a lexical judge
    code, _, err = run_cli(str(labels), "--min-agreement", "0.9")
    assert code == 1 and "below --min-agreement 0.9" in err


def test_a_missing_file_and_bad_options_are_exit_2(tmp_path: Path) -> None:
    code, _, err = run_cli(str(tmp_path / "nope.jsonl"))
    assert code == 2 and "cannot read" in err
    code, _, err = run_cli(str(EXAMPLE), "--judge-model", "pastbench/recall")
    assert code == 2 and "not a judge" in err
    code, _, err = run_cli(str(EXAMPLE), "--scale", "0")
    assert code == 2 and "--scale must be > 0" in err


def test_a_real_judge_without_its_key_is_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, _, err = run_cli(str(EXAMPLE), "--judge-model", "openai/gpt-4o")
    assert code == 2 and "needs OPENAI_API_KEY" in err and "--judge-model=pastbench/judge" in err


def test_the_docs_show_what_the_example_prints() -> None:
    code, out, _ = run_cli(str(EXAMPLE))
    assert code == 0
    command = "$ pastbench judge-agreement examples/judge-agreement/labels.jsonl\n"
    block = re.search(rf"```\n{re.escape(command)}(.*?)```", docs_text(), re.S)
    assert block is not None, "docs: the judge-agreement example and its output"
    assert block.group(1) == out


@pytest.fixture
def reset_aliases() -> Iterator[None]:
    yield
    use_alias_file(None)  # the command installs its --model-aliases file process-wide


def test_samples_without_a_verdict_are_listed_and_exit_1(tmp_path: Path, reset_aliases: None) -> None:
    from tests.judge.test_llm import ALIAS, alias_file, judge_server
    from tests.reliability.faultserver import Fault

    labels = write(tmp_path / "l.jsonl", sample("a", 1.0), sample("b", 0.0), sample("c", 0.0))
    good = Fault("ok_text", text='{"score": 0.75, "reason": "ok"}')
    with judge_server([good, "500"], then=Fault("ok_text", text="fine")) as server:
        aliases = alias_file(tmp_path / "aliases.yaml", server)
        code, out, err = run_cli(
            str(labels), "--judge-model", ALIAS, "--model-aliases", str(aliases), "--retries", "1"
        )
    assert code == 1
    assert server.count == 1 + 1 + 3  # a verdict; a 500 (no retry left); three malformed replies
    assert re.search(r"n judged\s+1 of 3", out) and re.search(r"agreement.*100\.0% \(1/1\)", out)
    lines = err.splitlines()
    assert lines[0].startswith(
        f"{labels}:2: no verdict: infra_blocked: judge {ALIAS}: gave up after 1 attempts"
    )
    assert lines[1].startswith(f"{labels}:3: no verdict: judge_error: {ALIAS}: no valid verdict in 3 replies")
