"""One session of an external agent: the ``pastbench-agent/1`` conversation and its outcomes.

``ExternalAgent.run_session`` opens a gateway scope (the session's own token, bound to the item's
model), starts the program through its adapter (``process.py``, ``docker.py``), relays tool calls
to the session's tool box (so store, world, trace and checks work as for any agent), and turns
everything that can go wrong into a defined outcome:

- the agent's fault (crash, early exit, non-JSON output, an invalid message, a line over 1 MB,
  closing its input): the session scores 0 with reason ``agent_error:<what happened>``;
- the tool-call budget ran out: 0 with reason ``budget:tool_calls``, as for any agent;
- the wall-clock backstop (``wall_s``; the program is killed): ``budget_exceeded="wall_time"``,
  which the session runner turns into ``WallBackstop`` (infra_blocked, never a score). As for an
  in-process agent it is measured on the session's own clock: what the gateway made the program's
  model calls wait (rate-limit holds, retry backoff, the connection queue) is left out;
- the harness's fault (the program cannot be started, the engine fails, a model request failed
  in the gateway): ``InfraError``, so the item is ``infra_blocked``, never a silent 0.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import IO, Protocol

from pydantic import BaseModel

from pytest_pastbench.core.trace import redact, redact_text
from pytest_pastbench.errors import AgentFailure, InfraError, ProtocolViolation, SessionTimeout
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.models.gateway import AgentScope, agent_scope

from ..base import AgentResult, SessionContext
from .mcp_server import McpToolServer, SessionTools
from .mcp_stdio import TOKEN_ENV as MCP_TOKEN_ENV
from .mcp_stdio import URL_ENV as MCP_URL_ENV
from .wire import (
    MAX_LINE_BYTES,
    WIRE_FORMAT,
    AnswerMessage,
    BudgetInfo,
    LogMessage,
    McpAccess,
    ModelAccess,
    SessionEnd,
    SessionInfo,
    SessionStart,
    ToolCallMessage,
    ToolResult,
    UserTurn,
    encode,
    parse_agent_line,
)

EXIT_GRACE_S = 5.0  # after session_end, how long the program may take to exit before it is killed
# At the wall budget with a model call still in the gateway: how often to ask whether it is back.
IN_FLIGHT_POLL_S = 0.5
STDERR_TAIL_BYTES = 4000


_TOO_LONG = object()  # the reader's marker for a line over MAX_LINE_BYTES


class LineChannel:
    """JSON lines to and from a program: a reader thread, so every receive has a deadline."""

    def __init__(self, reader: IO[bytes], write: Callable[[bytes], None]) -> None:
        self._write = write
        self._lines: queue.Queue[object] = queue.Queue()
        self.received = 0
        threading.Thread(target=self._read, args=(reader,), name="pastbench-reader", daemon=True).start()

    def _read(self, reader: IO[bytes]) -> None:
        try:
            while line := reader.readline(MAX_LINE_BYTES + 1):
                if len(line) > MAX_LINE_BYTES:
                    self._lines.put(_TOO_LONG)
                    return
                self._lines.put(line)
        except (OSError, ValueError):
            pass  # the stream was closed under us: same as end of output
        self._lines.put(None)

    def send(self, message: BaseModel) -> None:
        try:
            self._write(encode(message))
        except (OSError, ValueError):
            raise AgentFailure("closed its input before the session ended") from None

    def receive(self, deadline: float) -> bytes | None:
        """The next line, or None at end of output; ``SessionTimeout`` at the deadline."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SessionTimeout
        try:
            line = self._lines.get(timeout=remaining)
        except queue.Empty:
            raise SessionTimeout from None
        if line is _TOO_LONG:
            raise AgentFailure(f"sent a line over {MAX_LINE_BYTES} bytes")
        if line is not None:
            self.received += 1
        return line  # type: ignore[return-value]


