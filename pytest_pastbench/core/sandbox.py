"""Run an untrusted command (an executable artifact, an external agent) in a bubblewrap sandbox.

docs/design.md §9: executable artifacts run with a time limit and no network. ``run_sandboxed`` gives
the command

- its own network namespace (``--unshare-net``: only a loopback nobody listens on), unless
  ``network=True``;
- a read-only view of the system: ``/usr``, ``/bin``, ``/lib*`` and the running Python's
  installation (so ``sys.executable`` works inside), plus ``ro_paths``; a fresh ``/tmp``, a
  minimal ``/dev`` and a ``/proc`` of its own pid namespace; nothing else of the host. ``/etc``
  is not there at all (so ``/etc/passwd`` cannot be read), nor ``/home`` or ``/root``;
- exactly one writable host folder, ``workdir`` (also its working directory and ``$HOME``);
- an empty environment apart from ``PATH``, ``HOME``, ``TMPDIR``, ``LANG`` and ``env`` (so API
  keys in the harness's environment never reach it);
- resource limits: address space, CPU seconds and file size set with ``setrlimit`` in the child
  (``preexec_fn``), a process limit set inside the sandbox (see ``_limits_inside``), and a
  wall-clock timeout after which the whole process group is killed.

bubblewrap (Debian's ``bubblewrap`` package) does the isolation. When it is missing, or the
kernel will not let it create namespaces, ``SandboxUnavailable`` says why: nothing ever runs
unsandboxed as a fallback.

Root: the kernel never applies RLIMIT_NPROC to uid 0, so when the harness runs as root the
command runs as an unprivileged uid (bubblewrap sets up the mounts as root, ``setpriv`` drops to
that uid just before the command), and ``workdir`` is handed to that uid for the run and given
back to its owners afterwards. RLIMIT_NPROC counts every process of a uid on the host, so each
``run_sandboxed`` call leases a uid of its own (``_leased_uid``): a command's process limit is
then its own, never eaten by another sandbox running at the same moment (a fork bomb in a
parallel test, an external agent's threads). External agents share ``SANDBOX_UID`` with the
large ``AGENT_MAX_PROCS``. What it must only read is bound so that
uid can read it without opening anything to all users (``readable_binds``: a closed folder's
entries one by one).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import itertools
import math
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import SandboxUnavailable

SANDBOX_UID = 65534  # "nobody" on Debian; the uid a root harness hands an external agent to
# The uids a root harness leases, one per running ``run_sandboxed`` call: far above any account's
# uid (Debian allots below 60000; container tools map from 100000 in blocks of 65536).
LEASED_UIDS = range(1_900_000_000, 1_900_000_000 + 4096)
LEASE_FOLDER = Path("/tmp/pastbench-sandbox-uids")
DEFAULT_FSIZE_MB = 64
DEFAULT_MAX_OUTPUT_BYTES = 1_000_000
# An external agent's processes and threads; as root shared by all sandboxes running at once
# (see ``_probe``), so sized for many concurrent agents with thread pools, not for one.
AGENT_MAX_PROCS = 8192
INSTALL_HINT = (
    "install Debian's `bubblewrap` package (`apt-get install bubblewrap`; CI installs it). "
    "Executable artifacts and external agents never run unsandboxed."
)
SYSTEM_DIRS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_FORBIDDEN_RO = (Path("/"), Path("/etc"), Path("/proc"), Path("/sys"), Path("/dev"))


@dataclass(frozen=True)
class SandboxResult:
    returncode: int
    stdout: str
    stderr: str
    killed_reason: str | None = None
    """None, or what stopped the command: "timeout", "cpu limit", "memory limit",
    "process limit", "file size limit" or "signal SIGxxx"."""
    wall_s: float = 0.0


@dataclass(frozen=True)
class _Tools:
    bwrap: str
    prlimit: str
    setpriv: str | None  # only needed (and only looked up) when running as root
    env: str = "env"


def run_sandboxed(
    argv: Sequence[str],
    workdir: Path | str,
    *,
    timeout_s: float,
    memory_mb: int,
    max_procs: int,
    network: bool = False,
    cpu_s: int | None = None,
    fsize_mb: int = DEFAULT_FSIZE_MB,
    env: Mapping[str, str] | None = None,
    ro_paths: Sequence[Path | str] = (),
    stdin: bytes | None = None,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
) -> SandboxResult:
    """Run ``argv`` confined to ``workdir``; return its exit status, output and what stopped it.

    ``memory_mb`` caps the address space of every process, ``max_procs`` the number of
    processes the command may have at once (itself included), ``cpu_s`` the CPU seconds of
    each process (default: the timeout, rounded up, plus one), ``fsize_mb`` the size of any
    file it writes (its stdout and stderr included). Raises ``SandboxUnavailable`` when the
    sandbox cannot be set up here, ``ValueError`` on bad arguments.
    """
    argv = [str(a) for a in argv]
    if not argv:
        raise ValueError("argv must name a command")
    if not timeout_s > 0 or memory_mb < 1 or max_procs < 1 or fsize_mb < 1:
        raise ValueError("timeout_s, memory_mb, max_procs and fsize_mb must be positive")
    folder = Path(workdir).resolve()
    if not folder.is_dir():
        raise ValueError(f"workdir {workdir} is not a directory")
    extra_ro = [_checked_ro_path(p) for p in ro_paths]
    tools = _ready_tools()
    return _run(
        tools,
        argv,
        folder,
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        max_procs=max_procs,
        network=network,
        cpu_s=cpu_s if cpu_s is not None else math.ceil(timeout_s) + 1,
        fsize_mb=fsize_mb,
        env=env or {},
        ro_paths=extra_ro,
        stdin=stdin,
        max_output_bytes=max_output_bytes,
    )


def sandbox_command(
    argv: Sequence[str],
    workdir: Path | str,
    *,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    ro_paths: Sequence[Path | str] = (),
    max_procs: int | None = None,
) -> list[str]:
    """The command line that runs ``argv`` in the sandbox, for a caller that talks to it over
    pipes and kills its process group itself (an external agent).

    The same confinement as ``run_sandboxed`` (no network but its own loopback, a read-only
    system, ``workdir`` the one writable host folder, an empty environment plus ``env``, the
    process limit), without the rlimits on memory, CPU and file size: an agent's runtime (a
    JIT, a thread pool) needs its memory, and its session's wall clock bounds it. ``cwd``
    (default ``workdir``) must lie in ``workdir``. As root, hand ``workdir`` to the sandbox's
    uid first (``hand_to_sandbox``). Raises ``SandboxUnavailable`` when it cannot run here.
    """
    folder = Path(workdir).resolve()
    start = Path(cwd).resolve() if cwd is not None else folder
    if not start.is_relative_to(folder):
        raise ValueError(f"cwd {cwd} is not inside workdir {workdir}")
    extra_ro = [_checked_ro_path(p) for p in ro_paths]
    tools = _ready_tools()
    return [
        *_bwrap_args(tools, folder, False, extra_ro, start),
        *_environment(folder, env or {}),
        "--",
        *_limits_inside(tools, max_procs or AGENT_MAX_PROCS, start),
        *[str(a) for a in argv],
    ]


def unreadable_in_sandbox(paths: Sequence[Path]) -> list[Path]:
    """As root, the ``paths`` the sandbox's uid could not read (a 0700 folder); else none."""
    if not _running_as_root():
        return []
    need = {True: 0o005, False: 0o004}  # a folder must be entered too
    closed = []
    for path in paths:
        try:
            mode = path.stat().st_mode
        except OSError:  # a broken link: nothing there to read
            continue
        if (mode & need[path.is_dir()]) != need[path.is_dir()]:
            closed.append(path)
    return closed


