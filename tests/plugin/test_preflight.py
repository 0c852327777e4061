"""A run's set-up checks fail once, before collection: a model that can never answer, a missing
key, a family path that is not there; the family paths replace or join the command line's."""

from __future__ import annotations

import fnmatch
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_pastbench.plugin.preflight import add_family_paths
from pytest_pastbench.resources import families_dir
from tests.family_samples import GOOD_MEMORY
from tests.test_plugin import make_project, run


def test_a_real_model_without_its_key_stops_before_running(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    make_project(pytester, tiny_prefs=GOOD_MEMORY)
    result = run(pytester, "families", "--pastbench-model=openai/gpt-4o")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if "OPENAI_API_KEY" in line]
    assert errors == [
        "ERROR: openai/gpt-4o needs OPENAI_API_KEY set in the environment "
        "(or run offline with --pastbench-model=pastbench/recall)"
    ]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--pastbench-model=nosuchprovider/x"],
            "--pastbench-model=nosuchprovider/x: litellm has no provider*",
        ),
        (
            ["--pastbench-model=pastbench/recal"],
            "*choose one of pastbench/blind, * (did you mean pastbench/recall?)",
        ),
        (["--pastbench-model=glm5.1"], "--pastbench-model=glm5.1: * (did you mean glm-5.1?)*"),
        (
            ["--pastbench-judge-model=pastbench/jugde"],
            "*no offline model 'jugde'; choose one of pastbench/judge*",
        ),
        (["-n", "2", "--pastbench-cache=replay"], "--pastbench-cache=replay: no cache at .pastbench/cache/*"),
    ],
)
def test_a_model_that_can_never_answer_stops_the_run_at_start_in_one_line(
    pytester: pytest.Pytester, options: list[str], message: str
) -> None:
    make_project(pytester, tiny_prefs=GOOD_MEMORY)
    result = run(pytester, "families", *options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line.strip()] == [f"ERROR: {result.stderr.lines[0][7:]}"]
    assert fnmatch.fnmatchcase(result.stderr.lines[0], f"ERROR: {message}"), result.stderr.lines[0]
    assert not result.stdout.str().strip()  # nothing collected, nothing ran
    assert not (pytester.path / ".pastbench").exists() and not (pytester.path / "reports").exists()


def config_with(args: list[str], source: pytest.Config.ArgsSource) -> pytest.Config:
    return SimpleNamespace(args=list(args), args_source=source)  # type: ignore[return-value]


def test_family_paths_join_the_paths_on_the_command_line_once(tmp_path: Path) -> None:
    config = config_with(["tests", str(tmp_path.resolve())], pytest.Config.ArgsSource.ARGS)
    add_family_paths(config, [str(tmp_path), "builtin"])
    assert config.args == ["tests", str(tmp_path.resolve()), str(families_dir().resolve())]


def test_without_paths_on_the_command_line_only_the_benchmark_runs(tmp_path: Path) -> None:
    config = config_with(["tests"], pytest.Config.ArgsSource.TESTPATHS)  # the project's testpaths
    add_family_paths(config, [str(tmp_path)])
    assert config.args == [str(tmp_path.resolve())]


def test_a_family_path_that_is_not_there_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    config = config_with([], pytest.Config.ArgsSource.INVOCATION_DIR)
    with pytest.raises(pytest.UsageError) as raised:
        add_family_paths(config, ["builtin", str(tmp_path / "gone")])
    assert str(raised.value) == f"--pastbench-families={tmp_path / 'gone'}: no such file or folder"
    assert config.args == []  # nothing half-added
