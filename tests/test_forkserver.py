"""The fork server's processes behave as `subprocess.Popen`'s do (tests/forkserver.py, docs/testing.md):
exit status, a signal's negative status, pipes, a session of their own, and a pid that stays theirs
(a zombie) until the test has their status."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.conftest import FORK, run_cmd, run_many, start_cmd

pytestmark = pytest.mark.skipif(not FORK, reason="PYLON_TEST_FORK=0: every command line is a real script")


def state(pid: int) -> str:
    return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split()[0]


def test_a_command_blocked_on_stdin_is_killed_and_reserved_until_waited(project: Path) -> None:
    proc = start_cmd(
        "canon",
        "hook",
        "claude-code",
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.poll() is None and proc.pid != os.getpid()
    os.kill(proc.pid, signal.SIGKILL)
    deadline = 600
    while state(proc.pid) != "Z" and deadline:  # ended, not reaped: nobody else can get this pid
        deadline -= 1
        os.sched_yield()
    assert proc.wait(timeout=60) == -signal.SIGKILL
    proc.kill()  # after the status: a no-op, as for Popen
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        stream.close()


def test_pipes_text_and_exit_status(project: Path) -> None:
    proc = start_cmd("canon", "bogus-command", cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and err is None and "bogus-command" in out
    hook = start_cmd(
        "canon",
        "hook",
        "claude-code",
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    out, _ = hook.communicate(b"{}", timeout=60)
    assert hook.returncode == run_cmd("canon", "hook", "claude-code", cwd=project, input="{}").code


def test_a_session_of_its_own_and_signals_by_group(project: Path) -> None:
    proc = start_cmd(
        "canon",
        "hook",
        "claude-code",
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        assert os.getsid(proc.pid) == proc.pid
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=60) == -signal.SIGTERM
    proc.stdin.close()


def test_run_many_runs_each_command_in_a_process_of_its_own(project: Path) -> None:
    results = run_many([["canon", "--version"]] * 6, cwd=project)
    assert [r.code for r in results] == [0] * 6 and len({r.out for r in results}) == 1


def test_a_closed_server_leaves_no_folder_behind(project: Path) -> None:
    from tests.conftest import script
    from tests.forkserver import ForkServer

    server = ForkServer()
    try:
        code, out, _ = server.run("pylon", script("pylon"), ["--version"], str(project), dict(os.environ), None, 60)
        assert code == 0 and out.startswith(b"pylon"), out
        folder = os.path.dirname(server.path)
        assert os.path.exists(os.path.join(folder, "sock"))
    finally:
        server.close()
    assert not os.path.exists(folder)