MAX_EXPANDED_BINDS = 2000  # entries of closed folders bound one by one (readable_binds)


def readable_binds(paths: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """What to bind so that, as root, the sandbox's uid reads what it may: ``(binds, hidden)``.

    A path the uid can read is bound as it is. A folder it cannot enter (a ``mktemp -d`` project,
    mode 0700) is not opened to all users: its entries are bound one by one instead, each the
    same way, under a sandbox-made 0755 folder of the same name (bubblewrap, as root, looks the
    host paths up itself). ``hidden`` are the files the uid still cannot read (mode 0600: private
    on purpose), and whatever is past ``MAX_EXPANDED_BINDS``. Not root: every path as it is."""
    if not _running_as_root():
        return sorted(set(paths)), []
    binds: set[Path] = set()
    hidden: list[Path] = []
    pending = sorted(set(paths))
    while pending:
        path = pending.pop(0)
        if not unreadable_in_sandbox([path]):
            binds.add(path)
        elif path.is_dir() and not path.is_symlink() and len(binds) + len(pending) < MAX_EXPANDED_BINDS:
            pending += sorted(path.iterdir())
        else:
            hidden.append(path)
    return sorted(binds), sorted(hidden)


def hand_to_sandbox(folder: Path) -> None:
    """As root, give ``folder`` (and what is in it) to the sandbox's uid; otherwise nothing."""
    if _running_as_root():
        _lend_workdir(folder)


def check_sandbox() -> None:
    """Raise ``SandboxUnavailable`` (with the reason) unless sandboxed commands can run here."""
    _ready_tools()


def _ready_tools() -> _Tools:
    tools = _tools()
    problem = _probe(tools)
    if problem:
        raise SandboxUnavailable(problem)
    return tools


# -- setup --------------------------------------------------------------------------------------


def _running_as_root() -> bool:
    return os.geteuid() == 0


def _tools() -> _Tools:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable(f"bubblewrap (`bwrap`) is not on PATH: {INSTALL_HINT}")
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        raise SandboxUnavailable("`prlimit` (Debian's util-linux) is not on PATH; it sets the process limit")
    if not _running_as_root():
        return _Tools(bwrap, prlimit, None)
    setpriv, env = shutil.which("setpriv"), shutil.which("env")
    if setpriv is None or env is None:
        raise SandboxUnavailable(
            "`setpriv` (Debian's util-linux) and `env` (coreutils) must be on PATH: as root the sandbox "
            f"needs them to drop to uid {SANDBOX_UID}"
        )
    return _Tools(bwrap, prlimit, setpriv, env)


@functools.lru_cache(maxsize=8)
def _probe(tools: _Tools) -> str | None:
    """None when a trivial command runs in the full sandbox, else why it does not (cached:
    whether namespaces can be created does not change during a run)."""
    with tempfile.TemporaryDirectory(prefix="pastbench-sandbox-probe-") as tmp:
        try:
            result = _run(
                tools,
                ["true"],
                Path(tmp).resolve(),
                timeout_s=30,
                memory_mb=256,
                # As root RLIMIT_NPROC counts every process and thread of SANDBOX_UID on the host,
                # other sandboxes' included: a small limit here fails the probe whenever another
                # sandbox (an external agent with its threads) is running.
                max_procs=AGENT_MAX_PROCS,
                network=False,
                cpu_s=30,
                fsize_mb=1,
                env={},
                ro_paths=[],
                stdin=None,
                max_output_bytes=4000,
            )
        except OSError as exc:
            return f"bubblewrap ({tools.bwrap}) could not be started: {exc}"
    if result.returncode == 0:
        return None
    detail = (result.stderr or result.stdout).strip() or f"exit status {result.returncode}"
    return f"bubblewrap ({tools.bwrap}) cannot create the sandbox here: {detail}{_namespace_hint()}"


def _namespace_hint() -> str:
    def read(path: str) -> str:
        try:
            return Path(path).read_text().strip()
        except OSError:
            return ""

    if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
        return (
            ". AppArmor restricts unprivileged user namespaces (Ubuntu 23.10+): run `sudo sysctl -w "
            "kernel.apparmor_restrict_unprivileged_userns=0` or give bwrap an AppArmor profile"
        )
    if read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
        return ". Unprivileged user namespaces are off: `sudo sysctl -w kernel.unprivileged_userns_clone=1`"
    if read("/proc/sys/user/max_user_namespaces") == "0":
        return ". User namespaces are off: `sudo sysctl -w user.max_user_namespaces=15000`"
    return (
        ". In a container, bwrap needs user namespaces (e.g. `docker run --security-opt seccomp=unconfined "
        "--security-opt apparmor=unconfined`, or --privileged)"
    )


def _checked_ro_path(path: Path | str) -> Path:
    resolved = Path(path).resolve()
    if not resolved.exists():
        raise ValueError(f"ro_paths: {path} does not exist")
    for forbidden in _FORBIDDEN_RO:
        if resolved == forbidden or (forbidden != Path("/") and resolved.is_relative_to(forbidden)):
            raise ValueError(f"ro_paths: {path} would expose {forbidden} to the sandbox")
    return resolved


def _python_paths() -> list[Path]:
    """Where the running Python lives (venv and base), so ``sys.executable`` runs inside."""
    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    candidates.add(str(Path(sys.executable).resolve().parent.parent))
    paths = []
    for candidate in sorted(candidates):
        path = Path(candidate).resolve()
        exposes = path == Path("/") or any(path == f or path.is_relative_to(f) for f in _FORBIDDEN_RO[1:])
        if path.is_dir() and not exposes:
            paths.append(path)
    return paths


def _bwrap_args(
    tools: _Tools, workdir: Path, network: bool, ro_paths: list[Path], cwd: Path | None = None
) -> list[str]:
    root = _running_as_root()
    args = [tools.bwrap]
    # As root bwrap works privileged (no user namespace) so that setpriv can drop to a real
    # non-root uid; otherwise a user namespace is what lets an unprivileged user sandbox.
    args += [] if root else ["--unshare-user"]
    args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not network:
        args.append("--unshare-net")
    args += ["--die-with-parent", "--new-session", "--clearenv"]
    if root:
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    bound: list[Path] = [Path("/usr")]
    args += ["--ro-bind", "/usr", "/usr"]
    for name in SYSTEM_DIRS:
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
            bound.append(path)
    args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp"]
    made: set[Path] = {Path("/"), Path("/tmp")}
    mounts = [(p, "--ro-bind") for p in (*_python_paths(), *ro_paths)] + [(workdir, "--bind")]
    for path, how in mounts:
        covered = any(path == b or path.is_relative_to(b) for b in bound)
        if covered and how == "--ro-bind":
            continue
        for ancestor in reversed(path.parents):
            if ancestor in made or any(ancestor == b or ancestor.is_relative_to(b) for b in bound):
                continue
            # 0755 so the (unprivileged) command can walk down to what is bound below.
            args += ["--perms", "0755", "--dir", str(ancestor)]
            made.add(ancestor)
        args += [how, str(path), str(path)]
        bound.append(path)
    # The sandbox's own root holds only mount points: make it read-only too. As root the
    # capability-less bwrap cannot enter the lent workdir (mode 0700 is common): the command
    # enters it after dropping to SANDBOX_UID (see _limits_inside).
    args += ["--remount-ro", "/", "--chdir", "/" if root else str(cwd or workdir)]
    return args


def _environment(workdir: Path, extra: Mapping[str, str]) -> list[str]:
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(workdir),
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        **{str(k): str(v) for k, v in extra.items()},
    }
    args: list[str] = []
    for key, value in env.items():
        args += ["--setenv", key, value]
    return args