class WallBudget:
    """The session's wall budget on its own clock (``SessionClock``), less the gateway's waits.

    The gateway reports them per call (``AgentScope.waits``); asking it on every message would cost
    a request each, so the deadline is first set from the waits known so far (an early estimate:
    waits only grow) and the gateway is asked only once that passes. A model call still in the
    gateway then is judged once it is back, with its wait, as an in-process agent's call is.
    """

    def __init__(self, ctx: SessionContext, scope: AgentScope) -> None:
        self.clock = ctx.clock
        self.wall_s = ctx.budgets.wall_s
        self._scope = scope
        self._credited = 0.0  # of the scope's waits, what is in ``clock.waited_s`` already
        self._in_flight = False

    def deadline(self) -> float:
        """When the channel's wait ends, on ``time.monotonic``."""
        left = self.wall_s - self.clock.agent_s()
        if self._in_flight:
            left = max(left, IN_FLIGHT_POLL_S)
        return time.monotonic() + left

    def spent(self) -> bool:
        """At the deadline: take in the gateway's waits; whether the session's own time is up."""
        waits = self._scope.waits()
        waited = float(waits.get("waited_s") or 0.0)
        self.clock.waited_s += waited - self._credited
        self._credited = waited
        self._in_flight = bool(waits.get("in_flight"))
        return not self._in_flight and self.clock.agent_s() >= self.wall_s

    def receive(self, channel: LineChannel) -> bytes | None:
        """``channel.receive`` until a line comes or the session's own time is up."""
        while True:
            try:
                return channel.receive(self.deadline())
            except SessionTimeout:
                if self.spent():
                    raise


class AgentProcess(Protocol):
    """A started agent program, whatever runs it."""

    base_url: str  # the gateway's OpenAI base URL as the program reaches it
    mcp_url: str | None  # the session's MCP server as the program reaches it (None: not served)
    channel: LineChannel

    def connect(self, deadline: float) -> None:
        """Wait until the program's channel is up (a container's shim connecting)."""

    def exit_code(self, timeout_s: float) -> int | None:
        """The exit status once the program has exited, None if it is still running."""

    def stderr_tail(self) -> str: ...

    def stop(self) -> None:
        """Kill whatever is left and release everything (idempotent)."""


def mcp_environment(scope: AgentScope, mcp_url: str | None) -> dict[str, str]:
    """Where the session's MCP server is (``session_start.mcp`` says the same)."""
    return {MCP_URL_ENV: mcp_url, MCP_TOKEN_ENV: scope.token} if mcp_url else {}


def mcp_stdio_command() -> list[str]:
    return [sys.executable, "-m", "pytest_pastbench.agents.external.mcp_stdio"]


def agent_environment(scope: AgentScope, base_url: str) -> dict[str, str]:
    """What every external agent finds in its environment: the OpenAI and Anthropic client settings
    (the session token, never a provider key; the Anthropic SDK adds ``/v1`` itself)."""
    return {
        "OPENAI_BASE_URL": base_url,
        "OPENAI_API_KEY": scope.token,
        "ANTHROPIC_BASE_URL": base_url.removesuffix("/v1"),
        "ANTHROPIC_API_KEY": scope.token,
        "PASTBENCH_MODEL": scope.model,
        "PASTBENCH_PROTOCOL": WIRE_FORMAT,
    }


