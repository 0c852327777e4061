"""The subprocess adapter, session by session: each outcome of the pastbench-agent/1 contract.

Small stdlib agent scripts are written to tmp_path and run against a real store, world and
gateway scope (the offline pastbench/recall model), through ``run_agent_session``.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_pastbench.agents.base import Budgets
from pytest_pastbench.agents.external.process import SubprocessAgent
from pytest_pastbench.agents.session_runner import run_session
from pytest_pastbench.core.store import Store
from pytest_pastbench.core.trace import TraceRecorder
from pytest_pastbench.errors import InfraError, WallBackstop
from pytest_pastbench.models.client import ModelReply
from pytest_pastbench.models.gateway import Gateway, GatewayClient, ModelService, ScopeRegistry, ServiceClient
from pytest_pastbench.protocols.past.engine import run_agent_session
from pytest_pastbench.protocols.past.schema import WorldSeed
from pytest_pastbench.protocols.past.world import World
from pytest_pastbench.protocols.stream.toolbox import StoreTools

HANG_GUARD_S = 120  # a hang guard only: nothing here waits on the clock
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "subprocess-agent" / "agent.py"

PRELUDE = """\
import json, os, sys, time, urllib.request
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
def recv():
    return json.loads(sys.stdin.readline())
start = recv()
turn = recv()
"""

# A chat request to the session's model through the gateway (``request``, not yet sent).
MODEL_REQUEST = """
body = {"model": start["model"]["name"], "messages": [{"role": "user", "content": "x"}]}
request = urllib.request.Request(
    start["model"]["base_url"] + "/chat/completions",
    data=json.dumps(body).encode(),
    headers={"Authorization": "Bearer " + start["model"]["api_key"], "Content-Type": "application/json"},
)
"""


def script_agent(tmp_path: Path, body: str) -> SubprocessAgent:
    tmp_path.chmod(0o755)  # pytest's 0700: as root the sandbox runs the program as another uid
    path = tmp_path / "agent_script.py"
    path.write_text(PRELUDE + body)
    return SubprocessAgent("script", [sys.executable, str(path)], cwd=tmp_path)


def run(  # noqa: ANN201
    agent: SubprocessAgent,
    tmp_path: Path,
    model: str = "pastbench/recall",
    budgets: Budgets | None = None,
    turns: list[str] | None = None,
    service: ModelService | None = None,
    trace: TraceRecorder | None = None,
):
    trace = trace or TraceRecorder()
    session = run_agent_session(
        agent,
        ServiceClient(service or ModelService(), model),
        Store(tmp_path / "store"),
        World(WorldSeed()),
        turns or ["The Brightwater reports go to @mira.k every Monday."],
        budgets=budgets or Budgets(),
        trace=trace,
    )
    return session, trace.events


def test_the_example_agent_uses_tools_and_the_model_through_the_gateway(tmp_path: Path) -> None:
    agent = SubprocessAgent("example", [sys.executable, str(EXAMPLE)])
    service = ModelService()
    session, events = run(agent, tmp_path, service=service)
    assert session.agent_error is None and session.budget_exceeded is None
    assert [c.name for c in session.tool_calls] == ["memory_search", "memory_write"]
    assert any("@mira.k" in e.text for e in session.store_after)
    # The program called the model itself; its session scope counted what the ledger counted.
    ledger = service.ledger_json()["pastbench/recall"]
    assert session.model_calls == ledger["calls"] == 3  # search, write, then the answer
    assert session.prompt_tokens == ledger["prompt_tokens"] > 0
    assert session.completion_tokens == ledger["completion_tokens"] > 0
    assert events[-1] == {"seq": events[-1]["seq"], "kind": "agent_exit", "session": 0, "code": 0}


def test_every_user_turn_gets_its_own_answer(tmp_path: Path) -> None:
    agent = script_agent(
        tmp_path,
        """
