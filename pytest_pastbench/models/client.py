"""The one seam for model traffic: ``ModelClient``, its litellm implementation, aliases, key checks.

Agents and the judge call a ``ModelClient``, never litellm. litellm is imported lazily, on the
first call, with the local price map forced (no network at import) unless the user chose
otherwise.
"""

from __future__ import annotations

import gc
import json
import os
import random
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from difflib import get_close_matches
from email.utils import parsedate_to_datetime
from functools import cache
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import yaml

from ..compat.litellm import internal_call_flag
from ..errors import InfraError
from ..resources import agents_dir
from .litellm_warnings import silence_read_only_typeddict_warnings
from .rate_limit import Slot

OFFLINE_PREFIX = "pastbench/"


@dataclass
class ModelReply:
    content: str | None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0
    # Transport detail for the ledger, not part of the answer: never cached, never compared.
    retries: int = field(default=0, compare=False)
    # Seconds this answer waited on the harness, not on the model: a connection slot under the
    # provider's limit, a retry's backoff. Not the agent's time (its wall budget leaves it out).
    waited_s: float = field(default=0.0, compare=False)
    # The model's separate reasoning (``reasoning_content``) when the provider returns one, and
    # why the reply stopped ("length": cut at the output limit). Not in ``as_message``: a protocol
    # that passes reasoning back (ServeLearnBench's ``TurnClient``) adds it itself.
    reasoning: str | None = None
    finish_reason: str | None = None

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


LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
LOCAL_DUMMY_KEY = "pastbench-local"


@dataclass(frozen=True)
class ModelAlias:
    model: str
    key_env: str | None = None
    api_base: str | None = None
    input_cost_per_token: float | None = None
    output_cost_per_token: float | None = None

    @property
    def is_local(self) -> bool:
        """A server on this machine: it needs no provider key."""
        return bool(self.api_base) and urlsplit(str(self.api_base)).hostname in LOCAL_HOSTS

    @property
    def prices(self) -> dict[str, float] | None:
        if self.input_cost_per_token is None and self.output_cost_per_token is None:
            return None
        return {
            "input_cost_per_token": float(self.input_cost_per_token or 0.0),
            "output_cost_per_token": float(self.output_cost_per_token or 0.0),
        }


_ALIAS_FIELDS = {f.name for f in fields(ModelAlias)}


def read_aliases(source: Path) -> dict[str, ModelAlias]:
    """The ``aliases:`` table of a YAML file; ``ValueError`` naming the file and entry on misuse."""
    try:
        data = yaml.safe_load(source.read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"{source}: cannot read aliases: {exc}") from None
    table = data.get("aliases") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise ValueError(f"{source}: expected a mapping 'aliases:' of name -> {{model: ...}}")
    aliases: dict[str, ModelAlias] = {}
    for name, spec in sorted(table.items(), key=lambda kv: str(kv[0])):
        if not isinstance(spec, dict) or not isinstance(spec.get("model"), str):
            raise ValueError(f"{source}: aliases.{name}: needs at least 'model: <litellm model string>'")
        unknown = sorted(set(spec) - _ALIAS_FIELDS)
        if unknown:
            raise ValueError(
                f"{source}: aliases.{name}: unknown field {', '.join(unknown)} "
                f"(known: {', '.join(sorted(_ALIAS_FIELDS))})"
            )
        for price in ("input_cost_per_token", "output_cost_per_token"):
            if spec.get(price) is not None and not isinstance(spec[price], int | float):
                raise ValueError(f"{source}: aliases.{name}.{price}: expected a number")
        aliases[str(name)] = ModelAlias(**spec)
    return aliases


@cache
def load_aliases(path: Path | None = None) -> dict[str, ModelAlias]:
    """Aliases from ``agents/models.yaml`` (e.g. ``glm-5.1`` -> ``zai/glm-5.1``)."""
    source = path or agents_dir() / "models.yaml"
    if not source.is_file():
        return {}
    return read_aliases(source)