def _limits_inside(tools: _Tools, max_procs: int, workdir: Path, uid: int = SANDBOX_UID) -> list[str]:
    """Commands that run inside the sandbox, before the real one.

    The process limit is set here, not in ``preexec_fn``: RLIMIT_NPROC counts every process of
    the uid in the namespace where the limit is checked, so set before bwrap creates its user
    namespace it would count all the user's processes on the host (and bwrap itself fails to
    start); set inside, it counts only the sandbox's own.
    """
    chain = [tools.prlimit, f"--nproc={max_procs}:{max_procs}", "--"]
    if tools.setpriv is not None:
        chain += [
            tools.setpriv,
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--",
        ]
        chain += [tools.env, f"--chdir={workdir}", "--"]  # entered as that uid (see _bwrap_args)
    return chain


def _preexec(memory_mb: int, cpu_s: int, fsize_mb: int) -> Callable[[], None]:
    memory = memory_mb * 1024 * 1024
    fsize = fsize_mb * 1024 * 1024

    def apply() -> None:
        # Runs in the forked child before exec: async-signal-safe work only (setrlimit is).
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))  # SIGXCPU, then SIGKILL
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


# -- running ------------------------------------------------------------------------------------


def _run(
    tools: _Tools,
    argv: list[str],
    workdir: Path,
    *,
    timeout_s: float,
    memory_mb: int,
    max_procs: int,
    network: bool,
    cpu_s: int,
    fsize_mb: int,
    env: Mapping[str, str],
    ro_paths: list[Path],
    stdin: bytes | None,
    max_output_bytes: int,
) -> SandboxResult:
    with contextlib.ExitStack() as lease:
        uid = lease.enter_context(_leased_uid()) if tools.setpriv is not None else SANDBOX_UID
        return _run_as(
            tools,
            [
                *_bwrap_args(tools, workdir, network, ro_paths),
                *_environment(workdir, env),
                "--",
                *_limits_inside(tools, max_procs, workdir, uid),
                *argv,
            ],
            workdir,
            uid,
            timeout_s=timeout_s,
            memory_mb=memory_mb,
            cpu_s=cpu_s,
            fsize_mb=fsize_mb,
            stdin=stdin,
            max_output_bytes=max_output_bytes,
        )


