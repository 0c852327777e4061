"""The litellm internals that pytest_pastbench/compat/litellm.py uses still exist: when a litellm
release moves one, this fails naming litellm's version and the member."""

from __future__ import annotations

import contextvars

import pytest

from pytest_pastbench.compat import litellm as compat
from pytest_pastbench.models.client import import_litellm

LITELLM = f"litellm {compat.litellm_version()}"


@pytest.fixture(scope="module", autouse=True)
def litellm_imported() -> None:
    import_litellm()  # as the gateway does: off the network


def test_the_internal_call_flag_is_a_context_variable() -> None:
    flag = compat.internal_call_flag()
    assert isinstance(flag, contextvars.ContextVar), (
        f"{LITELLM}: no litellm._internal_context.is_internal_call"
    )


def test_the_responses_translation_has_both_directions() -> None:
    config = compat.responses_config()
    for name in (
        "transform_responses_api_request_to_chat_completion_request",
        "transform_chat_completion_response_to_responses_api_response",
    ):
        assert callable(getattr(config, name, None)), f"{LITELLM}: {compat.RESPONSES_MODULE} lost {name}"


def test_the_messages_adapter_has_both_directions() -> None:
    adapter = compat.messages_adapter()
    for name in ("translate_anthropic_to_openai", "translate_openai_response_to_anthropic"):
        assert callable(getattr(adapter, name, None)), f"{LITELLM}: {compat.MESSAGES_MODULE} lost {name}"


def test_a_missing_member_is_an_import_error_naming_litellm_and_its_version() -> None:
    with pytest.raises(ImportError, match=rf"litellm {compat.litellm_version()} has no litellm\.nowhere\.X"):
        compat._member("litellm.nowhere", "X")
