"""The published ServeLearnBench layout as typed models, and its reader.

A download is either a ``dataset/`` folder::

    data/<scenario>/serving.jsonl, test.jsonl
    environments/<scenario>/world.json, tools.json, policy.md, workflow.md,
                            system_prompt.txt, windows.json

or one scenario folder holding ``data/`` and ``environments/`` for that scenario only. A scenario
that cannot be read becomes one ``ScenarioError`` naming the file (and the line of a JSONL file);
the other scenarios still load.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ....errors import ScenarioUnreadable

Domain = Literal["retail", "banking", "pitch"]
Category = Literal["hidden", "fully_specified"]
TASK_FILES = ("serving.jsonl", "test.jsonl")
# Pitch publishes no documents: its sheet is the whole task.
DOC_FILES = ("policy.md", "workflow.md")
ENV_FILES = ("world.json", "tools.json", "system_prompt.txt", "windows.json")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Action(_Model):
    """One ground-truth tool call of a task's evaluator."""

    name: str
    kwargs: dict[str, Any] = Field(default_factory=dict)


class Answer(_Model):
    """What the ``finish`` call must submit: a refusal with one of ``reasons``, or a value."""

    model_config = ConfigDict(extra="allow", frozen=True)

    kind: Literal["refuse", "value"]
    reasons: list[str] | None = None
    expect: Any = None
    compare: str = "str_norm"


class Evaluator(_Model):
    """Scoring-only information. Never shown to an agent or a learner."""

    model_config = ConfigDict(extra="allow", frozen=True)

    slice: str | None = None
    family: str | None = None
    actions: list[Action] = Field(default_factory=list)
    answer: Answer | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class Task(_Model):
    # A field a later export adds is ignored (never shown to an agent either: only ``instruction`` is).
    model_config = ConfigDict(extra="ignore", frozen=True)

    task_id: str
    scenario: str
    domain: Domain
    tier: str
    split: Literal["serving", "test"]
    window: int = Field(ge=0)
    timestamp: int = Field(ge=0)
    category: Category
    instruction: str
    evaluator: Evaluator


class Window(_Model):
    model_config = ConfigDict(extra="ignore", frozen=True)

    window: int = Field(ge=0)
    first_position: int = Field(ge=1)
    oracle_bulletin: str


class Environment(_Model):
    world: dict[str, Any]
    tools: list[dict[str, Any]]
    policy: str = ""
    workflow: str = ""
    system_prompt: str
    windows: list[Window]


class Scenario(_Model):
    name: str
    domain: Domain
    serving: list[Task]
    test: list[Task]
    environment: Environment

    def window(self, index: int) -> Window:
        for window in self.environment.windows:
            if window.window == index:
                return window
        raise KeyError(f"{self.name}: no window {index} in windows.json")

    def tasks(self) -> list[Task]:
        return [*self.serving, *self.test]


class ScenarioError(_Model):
    """One scenario that could not be read: where, and what is wrong."""

    scenario: str
    file: str
    line: int | None = None
    problem: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{self.scenario}: {where}: {self.problem}"


class ReadResult(_Model):
    scenarios: list[Scenario]
    errors: list[ScenarioError]


def read_servelearn(path: str | Path) -> ReadResult:
    """Every scenario under ``path`` (a ``dataset/`` folder or one scenario folder), sorted by name."""
    root = Path(path)
    data = root / "data"
    if not data.is_dir() or not (root / "environments").is_dir():
        raise FileNotFoundError(f"{root}: not a ServeLearnBench download (needs data/ and environments/)")
    names = sorted({p.name for p in data.iterdir() if p.is_dir()} | _env_names(root))
    read = [read_scenario(root, name) for name in names]
    return ReadResult(
        scenarios=[s for s in read if isinstance(s, Scenario)],
        errors=[e for e in read if isinstance(e, ScenarioError)],
    )


def read_scenario(root: str | Path, name: str) -> Scenario | ScenarioError:
    """One scenario of a download, or the one error that keeps it from loading."""
    try:
        return _read_scenario(Path(root), name)
    except ScenarioUnreadable as exc:
        return ScenarioError(scenario=name, file=str(exc.file), line=exc.line, problem=exc.problem)


def is_servelearn(path: str | Path) -> bool:
    """True when ``path`` looks like a download (for format detection)."""
    root = Path(path)
    return (root / "data").is_dir() and (root / "environments").is_dir()


def _env_names(root: Path) -> set[str]:
    return {p.name for p in (root / "environments").iterdir() if p.is_dir()}


def _read_scenario(root: Path, name: str) -> Scenario:
    splits = {f: _read_tasks(root / "data" / name / f) for f in TASK_FILES}
    env_dir = root / "environments" / name
    serving, test = splits["serving.jsonl"], splits["test.jsonl"]
    domains = {t.domain for t in [*serving, *test]}
    if len(domains) != 1:
        raise ScenarioUnreadable(root / "data" / name, f"tasks of more than one domain: {sorted(domains)}")
    domain = domains.pop()
    for file, tasks in splits.items():
        wrong = next((t for t in tasks if t.scenario != name or t.split != file.split(".")[0]), None)
        if wrong is not None:
            raise ScenarioUnreadable(
                root / "data" / name / file,
                f"task {wrong.task_id} says scenario={wrong.scenario!r} split={wrong.split!r}",
            )
    environment = _read_environment(env_dir, needs_docs=domain != "pitch")
    known = {w.window for w in environment.windows}
    stray = next((t for t in [*serving, *test] if t.window not in known), None)
    if stray is not None:
        raise ScenarioUnreadable(env_dir / "windows.json", f"no window {stray.window} (task {stray.task_id})")
    return Scenario(name=name, domain=domain, serving=serving, test=test, environment=environment)


def _read_tasks(file: Path) -> list[Task]:
    if not file.is_file():
        raise ScenarioUnreadable(file, "missing file")
    tasks = []
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            tasks.append(Task.model_validate_json(line))
        except ValidationError as exc:
            raise ScenarioUnreadable(file, _first_problem(exc), number) from None
    if not tasks:
        raise ScenarioUnreadable(file, "no tasks")
    return tasks


def _read_environment(env_dir: Path, *, needs_docs: bool) -> Environment:
    missing = [f for f in (*ENV_FILES, *(DOC_FILES if needs_docs else ())) if not (env_dir / f).is_file()]
    if missing:
        raise ScenarioUnreadable(env_dir / missing[0], "missing file")
    try:
        return Environment(
            world=_json(env_dir / "world.json", dict),
            tools=_json(env_dir / "tools.json", list),
            policy=_text(env_dir / "policy.md"),
            workflow=_text(env_dir / "workflow.md"),
            system_prompt=_text(env_dir / "system_prompt.txt"),
            windows=_json(env_dir / "windows.json", list),
        )
    except ValidationError as exc:
        raise ScenarioUnreadable(env_dir / "windows.json", _first_problem(exc)) from None


def _json(file: Path, kind: type) -> Any:
    try:
        value = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ScenarioUnreadable(file, f"not JSON ({exc.msg})", exc.lineno) from None
    if not isinstance(value, kind):
        raise ScenarioUnreadable(file, f"expected a JSON {kind.__name__}, got {type(value).__name__}")
    return value


def _text(file: Path) -> str:
    return file.read_text(encoding="utf-8") if file.is_file() else ""


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "line"
    return f"{where}: {error['msg']}"
