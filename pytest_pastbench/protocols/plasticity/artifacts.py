"""The artifact inventory of one lineage and the checks an edit must pass before it persists.

Three kinds of artifact (the paper's inventory): memory notes and skills (kept in a ``Store``,
so they are searched like the PAST store) and executable Python tools (``tools/<name>.json``:
name, description, code, examples). A tool is a module defining ``run(task: str) -> str``.

An edit persists only after

- a structural check: the fields are present and well-formed, the code parses and defines
  ``run`` with one parameter, sizes are within limits; and
- an executable check (tools): every example runs in the sandbox (bubblewrap, no network, only
  a fresh copy of the tool's folder visible and writable, time and memory limits) and returns
  its expected output when one is given.

Inside the sandbox an audit hook also refuses — and records, so a tool cannot swallow the
refusal — sockets, processes and any file access outside the tool's folder and the Python
installation: the rejection then names what the tool tried, not just that it crashed.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import site
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from pytest_pastbench.core.sandbox import run_sandboxed
from pytest_pastbench.core.store import Store

from ...errors import EditRejected, InfraError, SandboxUnavailable, StoreError

TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,47}$")
MAX_CODE_CHARS = 20_000
MAX_DESCRIPTION_CHARS = 1_000
MAX_EXAMPLES = 5
MAX_OUTPUT_CHARS = 2_000
MAX_NOTE_CHARS = 4_000


@dataclass(frozen=True)
class SandboxLimits:
    """What an agent-written tool may use. The bound that decides a tool's fate is CPU time, which
    is the same on a quiet and on a loaded machine; a wall-clock limit would reject a tool on a
    busy CI runner that passes on a quiet one, so the score would move with the load (issue 30).
    The wall clock is only a backstop against a tool that waits without computing; when it fires
    the item is infra_blocked with that reason, never scored."""

    cpu_s: int = 5
    wall_backstop_s: float = 120.0
    memory_mb: int = 768
    max_procs: int = 16


@dataclass(frozen=True)
class ToolArtifact:
    name: str
    description: str
    code: str
    examples: list[dict[str, str]] = field(default_factory=list)

    def text(self) -> str:
        return f"{self.name}\n{self.description}\n{self.code}"


@dataclass(frozen=True)
class ToolRun:
    ok: bool
    output: str = ""
    error: str = ""


# Runs inside the sandbox: read {"input": ...} on stdin, import ./tool.py, call run(), print one
# JSON line. The audit hook records every refused operation; any refusal fails the run.
RUNNER = r"""
import json, os, sys
data = json.loads(sys.stdin.read())
sys.path.extend(data["site"])
import importlib.util
folder = os.path.realpath(os.getcwd())
roots = {folder}
for p in [*sys.path, sys.prefix, sys.base_prefix, sys.exec_prefix]:
    if p and os.path.isabs(p) and os.path.realpath(p) != "/":
        roots.add(os.path.realpath(p))
DEVICES = {"/dev/null", "/dev/urandom", "/dev/random"}
refused = []

def inside(path):
    if path is None or isinstance(path, int):
        return True
    real = os.path.realpath(os.fsdecode(path))
    return real in DEVICES or any(real == r or real.startswith(r + os.sep) for r in roots)

def hook(event, args):
    why = None
    if event.startswith("socket."):
        why = "opens a socket (" + event + "): artifacts get no network"
    elif event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                   "os.forkpty", "pty.spawn"):
        why = "starts a process (" + event + ")"
    elif event in ("ctypes.dlopen", "ctypes.cdata", "ctypes.dlsym"):
        why = "uses ctypes (" + event + ")"
    elif event in ("open", "os.listdir", "os.scandir", "os.chdir", "os.remove", "os.rename", "os.mkdir",
                   "os.rmdir", "shutil.rmtree") and args and not inside(args[0]):
        why = "reads outside its folder: " + os.fsdecode(args[0]) if not isinstance(args[0], int) else event
    if why:
        refused.append(why)
        raise PermissionError(why)

