"""Selecting external agents: subprocess:/docker: specs, agent files, and clear misuse errors."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from pytest_pastbench.agents.base import HermesAgent
from pytest_pastbench.agents.external.agent_files import spec_label
from pytest_pastbench.agents.external.docker import engine_candidates
from pytest_pastbench.agents.external.process import SubprocessAgent
from pytest_pastbench.agents.registry import make_agent
from tests.family_samples import GOOD_MEMORY

REPO = Path(__file__).resolve().parents[3]
EXAMPLE_AGENT_FILE = REPO / "examples" / "subprocess-agent" / "stdio-example.yaml"
REGISTERED = {"hermes": HermesAgent}


def test_subprocess_spec_is_split_like_a_shell() -> None:
    agent = make_agent(f"subprocess:{sys.executable} -u 'my agent.py'", REGISTERED)
    assert isinstance(agent, SubprocessAgent)
    assert agent.command == [sys.executable, "-u", "my agent.py"] and agent.cwd == Path.cwd()


@pytest.mark.parametrize(
    ("spec", "label"),
    [
        (f"subprocess:{sys.executable} -u /home/me/agents/my_agent.py --fast", "my_agent"),
        ("subprocess:/opt/bin/agent-cli serve", "agent-cli"),
        ("subprocess:npx ./dist/agent.js", "agent"),
        ("docker:registry.local:5000/team/pastbench-agent:1.2 python3 /agent/a.py", "pastbench-agent"),
    ],
)
def test_a_spec_is_labelled_by_its_program_never_by_its_command_line(spec: str, label: str) -> None:
    kind, _, rest = spec.partition(":")
    assert spec_label(kind, shlex.split(rest)) == label


def test_an_agent_file_runs_its_command_from_its_own_folder() -> None:
    agent = make_agent(str(EXAMPLE_AGENT_FILE), REGISTERED)
    assert isinstance(agent, SubprocessAgent)
    # It starts in a fresh folder of its own: an argument naming a file of the agent file's folder
    # is made absolute.
    assert agent.name == "stdio-example" and agent.command == [
        "python3",
        str(EXAMPLE_AGENT_FILE.parent / "agent.py"),
    ]
    assert agent.cwd == EXAMPLE_AGENT_FILE.parent


@pytest.mark.parametrize(
    ("agent_file", "expected"),
    [
        ({"implementation": "subprocess"}, "command: Field required"),
        (
            {"implementation": "subprocess", "command": ["python3"], "network": "host"},
            "network: Extra inputs",
        ),
        ({"implementation": "subprocess", "command": "./no-such-agent"}, "no such file"),
        ({"implementation": "subprocess", "command": "no-such-program-xyz"}, "not found on PATH"),
        ({"implementation": "docker", "image": "x", "cpus": 0}, "cpus: Input should be greater than 0"),
    ],
)
def test_a_bad_agent_file_names_the_field(tmp_path: Path, agent_file: dict, expected: str) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(json.dumps(agent_file))  # JSON is YAML
    with pytest.raises(ValueError, match=expected):
        make_agent(str(path), REGISTERED)


def test_no_reachable_engine_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(
        ValueError, match=r"no container engine reachable: unix:///.*nope.sock .*--pastbench-docker-host"
    ):
        make_agent("docker:img python3 a.py", REGISTERED, docker_host=f"unix://{tmp_path}/nope.sock")


def test_engine_discovery_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "tcp://127.0.0.1:2375")
    assert engine_candidates("unix:///x.sock") == ["unix:///x.sock"]
    assert engine_candidates(None) == ["tcp://127.0.0.1:2375"]


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_the_example_subprocess_agent_runs_a_family_end_to_end(pytester: pytest.Pytester) -> None:
    (pytester.path / "families" / "memory").mkdir(parents=True)
    pytester.path.chmod(0o755)  # pytest's 0700: as root the sandbox runs the agent as another uid
    (pytester.path / "families" / "memory" / "tiny_prefs.yaml").write_text(GOOD_MEMORY)
    result = pytester.runpytest_subprocess(
        "families",
        "-k",
        "ep01",
        f"--pastbench-agent={EXAMPLE_AGENT_FILE}",
        "--pastbench-run-id=ext",
        "-n",
        "2",
    )
    assert result.ret == 0, result.stdout.str()
    summary = json.loads((pytester.path / "reports/ext/sequence_summary.json").read_text())
    [config] = summary["configs"]
    assert config["label"] == "stdio-example@pastbench/recall"
    overall = config["overall"]
    assert overall["n_episodes"] == 1 and overall["delta"] > 0 and overall["infra_blocked"] == 0
    # Every token the program used went through the gateway, and the items add up to its ledger.
    ledger = summary["run"]["model_calls"]["pastbench/recall"]
    assert overall["tokens"] == ledger["prompt_tokens"] + ledger["completion_tokens"] > 0


def test_a_crashing_agent_scores_zero_with_its_reason_not_infra(pytester: pytest.Pytester) -> None:
    (pytester.path / "families" / "memory").mkdir(parents=True)
    pytester.path.chmod(0o755)  # pytest's 0700: as root the sandbox runs the agent as another uid
    (pytester.path / "families" / "memory" / "tiny_prefs.yaml").write_text(GOOD_MEMORY)
    (pytester.path / "crash.py").write_text(
        "import sys\nsys.stdin.readline()\nraise SystemExit('no model key')\n"
    )
    result = pytester.runpytest_subprocess(
        "families",
        f"--pastbench-agent=subprocess:{sys.executable} crash.py",
        "--pastbench-run-id=crash",
        "-k",
        "ep01",
    )
    assert result.ret == 0, result.stdout.str()
    records = [
        json.loads(p.read_text()) for p in sorted((pytester.path / "reports/crash/items").glob("*.json"))
    ]
    assert [r["record"]["score"] for r in records] == [0.0, 0.0]
    assert {r["record"]["infra_blocked"] for r in records} == {False}
    assert records[0]["record"]["reasons"] == [
        "agent_error:exited with code 1 before answering turn 1 of 1 (stderr: no model key)"
    ]
    # Visible where the user looks, not only in the records: the terminal and the summary.
    reason = "exited with code 1 before answering turn 1 of 1 (stderr: no model key)"
    result.stdout.fnmatch_lines([f"2 sessions agent_error (first: {reason})"])
    summary = json.loads((pytester.path / "reports/crash/sequence_summary.json").read_text())
    assert summary["configs"][0]["label"] == "crash@pastbench/recall"  # not the command line
    assert summary["run"]["agent_errors"] == {
        "sessions": 2,
        "first": [reason],
    }


def test_the_agent_label_option_names_the_config_in_every_output(pytester: pytest.Pytester) -> None:
    (pytester.path / "families" / "memory").mkdir(parents=True)
    pytester.path.chmod(0o755)  # pytest's 0700: as root the sandbox runs the agent as another uid
    (pytester.path / "families" / "memory" / "tiny_prefs.yaml").write_text(GOOD_MEMORY)
    (pytester.path / "quiet.py").write_text("import sys\nsys.stdin.readline()\n")
    result = pytester.runpytest_subprocess(
        "families",
        f"--pastbench-agent=subprocess:{sys.executable} {pytester.path / 'quiet.py'}",
        "--pastbench-agent-label=team-agent",
        "--pastbench-run-id=label",
        "--pastbench-persistence=on",
        "-k",
        "ep01",
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["team-agent@pastbench/recall"])
    run_dir = pytester.path / "reports" / "label"
    summary = json.loads((run_dir / "sequence_summary.json").read_text())
    assert summary["configs"][0]["label"] == "team-agent@pastbench/recall"
    records = json.loads((run_dir / "sequence_results.json").read_text())["records"]
    assert {r["agent"] for r in records} == {"team-agent"}
    assert not [line for line in result.stdout.lines if "@pastbench/recall" in line and "quiet.py" in line]


def test_an_unreachable_engine_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        "--pastbench-agent=docker:img", f"--pastbench-docker-host=unix://{pytester.path}/nope.sock"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--pastbench-agent: no container engine reachable*"])
