"""Waiting is never silent: a ws command that waits for the op log says so on stderr within a second
(who holds it, since when, the op id) and gives up with `lock-timeout` after PYLON_WS_LOCK_TIMEOUT;
`ws new` refuses while an op is interrupted (issue 23: 7)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import git, script, write_files
from tests.workspace.helpers import pylon
from tests.workspace.wt_helpers import immutable, new, require_immutable

HOLD = """
import sys, time
from pylon.locks import annotate, file_lock
with file_lock(sys.argv[1], timeout=5, what="the op log", announce=True):
    annotate(sys.argv[1], op=41)
    print("held", flush=True)
    time.sleep(60)
"""


def common_dir(repo: Path) -> Path:
    common = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    return common if common.is_absolute() else repo / common


def test_a_waiter_names_the_holder_within_a_second_and_gives_up_with_a_coded_error(repo: Path) -> None:
    new(repo, "a")
    lock = common_dir(repo) / "pylon" / "ops.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        env = {"PYLON_WS_LOCK_TIMEOUT": "3"}
        for args in (["ws", "move", "a", "--json"], ["ws", "new", "b", "--json"]):
            started = time.monotonic()
            waiter = subprocess.Popen(
                [script("pylon"), *args],
                cwd=repo,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env={**_env(), **env},
            )
            assert waiter.stderr is not None
            line = waiter.stderr.readline()
            noticed = time.monotonic() - started
            out, rest = waiter.communicate(timeout=60)
            gave_up = time.monotonic() - started
            assert "waiting for the op log" in line and f"pid {holder.pid}" in line and "op 41" in line, line
            assert "since" in line and "giving up after 3 s" in line
            assert noticed < gave_up  # the notice came while it waited (how soon is bench's to time, not a test's)
            assert waiter.returncode == 1, (out, rest)  # lock-timeout: exit 1 (pylon/codes.py)
            error = json.loads(out)["error"]
            assert error["code"] == "lock-timeout" and error["holder"]["pid"] == holder.pid
            assert error["holder"]["op"] == 41 and f"kill {holder.pid}" in error["hint"]
            assert 2.5 < gave_up < 30
    finally:
        holder.kill()
        holder.wait()
    # free again: no notice, and the command runs
    moved = pylon("ws", "move", "a", cwd=repo)
    assert moved.code == 0 and "waiting" not in moved.err, moved


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_new_refuses_while_an_op_is_interrupted(repo: Path) -> None:
    a = Path(str(new(repo, "a")["path"]))
    write_files(a, {"work.txt": "agent work\n", "stuck/file.txt": "x\n"})
    require_immutable(a / "stuck")
    try:
        assert pylon("ws", "rm", "a", "--force", cwd=repo).code != 0  # leaves the op interrupted
    finally:
        immutable(a / "stuck", False)
    refused = pylon("ws", "new", "b", "--json", cwd=repo)
    error = refused.json()["error"]
    assert error["code"] == "op-interrupted" and "pylon ws undo --finish" in error["hint"], refused
    assert "pylon ws undo" in error["hint"]
    assert git(repo, "branch", "--list", "pylon-session-b") == ""
    assert pylon("ws", "undo", "--finish", cwd=repo).code == 0
    assert pylon("ws", "new", "b", cwd=repo).code == 0
