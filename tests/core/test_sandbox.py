"""Executable artifacts and external agents run sandboxed (docs/design.md §9): bubblewrap, no network,
read-only system, only the workdir writable, resource limits, a wall-clock timeout.

These tests need Debian's `bubblewrap`; without it they fail (never skip), saying so.
"""

from __future__ import annotations

import concurrent.futures
import os
import socket
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pytest_pastbench.core.sandbox import SandboxResult, check_sandbox, run_sandboxed
from pytest_pastbench.errors import SandboxUnavailable

pytestmark = pytest.mark.reliability


@pytest.fixture
def sandbox() -> None:
    """Fail (not skip) with the reason when bubblewrap cannot run here."""
    try:
        check_sandbox()
    except SandboxUnavailable as exc:
        pytest.fail(f"the sandbox is unavailable: {exc}", pytrace=False)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def python(
    code: str, workdir: Path, *, timeout_s: float = 20, memory_mb: int = 512, max_procs: int = 32, **kw
) -> SandboxResult:
    return run_sandboxed(
        [sys.executable, "-c", textwrap.dedent(code)],
        workdir,
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        max_procs=max_procs,
        **kw,
    )


def test_a_well_behaved_command_runs_and_writes_its_workdir(sandbox: None, workdir: Path) -> None:
    result = python(
        """
        import os
        open("out.txt", "w").write("written inside")
        print("cwd", os.getcwd())
        """,
        workdir,
    )
    assert result.returncode == 0, result.stderr
    assert result.killed_reason is None
    assert f"cwd {workdir.resolve()}" in result.stdout
    assert (workdir / "out.txt").read_text() == "written inside"
    # Whoever the command ran as, what it wrote now belongs to the workdir's owner.
    assert (workdir / "out.txt").stat().st_uid == workdir.stat().st_uid


def test_an_infinite_loop_is_killed_by_the_timeout(sandbox: None, workdir: Path) -> None:
    result = python("while True:\n    pass\n", workdir, timeout_s=1.5)
    assert result.killed_reason == "timeout"
    assert result.returncode != 0
    assert result.wall_s < 10


def test_a_fork_bomb_is_stopped_by_the_process_limit(sandbox: None, workdir: Path) -> None:
    result = python(
        """
        import os, time
        started = 0
        for _ in range(200):
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
            started += 1
            print(started, flush=True)
        print("all 200 started", flush=True)
        """,
        workdir,
        timeout_s=15,
        max_procs=16,
    )
    assert "all 200 started" not in result.stdout
    assert result.killed_reason in ("process limit", "timeout"), result
    started = [int(line) for line in result.stdout.split()]
    assert not started or max(started) < 16


def test_a_process_limit_is_the_commands_own_not_shared_with_other_sandboxes(
    sandbox: None, tmp_path: Path
) -> None:
    """A sandbox at its process limit (a fork bomb in a parallel test) must not fail another
    sandbox's first fork: as root RLIMIT_NPROC counts per uid, so each run has a uid of its own."""
    crowded, calm = tmp_path / "crowded", tmp_path / "calm"
    crowded.mkdir()
    calm.mkdir()
    # The crowd holds its processes until the test says "done": no sleep races the machine's load;
    # its timeout is only the hang guard.
    crowd = """
        import os, time
        def hold():
            while not os.path.exists("done"):
                time.sleep(0.05)
        for _ in range(12):
            if os.fork() == 0:
                hold()
                os._exit(0)
        open("ready", "w").close()
        hold()
        """
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        busy = pool.submit(python, crowd, crowded, timeout_s=300, max_procs=16)
        try:
            while not (crowded / "ready").exists() and not busy.done():
                time.sleep(0.05)
            assert (crowded / "ready").exists(), busy.result()
            result = python(
                "import subprocess; print(subprocess.run(['true']).returncode)", calm, max_procs=4
            )
            assert result.returncode == 0 and result.stdout.strip() == "0", result
        finally:
            (crowded / "done").touch()
        busy.result()


