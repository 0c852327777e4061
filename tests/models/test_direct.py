"""A reference policy called directly as a model client: the same reply shape litellm gives."""

from __future__ import annotations

import json

import pytest

from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.models.direct import PolicyModel
from pytest_pastbench.protocols.shared.replay import POLICIES

TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {}}}
    for name in ("memory_write", "memory_search")
]


def test_the_model_is_named_as_litellm_would_serve_it_and_an_unknown_policy_is_refused() -> None:
    name = sorted(POLICIES)[0]
    assert PolicyModel(name).model == f"pastbench/{name}"
    with pytest.raises(KeyError):
        PolicyModel("no-such-policy")


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_every_policy_answers_with_text_or_json_tool_calls_with_distinct_ids(name: str) -> None:
    messages = [
        {"role": "system", "content": "You are an assistant with a memory."},
        {"role": "user", "content": "Remember: the staging database is db-7. What is it?"},
    ]
    reply = PolicyModel(name).complete(messages, TOOLS)
    assert isinstance(reply, ModelReply)
    if reply.tool_calls:
        assert reply.content is None
        assert len({call["id"] for call in reply.tool_calls}) == len(reply.tool_calls)
        for call in reply.tool_calls:
            assert call["id"].startswith(f"call_{len(messages)}_")
            assert isinstance(json.loads(call["arguments"]), dict)
            assert call["name"] in {"memory_write", "memory_search"}
    else:
        assert isinstance(reply.content, str)