def _run_as(
    tools: _Tools,
    command: list[str],
    workdir: Path,
    uid: int,
    *,
    timeout_s: float,
    memory_mb: int,
    cpu_s: int,
    fsize_mb: int,
    stdin: bytes | None,
    max_output_bytes: int,
) -> SandboxResult:
    owners = _lend_workdir(workdir, uid) if tools.setpriv is not None else None
    started = time.monotonic()
    timed_out = False
    try:
        # Files, not pipes: no deadlock on a chatty command, and RLIMIT_FSIZE bounds them.
        with (
            tempfile.TemporaryFile() as out,
            tempfile.TemporaryFile() as err,
            tempfile.TemporaryFile() as inp,
        ):
            if stdin:
                inp.write(stdin)
                inp.seek(0)
            process = subprocess.Popen(
                command,
                stdin=inp if stdin else subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,  # its own process group, killed as a whole on timeout
                preexec_fn=_preexec(memory_mb, cpu_s, fsize_mb),
                close_fds=True,
            )
            try:
                process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(process)
            except BaseException:
                _kill_group(process)  # Ctrl-C or an error here must not leave it running
                raise
            stdout = _read_back(out, max_output_bytes)
            stderr = _read_back(err, max_output_bytes)
    finally:
        if owners is not None:
            _give_back_workdir(workdir, owners)
    returncode = process.returncode
    return SandboxResult(
        returncode=returncode,
        stdout=stdout,
        stderr=stderr,
        killed_reason="timeout" if timed_out else _why_stopped(returncode, stderr),
        wall_s=round(time.monotonic() - started, 4),
    )


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    # bwrap leads the group; killing it makes --die-with-parent kill the sandbox's pid 1, and
    # with it every process of the sandbox's pid namespace.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _read_back(handle: IO[bytes], limit: int) -> str:
    handle.seek(0)
    data = handle.read(limit + 1)
    text = data[:limit].decode("utf-8", errors="replace")
    return text + "\n[output truncated]" if len(data) > limit else text