send({"type": "answer", "content": "first:" + turn["content"]})
second = recv()
send({"type": "log", "message": "turn %d last=%s" % (second["turn"], second["last"])})
send({"type": "answer", "content": "second:" + second["content"]})
assert recv() == {"type": "session_end"}
""",
    )
    session, events = run(agent, tmp_path, turns=["a", "b"])
    assert session.answer == "second:b" and session.agent_error is None, (session, events)
    assert {"kind": "agent_log", "message": "turn 1 last=True"}.items() <= next(
        e for e in events if e["kind"] == "agent_log"
    ).items()
    assert [e["content"] for e in events if e.get("role") == "assistant"] == ["first:a", "second:b"]


def test_session_start_carries_the_contract(tmp_path: Path) -> None:
    agent = script_agent(tmp_path, 'send({"type": "answer", "content": json.dumps(start)})\n')
    session, _ = run(agent, tmp_path, budgets=Budgets(tool_calls=7, wall_s=300, max_output_tokens=99))
    start = json.loads(session.answer)
    assert start["protocol"] == "pastbench-agent/1"
    assert start["session"] == {"index": 0, "stage": "", "turns": 1}
    assert start["budgets"] == {"tool_calls": 7, "wall_s": 300.0, "max_output_tokens": 99, "temperature": 0.0}
    assert start["model"]["name"] == "pastbench/recall"
    assert start["model"]["base_url"].startswith("http://127.0.0.1:") and start["model"]["base_url"].endswith(
        "/v1"
    )
    assert {t["function"]["name"] for t in start["tools"]} >= {"memory_search", "memory_write"}
    assert start["store_dir"] == str(tmp_path / "store")


def test_a_session_without_a_store_tells_the_program_so(tmp_path: Path) -> None:
    # A stream's blind harness: no store, no tools; the program still runs through the same runner.
    agent = script_agent(tmp_path, 'send({"type": "answer", "content": json.dumps(start)})\n')
    session = run_session(agent, ServiceClient(ModelService(), "pastbench/recall"), StoreTools(None), ["hi"])
    start = json.loads(session.answer)
    assert session.agent_error is None and start["store_dir"] is None and start["tools"] == []


def test_the_program_gets_gateway_settings_and_no_provider_keys(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-for-agents-0123456789")
    agent = script_agent(tmp_path, 'send({"type": "answer", "content": json.dumps(dict(os.environ))})\n')
    session, _ = run(agent, tmp_path)
    env = json.loads(session.answer)
    assert env["ANTHROPIC_API_KEY"] == env["OPENAI_API_KEY"]  # the session's token, not the host's key
    assert "sk-ant-not-for-agents" not in session.answer
    assert env["OPENAI_BASE_URL"].endswith("/v1") and env["PASTBENCH_MODEL"] == "pastbench/recall"
    assert env["PATH"] == os.environ["PATH"]


def test_non_json_output_is_an_agent_error_scored_zero(tmp_path: Path) -> None:
    session, _ = run(script_agent(tmp_path, 'print("thinking...", flush=True)\nrecv()\n'), tmp_path)
    assert session.agent_error.startswith("line 1 is not JSON")
    assert "'thinking...'" in session.agent_error


def test_an_invalid_message_names_the_field(tmp_path: Path) -> None:
    session, _ = run(
        script_agent(tmp_path, 'send({"type": "tool_call", "name": "memory_search"})\nrecv()\n'), tmp_path
    )
    assert session.agent_error == "line 1 breaks pastbench-agent/1: tool_call.id: Field required"


def test_an_unknown_message_type_is_a_protocol_violation(tmp_path: Path) -> None:
    session, _ = run(script_agent(tmp_path, 'send({"type": "final", "content": "x"})\nrecv()\n'), tmp_path)
    assert "breaks pastbench-agent/1" in session.agent_error and "final" in session.agent_error


def test_a_crash_is_an_agent_error_with_the_last_stderr_line(tmp_path: Path) -> None:
    session, events = run(script_agent(tmp_path, "1 / 0\n"), tmp_path)
    assert session.agent_error == (
        "exited with code 1 before answering turn 1 of 1 (stderr: ZeroDivisionError: division by zero)"
    )
    stopped = next(e for e in events if e["kind"] == "agent_stopped")
    assert "Traceback" in stopped["stderr"]


def test_the_gateway_token_never_reaches_the_trace(tmp_path: Path) -> None:
    body = """