# The user's --pastbench-model-aliases table, read once per run (``use_alias_file``).
_user_aliases: dict[str, ModelAlias] = {}


def use_alias_file(path: str | Path | None) -> None:
    """Install the user's alias file over the built-in table (None: built-in only).

    Read here once, when options are resolved, not per call; a bad file raises ``ValueError``.
    """
    global _user_aliases
    _user_aliases = read_aliases(Path(path)) if path else {}


def resolve_model(name: str) -> ModelAlias:
    return _user_aliases.get(name) or load_aliases().get(name) or ModelAlias(model=name)


def is_offline(model: str) -> bool:
    return resolve_model(model).model.startswith(OFFLINE_PREFIX)


def model_problem(model: str, offline_names: list[str]) -> str | None:
    """Why ``model`` can never answer (an unknown offline model, alias or provider), else None.

    ``offline_names`` are the ``pastbench/`` models that fit the role (agent policies or the
    judge). Checked once at start, so a typo is one line, not one traceback per item.
    """

    def did_you_mean(word: str, choices: list[str]) -> str:
        close = get_close_matches(word, choices, n=1, cutoff=0.6)
        return f" (did you mean {close[0]}?)" if close else ""

    alias = resolve_model(model)
    if alias.model.startswith(OFFLINE_PREFIX):
        name = alias.model.removeprefix(OFFLINE_PREFIX).partition("?")[0]
        if name in offline_names:
            return None
        choices = [OFFLINE_PREFIX + n for n in offline_names]
        return f"{model}: no offline model {name!r}; choose one of {', '.join(choices)}" + did_you_mean(
            OFFLINE_PREFIX + name, choices
        )
    if alias.api_base:
        return None  # an OpenAI-compatible server the user named: litellm routes by api_base
    litellm = import_litellm()
    provider, sep, _ = alias.model.partition("/")
    if sep and provider in litellm.provider_list:
        typo = _misspelt(litellm, alias.model)
        return f"{model}: litellm lists no model {alias.model!r} (did you mean {typo}?)" if typo else None
    try:
        litellm.get_llm_provider(alias.model)
    except Exception:
        pass
    else:  # a bare model name litellm routes (gpt-4o -> openai), unless it is a near miss
        typo = _misspelt(litellm, alias.model)
        return f"{model}: litellm lists no model {alias.model!r} (did you mean {typo}?)" if typo else None
    if sep:
        return (
            f"{model}: litellm has no provider {provider!r}"
            + did_you_mean(provider, sorted(getattr(p, "value", p) for p in litellm.provider_list))
            + "; see https://docs.litellm.ai/docs/providers"
        )
    aliases = sorted({**load_aliases(), **_user_aliases})
    listed = _misspelt(litellm, alias.model)  # "gpt-4o-mni": a listed model is closer than any alias
    return (
        f"{model}: neither an alias nor a provider/model string"
        + (f" (did you mean {listed}?)" if listed else did_you_mean(model, aliases))
        + f"; aliases: {', '.join(aliases)}"
    )


def _listed_names(litellm: Any) -> dict[str, str]:
    """Every model name litellm's price map lists, bare and with its provider prefix -> its key."""
    names: dict[str, str] = {}
    for key in litellm.model_cost:
        names.setdefault(key, key)
        names.setdefault(key.partition("/")[2] or key, key)
    return names


def _misspelt(litellm: Any, model: str) -> str | None:
    """A listed model name ``model`` is one typo away from, when ``model`` itself is not listed.

    litellm answers ``get_model_info`` for any name of a known family ("claude-sonet-4-6" gets a
    made-up entry without a price), and the provider accepts the request only to fail it at run
    time in every item; a near miss of a listed name is almost always a typo. A new model litellm
    does not list yet, and close to none it does, passes."""

    listed = _listed_names(litellm)
    bare = model.partition("/")[2] if "/" in model else model
    if model in listed or bare in listed:
        return None
    close = get_close_matches(bare, [n for n in listed if "/" not in n], n=1, cutoff=0.9)
    return close[0] if close else None


