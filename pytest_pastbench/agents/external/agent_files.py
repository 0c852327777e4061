"""External agents from agent files (``implementation: subprocess|docker``) and short specs.

    --pastbench-agent=subprocess:python3 my_agent.py     # a local program (split like a shell)
    --pastbench-agent=docker:IMAGE [COMMAND...]          # a program in a container
    --pastbench-agent=path/to/my-agent.yaml              # an agent file (paths relative to it)

Agent files are validated here; a bad one is a ``ValueError`` naming the field (a UsageError for
the user, before anything runs).
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

if TYPE_CHECKING:
    # The driver (and the model gateway it talks to) loads with the adapter that builds an
    # external agent, not with agent selection, which every benchmark run does at start.
    from .driver import ExternalAgent

IMPLEMENTATIONS = ("subprocess", "docker")
SPEC_PREFIXES = tuple(f"{name}:" for name in IMPLEMENTATIONS)


def _argv(value: Any) -> Any:
    return shlex.split(value) if isinstance(value, str) else value


class _AgentFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    description: str = ""
    mechanisms: list[str] = Field(default_factory=list, description="labels for reports only")
    env: dict[str, str] = Field(default_factory=dict, description="variables set for the program")
    pass_env: list[str] = Field(default_factory=list, description="host variables passed through")


class SubprocessAgentFile(_AgentFile):
    implementation: Literal["subprocess"]
    command: list[str] = Field(min_length=1, description="argv, or one string split like a shell")
    cwd: str | None = Field(
        default=None, description="the program's folder (default: the agent file's), readable in the sandbox"
    )
    read_only: list[str] = Field(
        default_factory=list, description="more folders the sandboxed program may read"
    )

    _split = field_validator("command", mode="before")(_argv)


class DockerAgentFile(_AgentFile):
    implementation: Literal["docker"]
    image: str = Field(min_length=1)
    command: list[str] | None = Field(default=None, description="default: the image's own command")
    docker_host: str | None = None
    mounts: dict[str, str] = Field(
        default_factory=dict, description="host path -> container path, mounted read-only"
    )
    memory: str = "1g"
    cpus: float = Field(default=1.0, gt=0)
    pids: int = Field(default=256, ge=16)

    _split = field_validator("command", mode="before")(_argv)


def external_agent(
    name: str, agent_file: dict[str, Any], base_dir: Path | None, docker_host: str | None = None
) -> ExternalAgent:
    """The agent an agent file describes; relative paths are read against ``base_dir``."""
    base = base_dir or Path.cwd()
    kind = agent_file.get("implementation")
    model = SubprocessAgentFile if kind == "subprocess" else DockerAgentFile
    try:
        spec = model.model_validate(agent_file)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"agent file {name!r}: {where}: {first['msg']}") from None
    if isinstance(spec, SubprocessAgentFile):
        from .process import SubprocessAgent  # lazy: loads only the agent kind the file names

        return SubprocessAgent(
            name,
            _program(spec.command, base),
            cwd=base / spec.cwd if spec.cwd else base,
            env=spec.env,
            pass_env=spec.pass_env,
            mechanisms=spec.mechanisms,
            read_only=[base / path for path in spec.read_only],
        )
    from .docker import DockerAgent  # lazy: loads only the agent kind the file names

    return DockerAgent(
        name,
        spec.image,
        spec.command,
        docker_host=docker_host or spec.docker_host,
        env=spec.env,
        pass_env=spec.pass_env,
        mounts={str(base / host): target for host, target in spec.mounts.items()},
        memory=spec.memory,
        cpus=spec.cpus,
        pids=spec.pids,
        mechanisms=spec.mechanisms,
    )


def agent_from_spec(spec: str, docker_host: str | None = None) -> ExternalAgent:
    """``subprocess:CMD`` or ``docker:IMAGE [CMD]``, named by ``spec_label`` (the whole command
    line would break tables and plots, and put the user's paths in every report)."""
    kind, _, rest = spec.partition(":")
    argv = shlex.split(rest)
    if not argv:
        raise ValueError(f"{spec!r}: give a command after '{kind}:', e.g. subprocess:python3 my_agent.py")
    name = spec_label(kind, argv)
    if kind == "subprocess":
        return external_agent(name, {"implementation": kind, "command": argv}, None)
    return external_agent(
        name, {"implementation": kind, "image": argv[0], "command": argv[1:] or None}, None, docker_host
    )


def spec_label(kind: str, argv: list[str]) -> str:
    """A short name for a spec: the script a program runs (``python3 /x/my_agent.py`` →
    ``my_agent``), else the program's name; for an image its name without registry and tag."""
    if kind == "docker":
        return argv[0].rsplit("/", 1)[-1].split("@", 1)[0].split(":", 1)[0] or "docker"
    scripts = [arg for arg in argv[1:] if not arg.startswith("-") and Path(arg).suffix]
    return Path(scripts[0] if scripts else argv[0]).stem or "subprocess"


def _program(command: list[str], base: Path) -> list[str]:
    """The argv with a checked program: a path relative to ``base``, or a name on PATH."""
    program = command[0]
    if "/" in program:
        path = base / program  # absolute stays as given; symbolic links are not resolved
        if not path.is_file():
            raise ValueError(f"agent command {program!r}: no such file ({path})")
        return [str(path), *command[1:]]
    if shutil.which(program) is None:
        raise ValueError(f"agent command {program!r}: not found on PATH")
    return command
