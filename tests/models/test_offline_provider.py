"""The pastbench/ provider served through litellm, as a real model would be."""

import pytest

from pytest_pastbench.errors import InfraError
from pytest_pastbench.models.client import LiteLLMClient
from pytest_pastbench.models.offline_provider import parse_model
from pytest_pastbench.protocols.past.toolbox import ToolBox

MESSAGES = [
    {"role": "system", "content": "s"},
    {"role": "user", "content": "Who approves Halvorsen refunds?"},
]


def test_litellm_returns_tool_calls_usage_and_zero_cost() -> None:
    reply = LiteLLMClient("pastbench/recall").complete(MESSAGES, ToolBox.specs(), temperature=0)
    assert [c["name"] for c in reply.tool_calls] == ["memory_search"]
    assert '"query"' in reply.tool_calls[0]["arguments"]
    assert reply.prompt_tokens > 0 and reply.cost_usd == 0.0


def test_blind_looks_up_the_world_never_the_store() -> None:
    reply = LiteLLMClient("pastbench/blind").complete(MESSAGES, ToolBox.specs())
    # With nothing recalled a question is looked up in the team's notes (issue 29), not the store.
    assert [c["name"] for c in reply.tool_calls] == ["notes_list"]
    request = [MESSAGES[0], {"role": "user", "content": "Draft a two-line reminder about hairnets."}]
    reply = LiteLLMClient("pastbench/blind").complete(request, ToolBox.specs())
    assert reply.tool_calls == [] and reply.content


def test_unknown_offline_model_is_an_infra_error_naming_the_choices() -> None:
    with pytest.raises(InfraError, match="blind.*curator.*recall|choose one of"):
        LiteLLMClient("pastbench/oracle").complete(MESSAGES, ToolBox.specs())


def test_model_parameters_are_parsed() -> None:
    assert parse_model("pastbench/recall?latency_ms=200") == ("recall", {"latency_ms": "200"})
