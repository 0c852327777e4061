"""Artifact edits persist only after the structural and the executable check (in the sandbox):
a tool that loops forever, reads outside its folder or opens a socket is rejected with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_pastbench.core.sandbox import check_sandbox
from pytest_pastbench.errors import EditRejected, InfraError, SandboxUnavailable
from pytest_pastbench.protocols.plasticity.artifacts import Inventory, SandboxLimits

pytestmark = pytest.mark.reliability

ADD = "def run(task):\n    return str(sum(int(x) for x in task.split()))\n"


@pytest.fixture
def inventory(tmp_path: Path) -> Inventory:
    try:
        check_sandbox()
    except SandboxUnavailable as exc:  # fail, never skip: the protocol cannot run without it
        pytest.fail(f"the sandbox is unavailable: {exc}", pytrace=False)
    return Inventory(tmp_path / "inventory", SandboxLimits(cpu_s=1))


def propose(inventory: Inventory, code: str, expected: str | None = None) -> str:
    example = {"input": "1 2", **({"expected": expected} if expected is not None else {})}
    return inventory.propose_tool("probe", "a probe tool", code, [example])


def test_a_tool_that_runs_and_matches_its_example_is_kept(inventory: Inventory) -> None:
    assert propose(inventory, ADD, expected="3") == "tool:probe"
    assert [t.name for t in inventory.tools()] == ["probe"]
    assert inventory.accepted == 1 and inventory.rejected == []


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("def run(task):\n    while True:\n        pass\n", "cpu limit: used more than 1 s of CPU time"),
        ("def run(task):\n    return open('/etc/passwd').read()\n", "reads outside its folder: /etc/passwd"),
        (
            "import socket\ndef run(task):\n    socket.create_connection(('127.0.0.1', 9))\n",
            "opens a socket",
        ),
        (
            # A refusal the tool swallows still rejects it: the audit hook records it.
            "import os\ndef run(task):\n    try:\n        os.listdir('/')\n    except OSError:\n"
            "        pass\n    return '3'\n",
            "reads outside its folder: /",
        ),
        ("import subprocess\ndef run(task):\n    subprocess.run(['true'])\n", "starts a process"),
    ],
    ids=["endless-loop", "read-outside", "socket", "swallowed-refusal", "process"],
)
def test_a_misbehaving_tool_is_rejected_with_the_reason(inventory: Inventory, code: str, reason: str) -> None:
    with pytest.raises(EditRejected, match="executable") as caught:
        propose(inventory, code)
    assert reason in str(caught.value)
    assert inventory.tools() == []  # nothing persisted
    assert inventory.rejected == [{"kind": "tool", "name": "probe", "reason": str(caught.value)}]


def test_a_tool_is_bounded_by_cpu_time_and_a_wall_clock_backstop_blocks_the_item(tmp_path: Path) -> None:
    """CPU time decides a tool's fate (the same on a loaded runner); the wall clock only stops a
    tool that waits without computing, and then the harness says so: infra, never a rejection
    (issue 30: a 5 s wall-clock limit rejected a good tool on a busy machine)."""
    check_sandbox()
    waiting = Inventory(tmp_path / "wait", SandboxLimits(cpu_s=5, wall_backstop_s=1.0))
    with pytest.raises(InfraError, match="wall-clock backstop: .* still running after 1 s"):
        propose(waiting, "import time\ndef run(task):\n    time.sleep(30)\n    return '3'\n")
    assert waiting.tools() == [] and waiting.rejected == []  # neither kept nor held against the agent


def test_a_tool_cannot_read_a_host_file_next_to_the_inventory(inventory: Inventory, tmp_path: Path) -> None:
    secret = tmp_path / "host.txt"
    secret.write_text("host data")
    with pytest.raises(EditRejected, match="reads outside its folder"):
        propose(inventory, f"def run(task):\n    return open({str(secret)!r}).read()\n")


def test_a_tool_may_use_its_own_folder(inventory: Inventory) -> None:
    code = "def run(task):\n    open('scratch.txt', 'w').write(task)\n    return open('scratch.txt').read()\n"
    assert propose(inventory, code, expected="1 2") == "tool:probe"


@pytest.mark.parametrize(
    ("name", "code", "examples", "reason"),
    [
        ("Bad Name", ADD, [{"input": "1"}], "lower_snake_case"),
        ("probe", "def run(task:\n", [{"input": "1"}], "does not parse"),
        ("probe", "def main(task):\n    return 1\n", [{"input": "1"}], "must define run(task)"),
        ("probe", ADD, [], "give 1-5 examples"),
        ("probe", ADD, "not json", "not a JSON array"),
        ("probe", ADD, [{"input": "1 2", "expected": "4"}], "returned '3', expected '4'"),
    ],
)
def test_structural_and_wrong_output_rejections(
    inventory: Inventory, name: str, code: str, examples: object, reason: str
) -> None:
    with pytest.raises(EditRejected, match="structural|executable") as caught:
        inventory.propose_tool(name, "a probe tool", code, examples)
    assert reason in str(caught.value)
    assert inventory.tools() == [] and len(inventory.rejected) == 1


def test_notes_and_skills_are_checked_and_counted(inventory: Inventory) -> None:
    assert inventory.propose_note("Shipping charges: 3.5 + 0.8 per kg.").startswith("note:")
    assert inventory.propose_skill("quote shipping", ["read kg", "apply the rule"]) == "skill:quote shipping"
    with pytest.raises(EditRejected, match="text is required"):
        inventory.propose_note("  ")
    with pytest.raises(EditRejected, match="structural"):
        inventory.propose_skill("quote shipping", [])
    assert inventory.counts() == {"notes": 1, "skills": 1, "tools": 0}
    assert sorted(inventory.texts()) == ["note:m0001", "skill:quote shipping"]
