"""examples/agent-ci runs as its README says: the packaged families against a user's agent."""

import json
import shutil
from pathlib import Path

import pytest

from tests.family_samples import builtin_sample

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "agent-ci"


def test_agent_ci_example_runs_the_builtin_benchmark(pytester: pytest.Pytester) -> None:
    for name in ("my_agent.py", "pyproject.toml"):
        shutil.copy(EXAMPLE / name, pytester.path / name)
    result = pytester.runpytest_subprocess(*builtin_sample("memory", "update"), "--pastbench-run-id=ci")
    assert result.ret == 0, result.stdout.str()[-2000:]
    summary = json.loads((pytester.path / "pastbench-reports/ci/sequence_summary.json").read_text())
    [config] = summary["configs"]
    assert config["label"] == "notetaker@pastbench/curator"
    assert set(config["capabilities"]) == {"memory", "update"}
    assert config["overall"]["delta"] > 0