def _why_stopped(returncode: int, stderr: str) -> str | None:
    if returncode == 0:
        return None
    # bwrap reports a command killed by a signal as 128 + the signal number.
    number = -returncode if returncode < 0 else returncode - 128 if returncode > 128 else 0
    if number == signal.SIGXCPU:
        return "cpu limit"
    if number == signal.SIGXFSZ or "File too large" in stderr:  # Python ignores SIGXFSZ: EFBIG
        return "file size limit"
    if "MemoryError" in stderr or "Cannot allocate memory" in stderr or "bad_alloc" in stderr:
        return "memory limit"
    if "Resource temporarily unavailable" in stderr or "BlockingIOError" in stderr:
        return "process limit"
    if number > 0:
        try:
            return f"signal {signal.Signals(number).name}"
        except ValueError:
            return None
    return None


# -- the uid a command runs as (root only) ----------------------------------------------------------


@contextlib.contextmanager
def _leased_uid() -> Iterator[int]:
    """A uid of ``LEASED_UIDS`` no other sandbox on this host holds, for as long as the block runs.

    The lease is an exclusive ``flock`` on a file named after the uid in a root-only folder:
    every process (xdist workers, other harnesses) sees the same leases, and the kernel drops a
    lease whose holder died. When the block ends the command's pid namespace is gone, so the
    next holder starts with no process of that uid left running."""
    # A fixed folder, not $TMPDIR: every harness on the host must see the same leases.
    folder = LEASE_FOLDER
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
        # Someone else made it (a link, an open folder): root must not create files through it.
        raise SandboxUnavailable(f"{folder} must be a folder owned by root and writable only by root")
    start = (os.getpid() * 31 + next(_LEASE_TURNS)) % len(LEASED_UIDS)
    for step in range(len(LEASED_UIDS)):
        uid = LEASED_UIDS[(start + step) % len(LEASED_UIDS)]
        handle = os.open(folder / str(uid), os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            continue
        try:
            yield uid
        finally:
            os.close(handle)  # closing drops the lock
        return
    raise SandboxUnavailable(f"all {len(LEASED_UIDS)} sandbox uids are in use on this host")


_LEASE_TURNS = itertools.count()


# -- workdir ownership (root only) ------------------------------------------------------------------


def _lend_workdir(workdir: Path, uid: int = SANDBOX_UID) -> dict[str, tuple[int, int]]:
    """Hand ``workdir`` to ``uid``; return the owners to restore. Links are never followed."""
    owners: dict[str, tuple[int, int]] = {}
    for path in _walk(workdir):
        info = os.lstat(path)
        owners[path] = (info.st_uid, info.st_gid)
        os.chown(path, uid, uid, follow_symlinks=False)
    return owners


def _give_back_workdir(workdir: Path, owners: dict[str, tuple[int, int]]) -> None:
    """Restore the owners; what the command created goes to the owner of ``workdir``."""
    default = owners.get(str(workdir), (0, 0))
    for path in _walk(workdir):
        uid, gid = owners.get(path, default)
        with contextlib.suppress(FileNotFoundError):  # vanished meanwhile: nothing to give back
            os.chown(path, uid, gid, follow_symlinks=False)


def _walk(top: Path) -> list[str]:
    paths = [str(top)]
    for folder, dirs, files in os.walk(top, followlinks=False):
        paths += [os.path.join(folder, name) for name in (*dirs, *files)]
    return paths
