"""The one seam for model traffic: ``ModelClient``, its litellm implementation, aliases, key checks.

Agents and the judge call a ``ModelClient``, never litellm. litellm is imported lazily, on the
first call, with the local price map forced (no network at import) unless the user chose
otherwise.
"""

from __future__ import annotations

import os
import random
import time
import warnings
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import yaml

from .resources import agents_dir

OFFLINE_PREFIX = "pastbench/"
DEFAULT_MODEL = "pastbench/recall"


class InfraError(RuntimeError):
    """The harness could not get an answer (provider down after retries, bad key, harness bug).

    Items that hit it are errors with ``infra_blocked`` and this message, never a score of 0.
    """


@dataclass
class ModelReply:
    content: str | None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0

    def as_message(self) -> dict[str, Any]:
        """The OpenAI-style assistant message to append to the conversation."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["name"], "arguments": call["arguments"]},
                }
                for call in self.tool_calls
            ]
        return message


class ModelClient(Protocol):
    model: str

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **params: Any
    ) -> ModelReply: ...


@dataclass(frozen=True)
class ModelAlias:
    model: str
    key_env: str | None = None
    api_base: str | None = None


@cache
def load_aliases(path: Path | None = None) -> dict[str, ModelAlias]:
    """Aliases from ``agents/models.yaml`` (e.g. ``glm-5.1`` -> ``zai/glm-5.1``)."""
    source = path or agents_dir() / "models.yaml"
    if not source.is_file():
        return {}
    data = yaml.safe_load(source.read_text()) or {}
    return {name: ModelAlias(**spec) for name, spec in sorted((data.get("aliases") or {}).items())}


def resolve_model(name: str) -> ModelAlias:
    return load_aliases().get(name) or ModelAlias(model=name)


def is_offline(model: str) -> bool:
    return resolve_model(model).model.startswith(OFFLINE_PREFIX)


def missing_keys(model: str) -> list[str]:
    """Environment variables a real provider needs and that are not set (empty: ready)."""
    alias = resolve_model(model)
    if alias.model.startswith(OFFLINE_PREFIX):
        return []
    litellm = import_litellm()
    missing = list(litellm.validate_environment(model=alias.model, api_base=alias.api_base)["missing_keys"])
    if alias.key_env and not os.environ.get(alias.key_env):
        missing.append(alias.key_env)
    return sorted(set(missing))


def import_litellm() -> Any:
    """Import litellm the way this harness needs it: local price map, quiet, provider registered."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    from .offline.provider import register

    register()
    return litellm


@dataclass
class RetryPolicy:
    attempts: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0


class LiteLLMClient:
    """In-process litellm client with one retry loop (litellm's own retries stay off)."""

    def __init__(self, model: str, retry: RetryPolicy | None = None, seed: int = 0) -> None:
        self.model = model
        self.alias = resolve_model(model)
        self.retry = retry or RetryPolicy()
        self._jitter = random.Random(seed)

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **params: Any
    ) -> ModelReply:
        litellm = import_litellm()
        transient = tuple(
            getattr(litellm, name)
            for name in (
                "RateLimitError",
                "APIConnectionError",
                "Timeout",
                "InternalServerError",
                "ServiceUnavailableError",
                "BadGatewayError",
            )
            if hasattr(litellm, name)
        )
        request: dict[str, Any] = {"model": self.alias.model, "messages": messages, **params}
        if tools:
            request["tools"] = tools
        if self.alias.api_base:
            request["api_base"] = self.alias.api_base
        last_error: Exception | None = None
        for attempt in range(self.retry.attempts):
            try:
                with warnings.catch_warnings():
                    # litellm's own pydantic models warn on first use; not the user's concern.
                    warnings.filterwarnings("ignore", category=UserWarning, module=r"pydantic\.")
                    response = litellm.completion(**request, max_retries=0)
                return _to_reply(litellm, response, self.alias.model)
            except transient as exc:
                last_error = exc
                if attempt + 1 < self.retry.attempts:
                    time.sleep(self._delay(attempt, exc))
            except Exception as exc:  # auth, bad request, provider bugs: retrying will not help
                raise InfraError(f"{self.model}: {type(exc).__name__}: {_short(exc)}") from exc
        raise InfraError(
            f"{self.model}: gave up after {self.retry.attempts} attempts: "
            f"{type(last_error).__name__}: {_short(last_error)}"
        )

    def _delay(self, attempt: int, exc: Exception) -> float:
        retry_after = _retry_after(exc)
        if retry_after is not None:
            return min(retry_after, self.retry.max_delay_s)
        delay = min(self.retry.base_delay_s * 2**attempt, self.retry.max_delay_s)
        return delay * (0.5 + self._jitter.random() / 2)


def _to_reply(litellm: Any, response: Any, model: str) -> ModelReply:
    message = response.choices[0].message
    calls = [
        {"id": c.id, "name": c.function.name, "arguments": c.function.arguments or "{}"}
        for c in (message.tool_calls or [])
    ]
    usage = getattr(response, "usage", None)
    try:
        cost: float | None = float(litellm.completion_cost(completion_response=response, model=model))
    except Exception:
        # Unknown price: keep the tokens, report the cost as unknown rather than as free.
        cost = None
    return ModelReply(
        content=message.content,
        tool_calls=calls,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cost_usd=cost,
    )


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _short(exc: Exception | None) -> str:
    return str(exc).strip().splitlines()[0][:300] if exc and str(exc).strip() else "no message"
