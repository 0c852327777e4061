"""Agent selection: an agent file (by name or path), a registered name, ``module:factory``, or a clear
error listing the choices."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pytest_pastbench.agents.base import HermesAgent
from pytest_pastbench.agents.registry import (
    agent_file_path,
    available_agents,
    load_agent_file,
    make_agent,
)
from pytest_pastbench.resources import agents_dir

REGISTERED = {"hermes": HermesAgent}


def agent_file(tmp_path: Path, name: str, body: dict) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(body))
    return path


def test_an_agent_name_is_a_file_of_the_agents_folder_and_a_path_is_itself(tmp_path: Path) -> None:
    assert agent_file_path("hermes-plus") == agents_dir() / "hermes-plus.yaml"
    assert agent_file_path("nobody") is None
    own = agent_file(tmp_path, "mine.yml", {"implementation": "hermes"})
    assert agent_file_path(str(own)) == own
    assert agent_file_path(str(tmp_path / "missing.yaml")) is None
    assert load_agent_file("hermes-plus")["mechanisms"] == ["E1", "E2", "E3", "E4", "E5"]
    assert load_agent_file("nobody") is None
    assert load_agent_file(str(agent_file(tmp_path, "empty.yaml", {}))) == {}


def test_an_agent_file_builds_its_implementation_named_after_the_file_with_its_mechanisms(
    tmp_path: Path,
) -> None:
    plus = make_agent("hermes-plus", REGISTERED)
    assert isinstance(plus, HermesAgent)
    assert (plus.name, plus.mechanisms) == ("hermes-plus", ["E1", "E2", "E3", "E4", "E5"])
    # implementation defaults to hermes, mechanisms to none
    mine = make_agent(str(agent_file(tmp_path, "mine.yaml", {"description": "x"})), REGISTERED)
    assert (mine.name, mine.mechanisms) == ("mine", [])


def test_the_choices_are_the_agent_files_and_the_registered_names_but_not_the_models_file() -> None:
    choices = available_agents({"zeus": HermesAgent})
    assert "hermes-plus" in choices and "zeus" in choices and "models" not in choices
    assert choices == sorted(choices)
    assert make_agent("zeus", {"zeus": HermesAgent}).name == "zeus"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_here:factory", "cannot load agent factory 'no_such_module_here:factory'"),
        ("pytest_pastbench.agents.base:Nobody", "cannot load agent factory"),
        ("absent.yaml", "agent file 'absent.yaml': no such file"),
        ("zeus", "unknown agent 'zeus'; choose one of .*module:factory, an agent file \\(.yaml\\)"),
    ],
)
def test_what_cannot_be_built_is_a_value_error_saying_why(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_agent(spec, REGISTERED)


def test_an_agent_file_naming_an_unknown_implementation_is_refused(tmp_path: Path) -> None:
    path = agent_file(tmp_path, "odd.yaml", {"implementation": "athena"})
    with pytest.raises(ValueError, match="names unknown implementation 'athena'"):
        make_agent(str(path), REGISTERED)