token = start["model"]["api_key"]
send({"type": "log", "message": "my token is " + token})
send({"type": "tool_call", "id": "c1", "name": "memory_write", "arguments": {"text": "key " + token}})
recv()
print("token=" + token, file=sys.stderr)
sys.exit(3)
"""
    session, events = run(script_agent(tmp_path, body), tmp_path)
    assert session.agent_error.endswith("(stderr: token=[REDACTED])")
    assert "token=[REDACTED]" in next(e for e in events if e["kind"] == "agent_stopped")["stderr"]
    assert next(e for e in events if e["kind"] == "agent_log")["message"] == "my token is [REDACTED]"
    assert next(e for e in events if e["kind"] == "tool_call")["arguments"] == {"text": "key [REDACTED]"}


@pytest.mark.slow  # several whole pytest runs: in CI, out of the quick loop
def test_wall_clock_budget_kills_the_whole_process_group(tmp_path: Path) -> None:
    marker = f"pastbench-orphan-{os.getpid()}-{tmp_path.name}"  # names the child on the host
    body = f"""
import subprocess
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", {marker!r}])
send({{"type": "log", "message": "child started"}})
time.sleep(600)
"""
    trace = TraceRecorder()
    with pytest.raises(WallBackstop, match="passed the wall-clock backstop"):  # infra_blocked, not a 0
        run(script_agent(tmp_path, body), tmp_path, budgets=Budgets(wall_s=10), trace=trace)
    assert any(e["kind"] == "agent_log" for e in trace.events)  # the child did start
    assert not [pid for pid in commands_with(marker) if running(pid)]  # and was killed too


def commands_with(marker: str) -> list[int]:
    """Host pids whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue  # gone meanwhile
    return found


def running(pid: int) -> bool:
    """Alive and not a zombie (a killed orphan may wait a moment for init to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def test_tool_call_budget_stops_the_session(tmp_path: Path) -> None:
    body = """
for n in range(10):
    send({"type": "tool_call", "id": f"c{n}", "name": "memory_search", "arguments": {"query": "x"}})
    assert recv()["type"] == "tool_result"
"""
    session, _ = run(script_agent(tmp_path, body), tmp_path, budgets=Budgets(tool_calls=3))
    assert session.budget_exceeded == "tool_calls" and len(session.tool_calls) == 3


def test_a_program_that_exits_after_its_last_answer_without_session_end_is_not_failed(tmp_path: Path) -> None:
    # It closes its input first, so the harness's session_end always meets a closed pipe (as it
    # does by chance, under load, when a program exits right after answering).
    body = """
os.close(0)
send({"type": "answer", "content": "done"})
"""
    session, events = run(script_agent(tmp_path, body), tmp_path)
    assert session.agent_error is None and session.answer == "done"
    assert [e["code"] for e in events if e["kind"] == "agent_exit"] == [0]


def test_a_malformed_tool_call_is_a_tool_error_the_agent_sees(tmp_path: Path) -> None:
    body = """
send({"type": "tool_call", "id": "c1", "name": "memory_nuke", "arguments": "{}"})
result = recv()
send({"type": "answer", "content": json.dumps(result)})
"""
    session, _ = run(script_agent(tmp_path, body), tmp_path)
    result = json.loads(session.answer)
    assert result["id"] == "c1" and result["ok"] is False
    assert json.loads(result["content"]) == {"error": "unknown tool 'memory_nuke'"}
    assert session.agent_error is None and [c.ok for c in session.tool_calls] == [False]


def test_a_model_failure_in_the_gateway_is_infra_not_the_agents_fault(tmp_path: Path) -> None:
    body = (
        MODEL_REQUEST
        + """
try:
    urllib.request.urlopen(request)
except Exception as exc:
    send({"type": "answer", "content": "gave up: %s" % exc})