def litellm_price(model: str) -> dict[str, float] | None:
    """The per-token prices litellm knows for ``model`` (provider prefixes and litellm's own name
    mapping included: "openai/gpt-4o-mini" is priced as "gpt-4o-mini"), or None when it lists none
    or lists the model at $0 (a budget could never be spent on it)."""
    litellm = import_litellm()
    try:
        info = litellm.get_model_info(model)
    except Exception:
        return None
    prices = {
        "input_cost_per_token": float(info.get("input_cost_per_token") or 0.0),
        "output_cost_per_token": float(info.get("output_cost_per_token") or 0.0),
    }
    return prices if any(prices.values()) else None


def missing_keys(model: str) -> list[str]:
    """Environment variables a real provider needs and that are not set (empty: ready)."""
    alias = resolve_model(model)
    if alias.model.startswith(OFFLINE_PREFIX) or alias.is_local:
        return []  # a server on this machine gets a dummy key when none is configured
    litellm = import_litellm()
    missing = list(litellm.validate_environment(model=alias.model, api_base=alias.api_base)["missing_keys"])
    if alias.key_env and not os.environ.get(alias.key_env):
        missing.append(alias.key_env)
    return sorted(set(missing))


def import_litellm() -> Any:
    """Import litellm the way this harness needs it: local price map, quiet, provider registered."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    silence_read_only_typeddict_warnings()  # outside pytest too (the CLI, the gateway's process)
    if "litellm" not in sys.modules:
        # Its import builds tens of thousands of objects; without the collector running over
        # them again and again it takes a quarter less CPU (measured 4.7 s -> 3.4 s here).
        collecting = gc.isenabled()
        gc.disable()
        try:
            import litellm  # noqa: F401
        finally:
            if collecting:
                gc.enable()
    import litellm  # lazy: litellm takes seconds to import, only when a model is called

    litellm.suppress_debug_info = True
    from .offline_provider import register  # lazy: imports litellm

    register()
    return litellm


@dataclass
class RetryPolicy:
    attempts: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0


DEFAULT_REQUEST_TIMEOUT_S = 120.0
# Status codes worth another attempt whatever exception class litellm maps them to.
TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
_TRANSIENT_NAMES = (
    "RateLimitError",
    "APIConnectionError",  # litellm.Timeout is a subclass
    "Timeout",
    "InternalServerError",  # also what a truncated/undecodable 200 body becomes (measured)
    "ServiceUnavailableError",
    "BadGatewayError",
)


def is_transient(litellm: Any, exc: BaseException) -> bool:
    """429, 5xx, timeouts, connection errors and undecodable bodies: another attempt may work."""
    if isinstance(exc, tuple(getattr(litellm, n) for n in _TRANSIENT_NAMES if hasattr(litellm, n))):
        return True
    if isinstance(exc, json.JSONDecodeError):
        return True  # a body cut off in transit, raised raw by a provider path litellm did not wrap
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in TRANSIENT_STATUS or status >= 500)


class LiteLLMClient:
    """In-process litellm client with one retry loop (litellm's and the SDK's retries stay off).

    Thread-safe: the gateway calls one client from many threads; the only shared state is the
    jitter generator and the once-only price registration.
    """

    def __init__(
        self,
        model: str,
        retry: RetryPolicy | None = None,
        seed: int = 0,
        timeout_s: float | None = DEFAULT_REQUEST_TIMEOUT_S,
        sleep: Callable[[float], None] = time.sleep,
        gate: Callable[[], AbstractContextManager[Slot]] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.model = model
        self.alias = resolve_model(model)
        self.retry = retry or RetryPolicy()
        self.timeout_s = timeout_s
        self._sleep = sleep  # injectable so tests check the delay chosen, not the clock
        self._clock = clock  # times the wait for a slot (``ModelReply.waited_s``)
        # Entered around every attempt: the model service's run budget and provider limit.
        self._gate = gate or (lambda: nullcontext(Slot()))
        self._jitter = random.Random(seed)
        self._priced = False
        self._lock = threading.Lock()

    def complete(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **params: Any
    ) -> ModelReply:
        """One answer; ``reply.retries`` says how many transient errors were retried for it."""
        litellm = self._litellm()
        request: dict[str, Any] = {"model": self.alias.model, "messages": messages, **params}
        if tools:
            request["tools"] = tools
        if self.alias.api_base:
            request["api_base"] = self.alias.api_base
        api_key = os.environ.get(self.alias.key_env) if self.alias.key_env else None
        if api_key:
            request["api_key"] = api_key
        elif self.alias.is_local:
            # A local server needs no key; never send the user's real provider key to it.
            request["api_key"] = LOCAL_DUMMY_KEY
        if self.timeout_s is not None:
            request.setdefault("timeout", self.timeout_s)
        attempts = max(1, self.retry.attempts)
        last_error: Exception | None = None
        waited = 0.0
        for attempt in range(attempts):
            asked = self._clock()
            try:
                with self._gate() as slot:
                    waited += self._clock() - asked
                    response, error = self._attempt(litellm, request, slot)
            except InfraError as exc:  # the gate refused (the run's budget): nothing was sent
                exc.retries = attempt
                raise
            if error is None:
                reply = _to_reply(litellm, response, self.alias.model)
                reply.retries = attempt
                reply.waited_s = round(waited, 4)
                return reply
            if not is_transient(litellm, error):  # auth, bad request, unknown model: retrying won't help
                raise InfraError(
                    f"{self.model}: {_describe(error, self.alias.api_base)}", retries=attempt
                ) from error
            last_error = error
            if attempt + 1 < attempts:
                delay = self._delay(attempt, error)
                self._sleep(delay)
                waited += delay
        raise InfraError(
            f"{self.model}: gave up after {attempts} attempts: {_describe(last_error, self.alias.api_base)}",
            retries=attempts - 1,
        )

    def _litellm(self) -> Any:
        litellm = import_litellm()
        prices = self.alias.prices
        if prices and not self._priced:
            with self._lock:
                if not self._priced:
                    # Once per client, so completion_cost knows a price the alias file declares.
                    provider = self.alias.model.split("/", 1)[0] if "/" in self.alias.model else None
                    entry: dict[str, Any] = {**prices, "mode": "chat"}
                    if provider:
                        entry["litellm_provider"] = provider
                    litellm.register_model({self.alias.model: entry})
                    self._priced = True
        return litellm

    def _attempt(self, litellm: Any, request: dict[str, Any], slot: Slot) -> tuple[Any, Exception | None]:
        """One request on the wire: its response, or the error it ended in (marked on the slot)."""
        try:
            with _no_success_logging():  # pydantic's warnings on litellm's types: litellm_warnings.py
                return litellm.completion(**request, max_retries=0), None
        except Exception as exc:
            rate_limited = getattr(exc, "status_code", None) == 429 or isinstance(exc, litellm.RateLimitError)
            slot.failed(rate_limited, self._retry_after_s(exc) if rate_limited else None)
            return None, exc

    def _retry_after_s(self, exc: Exception) -> float | None:
        """The provider's Retry-After, capped at the policy's longest delay; None when it gave none."""
        retry_after = _retry_after(exc)
        return None if retry_after is None else min(max(retry_after, 0.0), self.retry.max_delay_s)

    def _delay(self, attempt: int, exc: Exception) -> float:
        retry_after = self._retry_after_s(exc)
        if retry_after is not None:
            return retry_after
        delay = min(self.retry.base_delay_s * 2**attempt, self.retry.max_delay_s)
        return delay * (0.5 + self._jitter.random() / 2)


@contextmanager
def _no_success_logging() -> Iterator[None]:
    """Keep litellm from handing each answered call to its logging thread pool.

    With no callbacks registered that handler still builds a full logging payload per call on a
    background thread, which took the GIL from the gateway's request threads (py-spy: about 30%
    of the gateway's samples). The harness keeps its own ledger, and the call's price is already
    in the response's hidden params, computed before the handler would run. litellm skips the
    handler for its own nested calls (``is_internal_call``, private: compat/litellm.py; a litellm
    without it just logs).
    """
    is_internal_call = internal_call_flag()
    if is_internal_call is None:
        yield
        return
    token = is_internal_call.set(True)
    try:
        yield
    finally:
        is_internal_call.reset(token)


def _to_reply(litellm: Any, response: Any, model: str) -> ModelReply:
    message = response.choices[0].message
    calls = [
        {"id": c.id, "name": c.function.name, "arguments": c.function.arguments or "{}"}
        for c in (message.tool_calls or [])
    ]
    usage = getattr(response, "usage", None)
    return ModelReply(
        content=message.content,
        tool_calls=calls,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cost_usd=_response_cost(litellm, response, model),
        reasoning=getattr(message, "reasoning_content", None) or None,
        finish_reason=getattr(response.choices[0], "finish_reason", None),
    )


def _response_cost(litellm: Any, response: Any, model: str) -> float | None:
    """The call's cost in USD; None when litellm knows no price for the model."""
    hidden = getattr(response, "_hidden_params", None) or {}
    if "response_cost" in hidden:
        # litellm priced the call already, on the request's model (measured equal to
        # completion_cost's figure); pricing it again was a tenth of the gateway's CPU per call.
        cost = hidden["response_cost"]
        return None if cost is None else float(cost)
    try:
        return float(litellm.completion_cost(completion_response=response, model=model))
    except Exception:
        # Unknown price: keep the tokens, report the cost as unknown rather than as free.
        return None


