"""The ``pastbench-agent/1`` wire format: JSON lines between the harness and an external agent.

One JSON object per line, UTF-8, on the program's stdin (harness → agent) and stdout (agent →
harness); stderr is free for the program's own logs. Every line the agent sends is validated
here; anything else is a violation (``ProtocolViolation``) (the agent's fault, see ``driver.py``).

Harness → agent: ``session_start`` once, then per user turn ``user``, answered by zero or more
``tool_call`` / ``tool_result`` rounds and one ``answer``; after the last answer ``session_end``,
and the program exits.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from pytest_pastbench.errors import ProtocolViolation

# The version every harness message carries in its ``protocol`` field (a key external programs
# already read, so it keeps its name on the wire).
WIRE_FORMAT = "pastbench-agent/1"
MAX_LINE_BYTES = 1_000_000  # one message; far above a tool call (200 kB) or an answer


# -- harness → agent ------------------------------------------------------------------------------


class ModelAccess(BaseModel):
    """The model under test, behind the run's gateway (chat completions, Responses, Messages)."""

    base_url: str = Field(description="OpenAI-compatible base URL, e.g. http://127.0.0.1:PORT/v1")
    anthropic_base_url: str = Field(description="the same gateway for the Anthropic SDK (no /v1)")
    api_key: str = Field(description="this session's gateway token (send as 'Authorization: Bearer')")
    name: str = Field(description="the model name to send; the gateway refuses any other")


class McpAccess(BaseModel):
    """The session's tool box as an MCP server (the same tools as ``tools``, the same budget)."""

    url: str = Field(description="streamable HTTP endpoint, e.g. http://127.0.0.1:PORT/mcp")
    headers: dict[str, str] = Field(description="send these with every request (the session token)")
    stdio_command: list[str] = Field(description="argv of a stdio MCP server bridged to the same tools")


class SessionInfo(BaseModel):
    index: int
    stage: str
    turns: int = Field(description="how many user turns this session has")


class BudgetInfo(BaseModel):
    tool_calls: int
    wall_s: float
    max_output_tokens: int
    temperature: float


class SessionStart(BaseModel):
    type: Literal["session_start"] = "session_start"
    protocol: str = WIRE_FORMAT
    session: SessionInfo
    model: ModelAccess
    tools: list[dict[str, Any]] = Field(description="OpenAI-style function specs of the session's tools")
    budgets: BudgetInfo
    mcp: McpAccess | None = Field(
        default=None, description="the tools over MCP, when the adapter serves them"
    )
    store_dir: str | None = Field(
        description="the item's store folder, to read only: writes go through the memory_*/skill_* tools; "
        "null when the session has no store (a stream's blind, oracle and rag harnesses)"
    )


class UserTurn(BaseModel):
    type: Literal["user"] = "user"
    turn: int
    content: str
    last: bool


class ToolResult(BaseModel):
    type: Literal["tool_result"] = "tool_result"
    id: str
    ok: bool
    content: str = Field(description="JSON text of the result, or of {'error': ...}, as a model sees it")


class SessionEnd(BaseModel):
    type: Literal["session_end"] = "session_end"


# -- agent → harness ------------------------------------------------------------------------------

_STRICT = ConfigDict(extra="forbid")


class ToolCallMessage(BaseModel):
    model_config = _STRICT
    type: Literal["tool_call"]
    id: str = Field(min_length=1, max_length=200)
    name: str = Field(min_length=1, max_length=200)
    arguments: dict[str, Any] | str = Field(default_factory=dict)


class AnswerMessage(BaseModel):
    model_config = _STRICT
    type: Literal["answer"]
    content: str


class LogMessage(BaseModel):
    model_config = _STRICT
    type: Literal["log"]
    message: str = Field(max_length=10_000)


AgentMessage = Annotated[ToolCallMessage | AnswerMessage | LogMessage, Field(discriminator="type")]
_AGENT_MESSAGE: TypeAdapter[Any] = TypeAdapter(AgentMessage)


def encode(message: BaseModel) -> bytes:
    return message.model_dump_json().encode() + b"\n"


def parse_agent_line(line: bytes, number: int) -> ToolCallMessage | AnswerMessage | LogMessage:
    """Validate line ``number`` (1-based) from the agent; ``ProtocolViolation`` says what is wrong."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError included
        raise ProtocolViolation(f"line {number} is not JSON ({str(exc)[:120]}): {_excerpt(line)}") from None
    try:
        return _AGENT_MESSAGE.validate_python(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        raise ProtocolViolation(f"line {number} breaks {WIRE_FORMAT}: {where}: {first['msg']}") from None


def _excerpt(line: bytes) -> str:
    text = line.decode("utf-8", "replace").strip()
    return repr(text[:80] + ("…" if len(text) > 80 else ""))
