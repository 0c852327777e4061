"""litellm internals the plugin relies on, in one place.

- ``litellm._internal_context.is_internal_call``: the flag litellm sets on its own nested calls,
  which skips its success-logging handler (the harness keeps its own ledger); a litellm without
  it just logs, so it is optional.
- ``litellm.responses.litellm_completion_transformation`` and
  ``litellm.llms.anthropic.messages.adapters``: the translations between the chat API and the
  Responses and Messages APIs that the gateway's ``/v1/responses`` and ``/v1/messages`` rest on;
  without them those endpoints cannot work, so a missing one is an ImportError naming litellm's
  version.

Callers import litellm first (``models.client.import_litellm``, which keeps its import off the
network). tests/compat/test_litellm.py checks these against the installed litellm.
"""

from __future__ import annotations

import importlib
from importlib.metadata import version
from typing import Any

RESPONSES_MODULE = "litellm.responses.litellm_completion_transformation.transformation"
MESSAGES_MODULE = "litellm.llms.anthropic.messages.adapters"


def litellm_version() -> str:
    return version("litellm")


def internal_call_flag() -> Any:
    """litellm's ``is_internal_call`` ContextVar, None when this litellm has none."""
    try:
        from litellm._internal_context import is_internal_call  # lazy: litellm, only when a model is called
    except ImportError:
        return None
    return is_internal_call


def _member(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ImportError(
            f"litellm {litellm_version()} has no {module}.{name} ({exc}); pytest-pastbench's "
            "gateway needs it (see the litellm range in its pyproject.toml)"
        ) from None


def responses_config() -> Any:
    """``LiteLLMCompletionResponsesConfig``: chat <-> Responses API translation."""
    return _member(RESPONSES_MODULE, "LiteLLMCompletionResponsesConfig")


def messages_adapter() -> Any:
    """A ``LiteLLMAnthropicMessagesAdapter``: chat <-> Anthropic Messages API translation."""
    return _member(MESSAGES_MODULE, "LiteLLMAnthropicMessagesAdapter")()
