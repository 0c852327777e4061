"""The ``pastbench/`` litellm provider: serves the reference policies as litellm models.

Imported only when a ``pastbench/...`` model is called (it imports litellm). Going through
litellm means the offline models exercise the same request/response path, tool calls and
cost accounting as a real provider.
"""

from __future__ import annotations

import os

# The harness's rule for importing litellm (the local price map, so nothing is fetched from the
# network), applied here too, whoever imports this module first.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import hashlib  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402
from urllib.parse import parse_qs  # noqa: E402

import litellm  # noqa: E402
from litellm.types.utils import (  # noqa: E402
    ChatCompletionMessageToolCall,
    Choices,
    Function,
    Message,
    ModelResponse,
    Usage,
)

from ..judge import reference as reference_judge
from . import offline_models, sleep_model

PROVIDER = "pastbench"
_CHARS_PER_TOKEN = 4  # a documented approximation; offline usage is for relative comparisons


def parse_model(model: str) -> tuple[str, dict[str, str]]:
    """``recall?latency_ms=200`` -> ("recall", {"latency_ms": "200"})."""
    name, _, query = model.removeprefix(PROVIDER + "/").partition("?")
    return name, {k: v[-1] for k, v in parse_qs(query).items()}


class ReferencePolicyLLM(litellm.CustomLLM):
    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:  # type: ignore[override]
        return self._respond(model, messages, kwargs)

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:  # type: ignore[override]
        return self._respond(model, messages, kwargs)

    def _respond(self, model: str, messages: list, kwargs: dict[str, Any]) -> ModelResponse:
        name, params = parse_model(model)
        policy = offline_models.agent_policies().get(name)
        if policy is None and name not in (reference_judge.NAME, sleep_model.NAME):
            raise litellm.BadRequestError(
                message=f"unknown offline model pastbench/{name}; choose one of {model_names()}",
                model=model,
                llm_provider=PROVIDER,
            )
        if "latency_ms" in params:
            time.sleep(float(params["latency_ms"]) / 1000.0)
        tools = (kwargs.get("optional_params") or {}).get("tools") or []
        if name == sleep_model.NAME:
            decision = sleep_model.reply(messages, tools)
        elif policy is None:  # the reference judge
            try:
                decision = {"content": reference_judge.reply(messages, offline_models.claim_reader())}
            except reference_judge.NotAJudgePrompt as exc:
                raise litellm.BadRequestError(message=str(exc), model=model, llm_provider=PROVIDER) from None
        else:
            try:
                decision = offline_models.decide(policy, messages, tools)
            except offline_models.NoOfflinePolicy as exc:
                raise litellm.BadRequestError(message=str(exc), model=model, llm_provider=PROVIDER) from None
        if "tool_calls" in decision:
            calls = [
                ChatCompletionMessageToolCall(
                    id=_call_id(messages, index),
                    type="function",
                    function=Function(name=name, arguments=litellm.json.dumps(args)),
                )
                for index, (name, args) in enumerate(decision["tool_calls"])
            ]
            message = Message(content=None, tool_calls=calls)
            finish = "tool_calls"
            produced = sum(len(c.function.arguments) for c in calls)
        else:
            message = Message(content=decision["content"])
            finish = "stop"
            produced = len(decision["content"])
        prompt_chars = sum(len(str(m.get("content") or "")) for m in messages) + len(str(tools))
        prompt_tokens = max(1, prompt_chars // _CHARS_PER_TOKEN)
        completion_tokens = max(1, produced // _CHARS_PER_TOKEN)
        return ModelResponse(
            model=f"{PROVIDER}/{name}",
            choices=[Choices(index=0, message=message, finish_reason=finish)],
            usage=Usage(
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                total_tokens=prompt_tokens + completion_tokens,
            ),
        )


def model_names() -> list[str]:
    """Every ``pastbench/`` model name the provider serves: the protocols' policies, the sleep
    model and the reference judge."""
    return sorted([*offline_models.agent_policies(), sleep_model.NAME, reference_judge.NAME])


def _call_id(messages: list, index: int) -> str:
    # Deterministic ids keep traces and cache keys stable across runs.
    digest = hashlib.sha1(str(len(messages)).encode() + str(index).encode()).hexdigest()[:10]
    return f"call_{digest}"


_registered = False


def register() -> None:
    """Install the provider and zero prices (idempotent; no litellm globals touched per call)."""
    global _registered
    if _registered:
        return
    handler = ReferencePolicyLLM()
    existing = [p for p in (litellm.custom_provider_map or []) if p.get("provider") != PROVIDER]
    litellm.custom_provider_map = [*existing, {"provider": PROVIDER, "custom_handler": handler}]
    litellm.register_model(
        {
            f"{PROVIDER}/{name}": {
                "input_cost_per_token": 0.0,
                "output_cost_per_token": 0.0,
                "cache_creation_input_token_cost": 0.0,
                "cache_read_input_token_cost": 0.0,
                "litellm_provider": PROVIDER,
                "mode": "chat",
            }
            for name in model_names()
        }
    )
    _registered = True
