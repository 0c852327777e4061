"""The offline models come from the registered protocols (``BenchProtocol.offline_models``,
``offline_policy``, ``claim_reader``), so a protocol of a plugin can name its own."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_pastbench.errors import NotAJudgePrompt
from pytest_pastbench.judge import reference
from pytest_pastbench.judge.base import Claim, Fact
from pytest_pastbench.judge.llm import CLAIM_PROMPT_FILE, load_prompt
from pytest_pastbench.models import offline_models
from pytest_pastbench.models.direct import PolicyModel
from pytest_pastbench.protocols.base import ProtocolBase
from pytest_pastbench.protocols.standalone import standalone_registry


class Echo:
    """An offline policy that answers only conversations that start with ``echo:``."""

    catch_all = False

    def handles(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> bool:
        return str(messages[0].get("content", "")).startswith("echo:")

    def decide(
        self, policy: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> dict[str, Any]:
        return {"content": f"{policy} says {messages[0]['content']}"}


class EchoProtocol(ProtocolBase):
    name = "echo"
    format_tag = "pastbench/echo-v1"

    def __init__(self, models: dict[str, Any]) -> None:
        self.models = models

    def offline_models(self) -> dict[str, Any]:
        return self.models

    def offline_policy(self) -> Echo:
        return Echo()


def test_the_built_in_protocols_name_the_reference_policies_and_read_claims() -> None:
    assert {"blind", "recall", "curator"} <= set(offline_models.agent_policies())
    assert offline_models.claim_reader() is not None


def test_a_protocol_names_its_own_models_beside_the_others() -> None:
    protocols = [*standalone_registry(), EchoProtocol({"parrot": "PARROT"})]
    policies = offline_models.agent_policies(protocols)
    assert policies["parrot"] == "PARROT"
    assert policies["recall"] == offline_models.agent_policies()["recall"]


def test_two_protocols_naming_one_model_differently_is_an_error() -> None:
    with pytest.raises(ValueError, match="pastbench/parrot is named by protocols echo and echo"):
        offline_models.agent_policies([EchoProtocol({"parrot": 1}), EchoProtocol({"parrot": 2})])
    same = offline_models.agent_policies([EchoProtocol({"parrot": 1}), EchoProtocol({"parrot": 1})])
    assert same == {"parrot": 1}


def test_the_direct_model_answers_as_the_conversations_protocol_does(monkeypatch: pytest.MonkeyPatch) -> None:
    echo = EchoProtocol({"parrot": "PARROT"})
    monkeypatch.setattr(offline_models, "_protocols", lambda: [echo, *standalone_registry()])
    reply = PolicyModel("parrot").complete([{"role": "user", "content": "echo: hi"}], [])
    assert reply.content == "PARROT says echo: hi"
    # Any other conversation goes to the catch-all (PAST's) policy.
    assert PolicyModel("recall").complete([{"role": "user", "content": "What is my seat?"}], []).content


def test_no_protocol_answering_is_an_error_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(offline_models, "_protocols", lambda: [EchoProtocol({})])
    with pytest.raises(offline_models.NoOfflinePolicy, match="no registered protocol's offline policy"):
        offline_models.decide("any", [{"role": "user", "content": "hello"}], [])


def test_the_reference_judge_reads_facts_only_with_a_claim_reader() -> None:
    claim = Claim("Which seat?", "Your seat is 14C.", (Fact(("14C",), superseded=("9A",)),))
    messages = load_prompt(CLAIM_PROMPT_FILE).claim_messages(claim)
    verdict = json.loads(reference.reply(messages, offline_models.claim_reader()))
    assert verdict["verdict"] == "asserts_expected"
    with pytest.raises(NotAJudgePrompt, match="no registered protocol reads claims"):
        reference.reply(messages, None)