def test_no_network_not_even_the_hosts_loopback(sandbox: None, workdir: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        port = server.getsockname()[1]
        result = python(
            f"""
            import socket
            for address in (("127.0.0.1", {port}), ("1.1.1.1", 53), ("8.8.8.8", 443)):
                try:
                    socket.create_connection(address, timeout=3).close()
                    print("CONNECTED", address)
                except OSError as exc:
                    print("FAILED", address, exc)
            """,
            workdir,
        )
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody reached the host's loopback
    assert result.returncode == 0, result.stderr
    assert "CONNECTED" not in result.stdout
    assert result.stdout.count("FAILED") == 3


def test_etc_passwd_is_not_readable(sandbox: None, workdir: Path) -> None:
    assert Path("/etc/passwd").exists()  # on the host it is
    result = python("print(open('/etc/passwd').read())", workdir)
    assert result.returncode != 0
    assert "root:" not in result.stdout
    assert "No such file" in result.stderr


def test_the_host_environment_does_not_leak_in(
    sandbox: None, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACME_API_KEY", "sk-test-sandbox0123456789abcdef")
    result = python("import os; print(sorted(os.environ.items()))", workdir, env={"ALLOWED": "yes"})
    assert "sk-test-sandbox" not in result.stdout
    assert "'ALLOWED', 'yes'" in result.stdout


def test_writing_outside_the_workdir_fails(sandbox: None, workdir: Path) -> None:
    sibling = workdir.parent / "sibling.txt"
    home = Path.home() / "pastbench-sandbox-escape.txt"
    result = python(
        f"""
        import os
        for target in ({str(sibling)!r}, {str(home)!r}, "/usr/pastbench-escape", "/escape.txt",
                       {str(Path(sys.executable).resolve())!r}):
            try:
                with open(target, "a") as handle:
                    handle.write("escaped")
                print("WROTE", target)
            except OSError as exc:
                print("refused", target, type(exc).__name__)
        """,
        workdir,
    )
    assert result.returncode == 0, result.stderr
    assert not sibling.exists() and not home.exists()
    assert not Path("/usr/pastbench-escape").exists() and not Path("/escape.txt").exists()
    # /usr, the sandbox's root and the Python installation are read-only; the sibling folder
    # exists inside only as part of a private scratch tmpfs, so nothing reached the host.
    for target in ("/usr/pastbench-escape", "/escape.txt", str(Path(sys.executable).resolve())):
        assert f"refused {target}" in result.stdout


def test_memory_over_the_limit_fails(sandbox: None, workdir: Path) -> None:
    result = python("block = bytearray(1024 * 1024 * 1024)\nprint('allocated')", workdir, memory_mb=256)
    assert result.returncode != 0
    assert "allocated" not in result.stdout
    assert result.killed_reason == "memory limit"


def test_file_size_and_output_are_bounded(sandbox: None, workdir: Path) -> None:
    result = python("open('big', 'wb').write(b'x' * (4 * 1024 * 1024))", workdir, fsize_mb=1)
    assert result.returncode != 0 and result.killed_reason == "file size limit"
    assert (workdir / "big").stat().st_size <= 1024 * 1024
    chatty = python("print('y' * 3_000_000)", workdir, max_output_bytes=10_000)
    assert len(chatty.stdout) < 11_000 and chatty.stdout.endswith("[output truncated]")


def test_cpu_time_is_limited(sandbox: None, workdir: Path) -> None:
    result = python("while True:\n    pass\n", workdir, timeout_s=20, cpu_s=1)
    assert result.killed_reason == "cpu limit"
    assert result.wall_s < 15


def test_symlinks_the_command_leaves_are_not_followed_afterwards(sandbox: None, workdir: Path) -> None:
    victim = workdir.parent / "victim.txt"
    victim.write_text("mine")
    owner = victim.stat().st_uid, victim.stat().st_gid
    result = python(f"import os; os.symlink({str(victim)!r}, 'link')", workdir)
    assert result.returncode == 0, result.stderr
    assert (workdir / "link").is_symlink()
    # Giving the workdir back (as root) changes the link itself, never the file it points to.
    assert (victim.stat().st_uid, victim.stat().st_gid) == owner
    assert victim.read_text() == "mine"


# -- refusal: never run unsandboxed ------------------------------------------------------------------


def test_missing_bubblewrap_is_refused_with_the_package_to_install(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(SandboxUnavailable, match="bubblewrap") as info:
        run_sandboxed(["true"], workdir, timeout_s=5, memory_mb=64, max_procs=4)
    assert "apt-get install bubblewrap" in str(info.value)
    assert "never run unsandboxed" in str(info.value)


def test_a_bwrap_that_cannot_create_namespaces_is_refused(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = tmp_path / "fake-bin"
    fake.mkdir()
    marker = tmp_path / "ran-unsandboxed"
    bwrap = fake / "bwrap"
    bwrap.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    bwrap.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    with pytest.raises(SandboxUnavailable, match="cannot create the sandbox here") as info:
        run_sandboxed(["touch", str(marker)], workdir, timeout_s=5, memory_mb=64, max_procs=4)
    assert "No permissions to create new namespace" in str(info.value)
    assert not marker.exists()


def test_bad_arguments_are_value_errors(workdir: Path) -> None:
    with pytest.raises(ValueError, match="argv"):
        run_sandboxed([], workdir, timeout_s=1, memory_mb=64, max_procs=4)
    with pytest.raises(ValueError, match="positive"):
        run_sandboxed(["true"], workdir, timeout_s=0, memory_mb=64, max_procs=4)
    with pytest.raises(ValueError, match="not a directory"):
        run_sandboxed(["true"], workdir / "missing", timeout_s=1, memory_mb=64, max_procs=4)
    with pytest.raises(ValueError, match="/etc"):
        run_sandboxed(["true"], workdir, timeout_s=1, memory_mb=64, max_procs=4, ro_paths=["/etc"])
