"""No state outside the store: a subprocess agent's files never reach another session.

The canary agent writes a secret to ``~/.cache``, ``$TMPDIR``, the XDG cache and its working
directory in every learn session, and reports in every session what it finds there. Run over
both arms and two episodes, it must find nothing, and nothing may be left in the user's home or
the agent file's folder. Sandboxed (the default) and with the debugging opt-out alike: the fresh
folders are not part of the sandbox.
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

from tests.agents.external.test_process import run, script_agent
from tests.family_samples import GOOD_MEMORY

CANARY = """\
import json, os, sys, tempfile
from pathlib import Path
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
start = json.loads(sys.stdin.readline())
places = [
    Path.home() / ".cache" / "canary.txt",
    Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "canary-xdg.txt",
    Path(tempfile.gettempdir()) / "canary.txt",
    Path("canary.txt"),
]
found = sorted(p.read_text() for p in places if p.exists())
if start["session"]["stage"] == "learn":
    for place in places:
        place.parent.mkdir(parents=True, exist_ok=True)
        place.write_text("secret-" + str(start["session"]["index"]))
    send({"type": "log", "message": "wrote %d" % sum(p.exists() for p in places)})
while True:
    message = json.loads(sys.stdin.readline())
    if message["type"] == "session_end":
        break
    send({"type": "answer", "content": "found: " + json.dumps(found)})
"""


@pytest.mark.reliability
@pytest.mark.parametrize("opt_out", [[], ["--pastbench-no-agent-sandbox"]], ids=["sandboxed", "opt-out"])
def test_a_canary_written_on_the_on_arm_is_found_nowhere_else(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, opt_out: list[str]
) -> None:
    home = pytester.path / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # the user's real home, as the harness sees it
    (pytester.path / "families" / "memory").mkdir(parents=True)
    (pytester.path / "families" / "memory" / "tiny_prefs.yaml").write_text(GOOD_MEMORY)
    (pytester.path / "canary.py").write_text(CANARY)
    pytester.path.chmod(0o755)  # as root the sandbox runs the program as another uid
    result = pytester.runpytest_subprocess(
        "families",
        f"--pastbench-agent=subprocess:{sys.executable} canary.py",
        "--pastbench-run-id=canary",
        *opt_out,
    )
    assert result.ret == 0, result.stdout.str()
    traces = sorted((pytester.path / "reports" / "canary" / "traces").rglob("*.jsonl"))
    events = [json.loads(line) for trace in traces for line in trace.read_text().splitlines()]
    answers = [e["content"] for e in events if e["kind"] == "message" and e["role"] == "assistant"]
    assert len(traces) == 4 and len(answers) >= 4
    assert set(answers) == {"found: []"}  # not in the off arm, not in the other episode, not later
    wrote = [e["message"] for e in events if e["kind"] == "agent_log"]
    assert wrote and set(wrote) == {"wrote 4"}  # the writes did happen (on-arm learn sessions)
    assert not list(home.rglob("canary*")) and not list(pytester.path.glob("canary.txt"))
    if opt_out:
        result.stdout.fnmatch_lines(
            ["*WARNING: --pastbench-no-agent-sandbox: subprocess agents ran UNSANDBOXED*"]
        )
    else:
        assert "UNSANDBOXED" not in result.stdout.str()


@pytest.mark.reliability
def test_a_sandboxed_agent_reaches_the_gateway_but_no_other_host_port(tmp_path: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))  # a host service the agent must not reach
    port = listener.getsockname()[1]
    body = f"""
import socket, urllib.request
def reach(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        return "reached"
    except OSError as exc:
        return type(exc).__name__
request = urllib.request.Request(
    start["model"]["base_url"] + "/models", headers={{"Authorization": "Bearer " + start["model"]["api_key"]}}
)
models = json.loads(urllib.request.urlopen(request, timeout=30).read())["data"][0]["id"]
send({{"type": "answer", "content": json.dumps([reach({port}), models, os.getcwd(), os.environ["HOME"]])}})
"""
    try:
        session, _ = run(script_agent(tmp_path, body), tmp_path)
    finally:
        listener.close()
    host_port, model, cwd, home = json.loads(session.answer)
    assert host_port == "ConnectionRefusedError" and model == "pastbench/recall"
    assert cwd != str(tmp_path) and Path(cwd).name == "work" and Path(home).name == "home"
    assert not Path(cwd).exists()  # the session's folders are gone with it
