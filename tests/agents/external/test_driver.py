"""The driver of an external agent's session, in process: the line channel's outcomes, the wall
budget on the session's own clock less the gateway's waits, the environment a program finds, and
each way a program can fail the conversation as an ``AgentFailure`` that says what happened."""

from __future__ import annotations

import io
import os
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_pastbench.agents.base import SessionClock
from pytest_pastbench.agents.external.driver import (
    IN_FLIGHT_POLL_S,
    ExternalAgent,
    LineChannel,
    WallBudget,
    _with_stderr,
    agent_environment,
    mcp_environment,
)
from pytest_pastbench.agents.external.mcp_stdio import TOKEN_ENV, URL_ENV
from pytest_pastbench.agents.external.wire import MAX_LINE_BYTES, WIRE_FORMAT, AnswerMessage, UserTurn
from pytest_pastbench.errors import AgentFailure, SessionTimeout
from pytest_pastbench.models.gateway import AgentScope

SCOPE = AgentScope(url="http://127.0.0.1:1", token="session-token", model="pastbench/recall")
SOON = 30.0  # a hang guard: every receive below has its line or its end of output at once


def channel_of(data: bytes) -> LineChannel:
    return LineChannel(io.BytesIO(data), lambda raw: None)


def test_lines_arrive_in_order_and_end_of_output_is_none() -> None:
    channel = channel_of(b'{"a": 1}\nsecond\n')
    deadline = time.monotonic() + SOON
    assert channel.receive(deadline) == b'{"a": 1}\n'
    assert channel.receive(deadline) == b"second\n"
    assert channel.receive(deadline) is None
    assert channel.received == 2  # the line numbers a protocol error names


def test_a_line_over_the_limit_is_the_agents_fault() -> None:
    channel = channel_of(b"x" * (MAX_LINE_BYTES + 1) + b"\n")
    with pytest.raises(AgentFailure, match=f"sent a line over {MAX_LINE_BYTES} bytes"):
        channel.receive(time.monotonic() + SOON)


@pytest.fixture
def silent_reader() -> Iterator[Any]:
    """A program's output that stays open and says nothing."""
    read_end, write_end = os.pipe()
    reader = os.fdopen(read_end, "rb")
    yield reader
    os.close(write_end)  # end of output: the reader thread ends
    reader.close()


def test_no_line_by_the_deadline_is_a_timeout(silent_reader: Any) -> None:
    channel = LineChannel(silent_reader, lambda raw: None)
    with pytest.raises(SessionTimeout):
        channel.receive(time.monotonic() - 1)  # already past: no wait at all
    with pytest.raises(SessionTimeout):
        channel.receive(time.monotonic() + 0.01)  # nothing will come


def test_a_program_that_closed_its_input_is_the_agents_fault() -> None:
    def closed(raw: bytes) -> None:
        raise BrokenPipeError

    channel = LineChannel(io.BytesIO(b""), closed)
    with pytest.raises(AgentFailure, match="closed its input before the session ended"):
        channel.send(UserTurn(turn=0, content="hello", last=True))


class ManualTime:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def budget_with(waits: list[dict[str, Any]], wall_s: float = 10.0) -> tuple[WallBudget, ManualTime]:
    now = ManualTime()
    ctx = SimpleNamespace(clock=SessionClock(now=now), budgets=SimpleNamespace(wall_s=wall_s))
    scope = AgentScope(url="u", token="t", model="m", waits=lambda: waits.pop(0))
    return WallBudget(ctx, scope), now  # type: ignore[arg-type]


def test_the_gateways_waits_are_credited_once_and_do_not_spend_the_agents_time() -> None:
    budget, now = budget_with([{"waited_s": 4.0, "in_flight": 0}, {"waited_s": 6.0, "in_flight": 0}])
    now.t += 11.0  # 11 s of wall time, 10 s budget
    assert not budget.spent()  # 4 s of it was the gateway's: 7 s of the agent's own
    assert budget.clock.waited_s == 4.0
    now.t += 5.0
    assert budget.spent()  # 16 s less the 6 s waited in all (not 4 + 6): 10 s, the budget
    assert budget.clock.waited_s == 6.0


def test_a_model_call_still_in_the_gateway_is_waited_for_not_cut_off() -> None:
    budget, now = budget_with([{"waited_s": 0.0, "in_flight": 1}])
    now.t += 20.0  # far past the budget
    assert not budget.spent()  # the call is judged when it is back, with its wait
    before = time.monotonic()
    assert budget.deadline() >= before + IN_FLIGHT_POLL_S  # polls again, however late it is


def test_the_program_finds_the_session_token_never_a_provider_key() -> None:
    env = agent_environment(SCOPE, "http://gw:8000/v1")
    assert env["OPENAI_API_KEY"] == env["ANTHROPIC_API_KEY"] == "session-token"
    assert env["OPENAI_BASE_URL"] == "http://gw:8000/v1"
    assert env["ANTHROPIC_BASE_URL"] == "http://gw:8000"  # the Anthropic SDK adds /v1 itself
    assert (env["PASTBENCH_MODEL"], env["PASTBENCH_PROTOCOL"]) == ("pastbench/recall", WIRE_FORMAT)
    assert mcp_environment(SCOPE, None) == {}
    assert mcp_environment(SCOPE, "http://gw:9/mcp") == {
        URL_ENV: "http://gw:9/mcp",
        TOKEN_ENV: "session-token",
    }


class Program:
    """An ``AgentProcess`` whose output is given."""

    def __init__(self, output: bytes, code: int | None) -> None:
        self.channel = channel_of(output)
        self.code = code

    def exit_code(self, timeout_s: float) -> int | None:
        return self.code


@pytest.mark.parametrize(("code", "how"), [(3, "exited with code 3"), (None, "closed its output")])
def test_output_that_ends_before_the_answer_says_how_and_at_which_turn(code: int | None, how: str) -> None:
    budget, _ = budget_with([])
    with pytest.raises(AgentFailure) as raised:
        ExternalAgent._receive(Program(b"", code), budget, turn=1, turns=3)  # type: ignore[arg-type]
    assert str(raised.value) == f"{how} before answering turn 2 of 3"


def test_a_message_is_parsed_and_a_bad_line_is_the_agents_fault() -> None:
    budget, _ = budget_with([])
    answer = ExternalAgent._receive(Program(b'{"type": "answer", "content": "hi"}\n', 0), budget, 0, 1)  # type: ignore[arg-type]
    assert isinstance(answer, AnswerMessage) and answer.content == "hi"
    with pytest.raises(AgentFailure, match="line 1 is not JSON"):
        ExternalAgent._receive(Program(b"hello\n", 0), budget, 0, 1)  # type: ignore[arg-type]


def test_a_failure_carries_the_last_line_the_program_wrote_to_stderr() -> None:
    assert _with_stderr("exited with code 1", "starting\nTraceback\nKeyError: 'x'\n\n") == (
        "exited with code 1 (stderr: KeyError: 'x')"
    )
    assert _with_stderr("exited with code 1", "  \n") == "exited with code 1"
    assert len(_with_stderr("m", "e" * 500)) == len("m (stderr: )") + 200
