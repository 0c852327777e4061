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


def test_agent_ci_readme_commands_run_in_order_from_the_checkout_root() -> None:
    """Each command runs where the one before it left the shell: ``cd`` first, then the paths."""
    lines = [
        line.strip() for line in (EXAMPLE / "README.md").read_text().splitlines() if line.startswith("    ")
    ]
    root = EXAMPLE.parent.parent
    cwd = root
    for line in lines:
        command = line.split("#")[0].strip()
        if command.startswith("cd "):
            cwd = (cwd / command[3:]).resolve()
            assert cwd == EXAMPLE
        if "pip install -e" in line:
            target = line.split("pip install -e", 1)[1].split()[0]
            assert cwd == EXAMPLE, f"{line!r} runs before 'cd examples/agent-ci'"
            assert (cwd / target).resolve() == root and (root / "pyproject.toml").is_file()
        if command.startswith("pytest"):
            assert cwd == EXAMPLE, f"{line!r} runs outside the example"


def test_every_examples_report_dir_is_ignored_by_git() -> None:
    """Running an example writes its reports beside it; git status must stay clean after."""
    import subprocess
    import tomllib

    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    for project in sorted((root / "examples").glob("*/pyproject.toml")):
        ini = tomllib.loads(project.read_text()).get("tool", {}).get("pytest", {}).get("ini_options", {})
        report_dir = ini.get("pastbench_report_dir", "reports")
        inside = (project.parent / report_dir / "some-run" / "run.json").relative_to(root)
        check = subprocess.run(["git", "check-ignore", "-q", str(inside)], cwd=root, check=False)
        assert check.returncode == 0, f"{inside} is not ignored by git (.gitignore)"


def test_the_files_the_example_readme_commands_write_are_ignored_by_git() -> None:
    """``pytest … --junitxml=pastbench.xml`` from the README leaves git status clean too."""
    import re
    import subprocess

    root = EXAMPLE.parent.parent
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    written = re.findall(r"--junitxml=(\S+)", (EXAMPLE / "README.md").read_text())
    assert written, "the README no longer writes a JUnit file: drop this test"
    for name in sorted(set(written)):
        inside = (EXAMPLE / name).relative_to(root)
        check = subprocess.run(["git", "check-ignore", "-q", str(inside)], cwd=root, check=False)
        assert check.returncode == 0, f"{inside} is not ignored by git (.gitignore)"
