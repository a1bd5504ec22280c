"""The last hook event pylon saw of each agent session: a tiny file per session that `pylon hook`
writes on every event it answers (`<state dir>/sessions/marks/<agent>.<session id>`, holding the
event's name and time). `pylon sessions` reads it beside the transcript: an event newer than the
transcript's last line tells the phase (a tool about to run, a turn that stopped).

Written on the hook's path, so it costs one small file write and imports nothing but os and time
(tests/agents/test_hook_entry.py keeps the hook light). Losing a mark loses nothing: the
transcript still says what it says.
"""

from __future__ import annotations

import os

# What each event pylon's hooks receive says about the session right after it.
PHASE = {
    "SessionStart": "waiting",
    "UserPromptSubmit": "working",
    "PreToolUse": "working",
    "PostToolUse": "working",
    "PostToolBatch": "working",
    "SubagentStop": "working",
    "Stop": "waiting",
    "Notification": "waiting",
    "SessionEnd": "done",
}
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def folder() -> str:
    from pylon.state import state_home

    return os.path.join(state_home(), "sessions", "marks")


def note(agent: str, session_id: str, event: str, when: float | None = None) -> None:
    """Record `event` (seen at `when`, default now) as the session's latest (a no-op for an id that
    could not be a file name, or an event that says nothing about the phase). Never raises."""
    if (
        event not in PHASE
        or not session_id
        or len(session_id) > 128
        or not _SAFE.issuperset(session_id)
        or session_id in (".", "..")
    ):
        return
    import time

    try:
        where = folder()
        target = os.path.join(where, f"{agent}.{session_id}")
        tmp = f"{target}.{os.getpid()}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        except FileNotFoundError:
            os.makedirs(where, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, f"{event} {time.time() if when is None else when:.3f}\n".encode("ascii"))
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except (OSError, ValueError):
        return


def read(agent: str, session_id: str) -> tuple[str, float] | None:
    """(event, time) of the session's latest mark, or None."""
    try:
        with open(os.path.join(folder(), f"{agent}.{session_id}"), "rb") as fh:
            event, _, when = fh.read(256).decode("ascii", "replace").strip().partition(" ")
        return (event, float(when)) if event in PHASE else None
    except (OSError, ValueError):
        return None


KEEP_DAYS = 14


def prune(now: float) -> None:
    """Remove the marks of sessions no hook spoke for in KEEP_DAYS days (one file per session
    would otherwise pile up); a phase that old comes from the transcript anyway."""
    try:
        with os.scandir(folder()) as entries:
            for entry in entries:
                try:
                    if now - entry.stat(follow_symlinks=False).st_mtime > KEEP_DAYS * 86400:
                        os.unlink(entry.path)
                except OSError:
                    continue
    except OSError:
        return