sys.addaudithook(hook)
try:
    spec = importlib.util.spec_from_file_location("artifact_tool", os.path.join(folder, "tool.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    output = module.run(data["input"])
    result = {"ok": True, "output": str(output)}
except BaseException as exc:
    result = {"ok": False, "error": type(exc).__name__ + ": " + str(exc)}
if refused:
    result = {"ok": False, "error": refused[0]}
sys.stdout.write("\n" + json.dumps(result)[:20000] + "\n")
"""


def run_tool(tool: ToolArtifact, task: str, limits: SandboxLimits) -> ToolRun:
    """Run ``tool.run(task)`` in the sandbox, in a fresh folder holding only ``tool.py``.

    Raises ``InfraError`` when the sandbox itself cannot run here (never run unsandboxed).
    """
    with tempfile.TemporaryDirectory(prefix="pastbench-artifact-") as tmp:
        folder = Path(tmp)
        (folder / "tool.py").write_text(tool.code)
        try:
            result = run_sandboxed(
                # -S skips site's start-up work (half of Python's start here); the
                # installation's site-packages are put back on sys.path by the runner.
                [sys.executable, "-I", "-S", "-c", RUNNER],
                folder,
                timeout_s=limits.wall_backstop_s,
                cpu_s=limits.cpu_s,
                memory_mb=limits.memory_mb,
                max_procs=limits.max_procs,
                stdin=json.dumps({"input": task, "site": _site_packages()}).encode(),
                max_output_bytes=50_000,
            )
        except SandboxUnavailable as exc:
            raise InfraError(f"cannot run executable artifacts: {exc}") from None
    if result.killed_reason == "timeout":
        raise InfraError(
            f"sandbox wall-clock backstop: a tool was still running after {limits.wall_backstop_s:g} s "
            f"without reaching its {limits.cpu_s} s CPU limit (killed; the machine may be overloaded)"
        )
    if result.killed_reason == "cpu limit":
        return ToolRun(False, error=f"cpu limit: used more than {limits.cpu_s} s of CPU time (killed)")
    if result.killed_reason:
        return ToolRun(False, error=f"killed: {result.killed_reason}")
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    try:
        reply = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        reply = None
    if not isinstance(reply, dict):
        tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or [f"exit {result.returncode}"]
        return ToolRun(False, error=f"no result: {tail[0][:300]}")
    if not reply.get("ok"):
        return ToolRun(False, error=str(reply.get("error", "failed"))[:500])
    return ToolRun(True, output=str(reply.get("output", ""))[:MAX_OUTPUT_CHARS])


@functools.cache
def _site_packages() -> list[str]:
    return [p for p in site.getsitepackages() if Path(p).is_dir()]


def check_tool_structure(name: Any, description: Any, code: Any, examples: Any) -> ToolArtifact:
    """The structural check of a tool proposal; ``EditRejected`` says what is wrong."""
    if not isinstance(name, str) or not TOOL_NAME.match(name):
        raise EditRejected("structural: name must be lower_snake_case, 1-48 characters")
    if not isinstance(description, str) or not description.strip():
        raise EditRejected("structural: description is required (say what the tool is for)")
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise EditRejected(f"structural: description over {MAX_DESCRIPTION_CHARS} characters")
    if not isinstance(code, str) or not code.strip():
        raise EditRejected("structural: code is required")
    if len(code) > MAX_CODE_CHARS:
        raise EditRejected(f"structural: code over {MAX_CODE_CHARS} characters")
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise EditRejected(f"structural: code does not parse: {exc.msg} (line {exc.lineno})") from None
    runs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "run"]
    if not runs or len(runs[0].args.args) != 1:
        raise EditRejected("structural: code must define run(task) with exactly one parameter")
    if isinstance(examples, str):  # tool-calling models send nested JSON as a string
        try:
            examples = json.loads(examples)
        except json.JSONDecodeError as exc:
            raise EditRejected(f"structural: examples is not a JSON array: {exc.msg}") from None
    if not isinstance(examples, list) or not 1 <= len(examples) <= MAX_EXAMPLES:
        raise EditRejected(f"structural: give 1-{MAX_EXAMPLES} examples [{{input, expected}}] to check it on")
    checked: list[dict[str, str]] = []
    for i, example in enumerate(examples):
        if not isinstance(example, dict) or not isinstance(example.get("input"), str):
            raise EditRejected(f"structural: examples[{i}] needs a string 'input'")
        expected = example.get("expected")
        if expected is not None and not isinstance(expected, str | int | float):
            raise EditRejected(f"structural: examples[{i}].expected must be text or a number")
        checked.append(
            {"input": example["input"], **({"expected": str(expected)} if expected is not None else {})}
        )
    return ToolArtifact(name, description.strip(), code, checked)


def check_tool_executes(tool: ToolArtifact, limits: SandboxLimits) -> None:
    """The executable check: each example runs cleanly and gives its expected output."""
    for i, example in enumerate(tool.examples):
        run = run_tool(tool, example["input"], limits)
        if not run.ok:
            raise EditRejected(f"executable: examples[{i}]: {run.error}")
        expected = example.get("expected")
        if expected is not None and not same_output(run.output, expected):
            raise EditRejected(
                f"executable: examples[{i}] returned {run.output[:100]!r}, expected {expected!r}"
            )


def same_output(output: str, expected: str) -> bool:
    """Equal as text, or as numbers within 0.005 (a tool may print 12.5 for 12.50)."""
    if output.strip() == expected.strip():
        return True
    try:
        return abs(float(output) - float(expected)) <= 0.005
    except ValueError:
        return False


class Inventory:
    """One lineage's artifacts on disk: ``store/`` (notes, skills) and ``tools/``."""

    def __init__(self, root: Path, limits: SandboxLimits | None = None) -> None:
        self.root = root
        self.store = Store(root / "store")
        self.tools_dir = root / "tools"
        self.tools_dir.mkdir(parents=True, exist_ok=True)
        self.limits = limits or SandboxLimits()
        self.accepted = 0
        self.rejected: list[dict[str, str]] = []

    # -- reading -------------------------------------------------------------------------------
    def tools(self) -> list[ToolArtifact]:
        found = []
        for path in sorted(self.tools_dir.glob("*.json")):
            data = json.loads(path.read_text())
            found.append(ToolArtifact(data["name"], data["description"], data["code"], data["examples"]))
        return found

    def tool(self, name: str) -> ToolArtifact | None:
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            return None
        path = self.tools_dir / f"{name}.json"
        if not path.is_file():
            return None
        data = json.loads(path.read_text())
        return ToolArtifact(data["name"], data["description"], data["code"], data["examples"])

    def texts(self) -> dict[str, str]:
        """Artifact id (``note:m0001``, ``skill:name``, ``tool:name``) -> its full text."""
        texts = {}
        for entry in self.store.entries():
            prefix = "note" if entry.kind == "memory" else "skill"
            texts[f"{prefix}:{entry.name or entry.id}"] = entry.text
        for tool in self.tools():
            texts[f"tool:{tool.name}"] = tool.text()
        return dict(sorted(texts.items()))

    def counts(self) -> dict[str, int]:
        entries = self.store.entries()
        return {
            "notes": sum(e.kind == "memory" for e in entries),
            "skills": sum(e.kind == "skill" for e in entries),
            "tools": len(self.tools()),
        }

    # -- edits (reflection only) -----------------------------------------------------------------
    def propose_note(self, text: Any, tags: Any = None) -> str:
        if not isinstance(text, str) or not text.strip():
            return self._reject("note", "", "structural: text is required")
        if len(text) > MAX_NOTE_CHARS:
            return self._reject("note", "", f"structural: a note is at most {MAX_NOTE_CHARS} characters")
        try:
            entry = self.store.write_memory(text.strip(), tags)
        except StoreError as exc:
            return self._reject("note", "", f"structural: {exc}")
        self.accepted += 1
        return f"note:{entry.id}"

    def propose_skill(self, name: Any, steps: Any, tags: Any = None) -> str:
        try:
            entry = self.store.write_skill(name, steps, tags)
        except StoreError as exc:
            return self._reject("skill", str(name)[:48], f"structural: {exc}")
        self.accepted += 1
        return f"skill:{entry.name}"

    def propose_tool(self, name: Any, description: Any, code: Any, examples: Any) -> str:
        try:
            tool = check_tool_structure(name, description, code, examples)
            check_tool_executes(tool, self.limits)
        except EditRejected as exc:
            return self._reject("tool", str(name)[:48], str(exc))
        payload = {
            "name": tool.name,
            "description": tool.description,
            "code": tool.code,
            "examples": tool.examples,
        }
        (self.tools_dir / f"{tool.name}.json").write_text(json.dumps(payload, indent=1, sort_keys=True))
        self.accepted += 1
        return f"tool:{tool.name}"

    def _reject(self, kind: str, name: str, reason: str) -> NoReturn:
        """Rejected edits are kept (the report lists them; their tokens were already spent)."""
        self.rejected.append({"kind": kind, "name": name, "reason": reason})
        raise EditRejected(reason)