"""
    )
    with pytest.raises(InfraError, match="model gateway: .*unknown offline model pastbench/oracle"):
        run(script_agent(tmp_path, body), tmp_path, model="pastbench/oracle")


def test_a_program_that_cannot_start_is_infra(tmp_path: Path) -> None:
    agent = SubprocessAgent("missing", [str(tmp_path / "no-such-agent")])
    with pytest.raises(InfraError, match="cannot start agent command"):
        run(agent, tmp_path)


def test_from_a_worker_the_scope_is_opened_on_the_controllers_gateway(tmp_path: Path) -> None:
    service = ModelService()
    gateway = Gateway(service).start()
    try:
        session = run_agent_session(
            SubprocessAgent("example", [sys.executable, str(EXAMPLE)]),
            GatewayClient(gateway.url, gateway.token, "pastbench/recall"),
            Store(tmp_path / "store"),
            World(WorldSeed()),
            ["The Brightwater reports go to @mira.k every Monday."],
            budgets=Budgets(),
        )
    finally:
        gateway.stop()
    assert (
        session.agent_error is None
        and session.model_calls == service.ledger_json()["pastbench/recall"]["calls"]
    )
    assert session.prompt_tokens == service.ledger_json()["pastbench/recall"]["prompt_tokens"] > 0


def test_a_stream_cut_by_a_provider_error_is_infra_not_the_agents_fault(tmp_path: Path) -> None:
    # The gateway has sent 200 and opened the event stream when the provider fails: the program
    # sees an error event mid-stream, and whatever it makes of it, the item is infra_blocked.
    body = """
body = {"model": start["model"]["name"], "stream": True, "messages": [{"role": "user", "content": "x"}]}
request = urllib.request.Request(
    start["model"]["base_url"] + "/chat/completions",
    data=json.dumps(body).encode(),
    headers={"Authorization": "Bearer " + start["model"]["api_key"], "Content-Type": "application/json"},
)
with urllib.request.urlopen(request) as response:
    events = response.read().decode()
send({"type": "answer", "content": "status %d: %s" % (response.status, events)})
"""
    with pytest.raises(InfraError, match="model gateway: .*unknown offline model pastbench/oracle"):
        run(script_agent(tmp_path, body), tmp_path, model="pastbench/oracle")


ANSWER_FROM_MODULE = """
import pastbench_probe_module
send({"type": "answer", "content": pastbench_probe_module.WORD + ":" + os.environ.get("MODE", "")})
"""


def test_a_closed_project_folder_is_read_without_opening_it_to_all_users(tmp_path: Path) -> None:
    """A ``mktemp -d`` project (mode 0700): as root the program (another uid) still reads its own
    files, and the folder stays closed (the old fix told the user to chmod o+rX it)."""
    project = tmp_path / "project"
    project.mkdir()
    project.chmod(0o700)
    (project / "pastbench_probe_module.py").write_text('WORD = "closed-ok"\n')
    script = project / "agent_script.py"
    script.write_text(PRELUDE + "sys.path.insert(0, os.path.dirname(__file__))\n" + ANSWER_FROM_MODULE)
    agent = SubprocessAgent("closed", [sys.executable, str(script)], cwd=project)
    session, events = run(agent, tmp_path)
    assert session.agent_error is None, (session.agent_error, events[-3:])
    assert session.answer == "closed-ok:"
    assert project.stat().st_mode & 0o777 == 0o700


def test_the_interpreter_is_found_through_env_and_its_venv_under_tmp_is_bound(tmp_path: Path) -> None:
    """``env MODE=x /tmp/…/venv/bin/python agent.py``: the venv is the interpreter's, not env's
    (/usr), and lives under /tmp, which the sandbox replaces with a fresh one."""
    import subprocess
    import sysconfig

    tmp_path.chmod(0o755)
    venv = tmp_path / "envs" / "venv"  # apart from the script, whose folder is bound anyway
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    purelib = sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)})
    Path(purelib, "pastbench_probe_module.py").write_text('WORD = "venv-ok"\n')
    script = tmp_path / "app" / "agent_script.py"
    script.parent.mkdir()
    script.write_text(PRELUDE + ANSWER_FROM_MODULE)
    agent = SubprocessAgent("env-venv", ["env", "MODE=x", str(venv / "bin" / "python"), str(script)])
    session, events = run(agent, tmp_path)
    assert session.agent_error is None, (session.agent_error, events[-3:])
    assert session.answer == "venv-ok:x"


class SkewedClock:
    """The session's clock: real time plus whatever the fake service says a call took, so a
    1000 s wait costs no real time and no test depends on the machine's speed."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset


