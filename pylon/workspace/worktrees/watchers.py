"""Background `pylon ws watch` processes for owned worktrees (`ws new --watch`), and stopping them.

A watcher started here runs in a session of its own (Ctrl-C in the person's terminal does not
reach it; it outlives `ws new`), writes its stderr to `<git-dir>/pylon/watch.log`, and records its
pid in `watch.lock`, the lock it holds while it runs. `ws rm` and `ws prune` stop it, and wait for
it and its git children, before they remove the worktree: a watcher capturing into a removed
admin folder would make it again. A watcher whose worktree disappears anyway stops by itself.
"""

from __future__ import annotations

import os
import signal
import time

from pylon.locks import is_held
from pylon.workspace.current import WATCH_LOCK

START_WAIT = 10.0  # seconds `ws new --watch` waits for the watcher to hold its lock
STOP_WAIT = 10.0


def lock_path(git_dir: str) -> str:
    return os.path.join(git_dir, "pylon", WATCH_LOCK)


def holder(git_dir: str) -> int | None:
    """The pid of the watcher holding this git dir's watch lock (None when no watcher runs)."""
    path = lock_path(git_dir)
    if not is_held(path):
        return None
    try:
        with open(path, encoding="ascii") as fh:
            text = fh.read(32).strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def start(path: str, git_dir: str) -> int | None:
    """Start `pylon ws watch` in the worktree at `path`; its pid once it holds its lock, else None."""
    import subprocess
    import sys

    os.makedirs(os.path.join(git_dir, "pylon"), exist_ok=True)
    with open(os.path.join(git_dir, "pylon", "watch.log"), "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pylon", "ws", "watch"],
            cwd=path,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
            close_fds=True,
        )
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return None  # it stopped: its reason is in watch.log
        if holder(git_dir) == proc.pid:
            return proc.pid
        time.sleep(0.02)
    return None


def stop(git_dir: str) -> int | None:
    """Stop the watcher of this git dir and wait until it and its git children are gone; its pid."""
    pid = holder(git_dir)
    if pid is None:
        return None
    try:
        group = os.getpgid(pid)
    except ProcessLookupError:
        return None
    # a watcher `ws new --watch` started leads its own group: stop its git children with it;
    # one a person started in a terminal shares the shell's group, so only the pid is signalled
    target = group if group == pid else None
    _signal(pid, target, signal.SIGTERM)
    _signal(pid, target, signal.SIGCONT)  # a stopped watcher (Ctrl-Z, SIGSTOP) handles the TERM only once continued
    deadline = time.monotonic() + STOP_WAIT
    while time.monotonic() < deadline:
        if not _alive(pid, target):
            return pid
        time.sleep(0.02)
    _signal(pid, target, signal.SIGKILL)
    while _alive(pid, target) and time.monotonic() < deadline + STOP_WAIT:
        time.sleep(0.02)
    return pid


def _signal(pid: int, group: int | None, sig: signal.Signals) -> None:
    try:
        if group is not None:
            os.killpg(group, sig)
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _alive(pid: int, group: int | None) -> bool:
    """Is the pid (or any process of the group) still running? Zombies do not count: a watcher
    whose parent has not reaped it yet holds no lock and writes nothing."""
    if group is None:
        return _state(str(pid)) not in (None, "Z")
    try:
        names = os.listdir("/proc")
    except OSError:  # no /proc: ask the kernel, zombies included
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        return True
    return any(_state(n, group) not in (None, "Z") for n in names if n.isdigit())


def _state(pid: str, group: int | None = None) -> str | None:
    """The process state letter from /proc/PID/stat (None when gone, or not in `group`)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rsplit(")", 1)[-1].split()
    except OSError:
        return None
    if len(fields) < 3 or (group is not None and fields[2] != str(group)):
        return None
    return fields[0]