class ExternalAgent:
    """Base of the subprocess and Docker adapters: everything but starting the program."""

    serves_mcp = False  # whether the adapter can relay the session's MCP server to the program

    def __init__(self, name: str, mechanisms: list[str] | None = None) -> None:
        self.name = name
        self.mechanisms = sorted(mechanisms or [])

    def launch(
        self, ctx: SessionContext, scope: AgentScope, mcp: McpToolServer | None = None
    ) -> AgentProcess:
        """Start the program; ``InfraError`` when it cannot be (and nothing is left behind)."""
        raise NotImplementedError

    def run_session(self, ctx: SessionContext) -> AgentResult:
        result = AgentResult(answer="")
        first_event = len(ctx.trace.events)
        tools = SessionTools(ctx)
        with agent_scope(ctx.model, ctx.budgets.max_output_tokens) as scope, self._mcp(tools, scope) as mcp:
            process = self.launch(ctx, scope, mcp)
            budget = WallBudget(ctx, scope)
            failure = None
            try:
                process.connect(budget.deadline())  # no model call before it connects
                self._converse(ctx, scope, process, tools, result, budget)
            except SessionTimeout:
                result.budget_exceeded = "wall_time"
            except AgentFailure as exc:
                failure = str(exc)
            finally:
                # Before stopping it: what a still running program writes while it is being
                # killed (its input closed under it) is not why it failed.
                stderr = process.stderr_tail()
                process.stop()
            stderr = redact_text(stderr[-STDERR_TAIL_BYTES:], [scope.token])
            if failure is not None:
                result.error = _with_stderr(failure, stderr)
        for usage in scope.usage:
            result.add_usage(ModelReply(content=None, **usage))
        if scope.failures:
            # A provider outage is not the agent's fault, whatever the program made of it.
            raise InfraError(f"model gateway: {scope.failures[-1]}")
        if result.error or result.budget_exceeded:
            ctx.trace.add(
                "agent_stopped",
                session=ctx.session_index,
                error=result.error,
                budget_exceeded=result.budget_exceeded,
                stderr=stderr,
            )
        # The program may echo its session token anywhere (logs, tool arguments, its answer).
        ctx.trace.events[first_event:] = redact(ctx.trace.events[first_event:], [scope.token])
        result.answer = redact_text(result.answer, [scope.token])
        return result

    @contextlib.contextmanager
    def _mcp(self, tools: SessionTools, scope: AgentScope) -> Iterator[McpToolServer | None]:
        """The session's MCP server while the session runs (refused once it has ended)."""
        if not self.serves_mcp:
            yield None
            return
        try:
            server = McpToolServer(tools, scope.token).start()
        except (OSError, RuntimeError) as exc:
            raise InfraError(f"the session's MCP server did not start: {exc}") from None
        try:
            yield server
        finally:
            server.stop()

    def _converse(
        self,
        ctx: SessionContext,
        scope: AgentScope,
        process: AgentProcess,
        tools: SessionTools,
        result: AgentResult,
        budget: WallBudget,
    ) -> None:
        channel = process.channel
        budgets = ctx.budgets
        channel.send(
            SessionStart(
                session=SessionInfo(index=ctx.session_index, stage=ctx.stage, turns=len(ctx.user_turns)),
                model=ModelAccess(
                    base_url=process.base_url,
                    anthropic_base_url=process.base_url.removesuffix("/v1"),
                    api_key=scope.token,
                    name=scope.model,
                ),
                tools=ctx.tools.specs(),
                budgets=BudgetInfo(
                    tool_calls=budgets.tool_calls,
                    wall_s=budgets.wall_s,
                    max_output_tokens=budgets.max_output_tokens,
                    temperature=budgets.temperature,
                ),
                mcp=McpAccess(
                    url=process.mcp_url,
                    headers={"Authorization": f"Bearer {scope.token}"},
                    stdio_command=mcp_stdio_command(),
                )
                if process.mcp_url
                else None,
                store_dir=str(store.root) if (store := ctx.tools.store) is not None else None,
            )
        )
        for turn, content in enumerate(ctx.user_turns):
            ctx.trace.add("message", session=ctx.session_index, role="user", content=content)
            channel.send(UserTurn(turn=turn, content=content, last=turn == len(ctx.user_turns) - 1))
            while True:
                message = self._receive(process, budget, turn, len(ctx.user_turns))
                if tools.over_budget:  # spent over MCP while this message was on its way
                    result.budget_exceeded = "tool_calls"
                    return
                if isinstance(message, LogMessage):
                    ctx.trace.add("agent_log", session=ctx.session_index, message=message.message)
                    continue
                if isinstance(message, AnswerMessage):
                    result.answer = message.content
                    ctx.trace.add(
                        "message", session=ctx.session_index, role="assistant", content=message.content
                    )
                    break
                outcome = tools.call(message.name, message.arguments)
                if outcome is None:
                    result.budget_exceeded = "tool_calls"
                    return
                channel.send(ToolResult(id=message.id, ok=outcome[0], content=outcome[1]))
        with contextlib.suppress(AgentFailure):
            # It may have answered every turn and exited (or closed its input) without waiting
            # for session_end: nothing is lost. Failing it would depend on whether this write
            # came before or after its exit, i.e. on the machine's load.
            channel.send(SessionEnd())
        code = process.exit_code(max(0.0, min(EXIT_GRACE_S, budget.deadline() - time.monotonic())))
        ctx.trace.add("agent_exit", session=ctx.session_index, code=code)

    @staticmethod
    def _receive(
        process: AgentProcess, budget: WallBudget, turn: int, turns: int
    ) -> ToolCallMessage | AnswerMessage | LogMessage:
        line = budget.receive(process.channel)
        if line is None:
            code = process.exit_code(1.0)
            how = "closed its output" if code is None else f"exited with code {code}"
            raise AgentFailure(f"{how} before answering turn {turn + 1} of {turns}")
        try:
            return parse_agent_line(line, process.channel.received)
        except ProtocolViolation as exc:
            raise AgentFailure(str(exc)) from None


def _with_stderr(message: str, stderr: str) -> str:
    last = next((line.strip() for line in reversed(stderr.splitlines()) if line.strip()), "")
    return f"{message} (stderr: {last[:200]})" if last else message
