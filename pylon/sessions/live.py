"""Which sessions are running now, as the clients themselves record it, and the last hook event
pylon saw of each (marks.py writes those).

- Claude Code keeps `<config>/sessions/<pid>.json` while a session runs (`sessionId`, `pid`,
  `procStart`: the process's start time in clock ticks, `status`: busy, idle or waiting) and
  removes it when the session ends. A file whose process is gone, or is another process with the
  same pid (another start time), is left over from a crash: not running.
- Codex holds an exclusive `flock` on `$CODEX_HOME/thread-writer-locks/<session id>.lock` while a
  session runs and removes the file at the end. On Linux `/proc/locks` tells whether the lock is
  still held (a file left by a killed client is not); elsewhere the file's presence is taken.

A client version without the folder gives None: whether its sessions run is then unknown.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def claude_running(config_dir: str) -> dict[str, str] | None:
    """session id -> the client's own status (busy, idle, waiting) of every running session."""
    folder = os.path.join(config_dir, "sessions")
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    from pylon.agents.jsonio import loads

    found: dict[str, str] = {}
    for name in names:
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(folder, name), "rb") as fh:
                record: Any = loads(fh.read(64 * 1024))
        except (OSError, ValueError):
            continue
        if not isinstance(record, dict) or not isinstance(record.get("sessionId"), str):
            continue
        pid = record.get("pid")
        if not isinstance(pid, int) or not _same_process(pid, record.get("procStart")):
            continue
        status = record.get("status")
        found[record["sessionId"]] = status if isinstance(status, str) else "busy"
    return found


def _same_process(pid: int, started: object) -> bool:
    from pylon.atomic import pid_alive

    if not pid_alive(pid):
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode("ascii", "replace")
    except OSError:
        return True  # no /proc (macOS): the pid alone
    fields = stat.rsplit(")", 1)[-1].split()  # after the command name, which may hold spaces
    return started is None or len(fields) < 20 or fields[19] == str(started)


def codex_running(codex_home: str) -> set[str] | None:
    """The ids of the Codex sessions whose writer holds its thread lock."""
    folder = os.path.join(codex_home, "thread-writer-locks")
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".lock") and not n.startswith(".")]
    except OSError:
        return None
    held = _flocked()
    found = set()
    for name in names:
        try:
            st = os.stat(os.path.join(folder, name))
        except OSError:
            continue
        if held is None or (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino) in held:
            found.add(name[: -len(".lock")])
    return found


def _flocked() -> set[tuple[int, int, int]] | None:
    """(major, minor, inode) of every file someone holds a lock on (Linux), None elsewhere."""
    try:
        with open("/proc/locks", "rb") as fh:
            text = fh.read().decode("ascii", "replace")
    except OSError:
        return None
    held = set()
    for line in text.splitlines():
        words = line.split()
        where = next((w for w in words if w.count(":") == 2), "")
        parts = where.split(":")
        try:
            held.add((int(parts[0], 16), int(parts[1], 16), int(parts[2])))
        except (ValueError, IndexError):
            continue
    return held