def _retry_after(exc: Exception) -> float | None:
    """Seconds the provider asked us to wait (Retry-After / retry-after-ms), if it said."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or getattr(exc, "litellm_response_headers", None) or {}
    try:
        millis = headers.get("retry-after-ms")
        if millis is not None:
            return float(millis) / 1000
        value = headers.get("retry-after") or headers.get("Retry-After")
    except (AttributeError, TypeError, ValueError):
        return None
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        pass
    try:  # the HTTP-date form
        return (parsedate_to_datetime(str(value)) - datetime.now(UTC)).total_seconds()
    except (TypeError, ValueError):
        return None


def _describe(exc: Exception | None, address: str | None = None) -> str:
    """``InternalServerError (HTTP 500): <first line>``: class, status when known, message.

    A connection that never got a reply is said as such, with the address: litellm wraps a refused
    connection in an ``InternalServerError`` with status 500, which reads as a server that
    answered with an error when nothing answered at all."""
    if exc is None:
        return "no error recorded"
    unreached = _connection_failure(exc)
    if unreached is not None:
        what, url = unreached
        where = address or url or "the provider's address"  # the address the user configured first
        return f"{what} at {where} (no HTTP reply; is the server running and the address right?)"
    status = getattr(exc, "status_code", None)
    label = f"{type(exc).__name__} (HTTP {status})" if isinstance(status, int) else type(exc).__name__
    return f"{label}: {_short(exc)}"


def _connection_failure(exc: BaseException) -> tuple[str, str | None] | None:
    """What stopped the connection (refused, name not resolved) and the URL asked for, from the
    exception's causes (litellm -> the SDK -> httpx -> the socket error); None: a reply came."""

    seen: set[int] = set()
    url: str | None = None
    what: str | None = None
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        try:
            request = getattr(current, "request", None)  # httpx raises RuntimeError when unset
        except RuntimeError:
            request = None
        if getattr(request, "url", None) is not None:
            # The deepest one: litellm's own exceptions carry a placeholder request to
            # api.openai.com whatever the provider; httpx's is the request that was tried.
            url = str(request.url)
        if isinstance(current, ConnectionRefusedError):
            what = "connection refused"
        elif isinstance(current, socket.gaierror):
            what = "host name not resolved"
        current = current.__cause__ or current.__context__
    return None if what is None else (what, url)


def _short(exc: Exception | None) -> str:
    return str(exc).strip().splitlines()[0][:300] if exc and str(exc).strip() else "no message"