class SlowService(ModelService):
    """Each answer takes ``took_s`` on the session's clock, ``waited_s`` of it on the harness
    (a provider's rate-limit hold, a retry's backoff), the rest on the model."""

    def __init__(self, clock: SkewedClock, took_s: float, waited_s: float) -> None:
        super().__init__()
        self.clock, self.took_s, self.waited_s = clock, took_s, waited_s
        self.hold = lambda: None  # what an answer waits for before it leaves the gateway

    def complete(self, *args: Any, **kwargs: Any) -> tuple[ModelReply, bool]:
        reply, cached = super().complete(*args, **kwargs)
        self.clock.offset += self.took_s
        self.hold()
        reply.waited_s = self.waited_s
        return reply, cached


CALL_THE_MODEL_THEN_A_TOOL = (
    MODEL_REQUEST
    + """
urllib.request.urlopen(request).read()
send({"type": "tool_call", "id": "c1", "name": "memory_search", "arguments": {"query": "x"}})
recv()
send({"type": "answer", "content": "done"})
"""
)


def run_with(
    client_of: str, service: ModelService, agent: SubprocessAgent, tmp_path: Path, clock: SkewedClock
):  # noqa: ANN201
    """``run`` from the session's own process (``ServiceClient``) or from a worker (``GatewayClient``)."""
    gateway = Gateway(service).start() if client_of == "worker" else None
    client = GatewayClient(gateway.url, gateway.token, "pastbench/recall") if gateway else None
    try:
        return run_agent_session(
            agent,
            client or ServiceClient(service, "pastbench/recall"),
            Store(tmp_path / "store"),
            World(WorldSeed()),
            ["The Brightwater reports go to @mira.k every Monday."],
            budgets=Budgets(wall_s=300, clock=clock),
        )
    finally:
        if gateway is not None:
            gateway.stop()


@pytest.mark.parametrize("client_of", ["session", "worker"])
def test_the_gateways_waits_are_left_out_of_the_wall_budget(tmp_path: Path, client_of: str) -> None:
    """A model call that waited 1000 s on the harness (over the 300 s budget) does not spend the
    program's time, as for an in-process agent (``ModelReply.waited_s``)."""
    clock = SkewedClock()
    service = SlowService(clock, took_s=1000, waited_s=1000)
    session = run_with(
        client_of, service, script_agent(tmp_path, CALL_THE_MODEL_THEN_A_TOOL), tmp_path, clock
    )
    assert session.agent_error is None and session.budget_exceeded is None
    assert session.answer == "done" and len(session.tool_calls) == 1


@pytest.mark.parametrize("client_of", ["session", "worker"])
def test_a_slow_model_still_spends_the_programs_wall_budget(tmp_path: Path, client_of: str) -> None:
    """The same 1000 s spent on the model itself: the backstop (infra_blocked, never a score)."""
    clock = SkewedClock()
    service = SlowService(clock, took_s=1000, waited_s=0)
    with pytest.raises(WallBackstop, match="passed the wall-clock backstop"):
        run_with(client_of, service, script_agent(tmp_path, CALL_THE_MODEL_THEN_A_TOOL), tmp_path, clock)


def test_a_call_still_waiting_in_the_gateway_at_the_budget_is_judged_once_it_is_back(tmp_path: Path) -> None:
    """The program logs while its model call is held in the gateway past the budget: the harness
    asks the gateway, sees the call in flight, and waits for it (and its wait) before judging."""
    clock = SkewedClock()
    service = SlowService(clock, took_s=1000, waited_s=1000)
    held = tmp_path / "held"
    seen_in_flight = threading.Event()
    service.hold = lambda: (held.touch(), seen_in_flight.wait(timeout=HANG_GUARD_S))
    waits = ScopeRegistry.waits

    def observed(self: ScopeRegistry, scope_id: str) -> dict[str, Any] | None:
        found = waits(self, scope_id)
        if found and found["in_flight"]:
            seen_in_flight.set()  # the harness asked while the call was held: let it go
        return found

    body = (
        MODEL_REQUEST
        + f"""
import threading
held = {str(held)!r}
call = threading.Thread(target=lambda: urllib.request.urlopen(request).read())
call.start()
while not os.path.exists(held):
    time.sleep(0.01)
send({{"type": "log", "message": "my call is held"}})
call.join()
send({{"type": "answer", "content": "done"}})
"""
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ScopeRegistry, "waits", observed)
        session = run_with("session", service, script_agent(tmp_path, body), tmp_path, clock)
    assert seen_in_flight.is_set()  # the harness did ask while the call was held
    assert session.agent_error is None and session.answer == "done"
