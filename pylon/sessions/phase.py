"""A session's phase: working, waiting (for the user) or done, from what is known, best first.

1. The client's own record of running sessions (live.py): a session it does not list is done; a
   Claude Code session's own status says busy (working), idle or waiting (waiting).
2. pylon's hook mark (marks.py), when newer than the transcript's last line: a tool about to run
   or just run is working, a `Stop` is waiting, a `SessionEnd` done.
3. The transcript's last turn: a prompt, a tool call or a tool result not yet answered is
   working; an answer or an interruption is waiting, or done for a run that cannot be continued
   (`claude -p`, `codex exec`).
4. Without a record of running sessions (older clients), time decides what the transcript
   cannot: a turn left open for an hour, or waiting for twelve, is done.
"""

from __future__ import annotations

WORKING, WAITING, DONE = "working", "waiting", "done"
OPEN = ("prompt", "call", "result")
STALE_WORKING = 3600.0
STALE_WAITING = 12 * 3600.0
_STATUS = {"busy": WORKING, "idle": WAITING, "waiting": WAITING}


def interactive(client: str, entry: str) -> bool:
    """Whether a person can continue the session (not a one-shot `claude -p` or `codex exec`)."""
    if client == "codex":
        return entry not in ("exec",)
    return not entry.startswith("sdk")


def decide(
    turn: str,
    last: float | None,
    running: bool | None,
    status: str | None,
    mark: tuple[str, float] | None,
    can_continue: bool,
    now: float,
) -> str:
    if running is False:
        return DONE
    if running and status in _STATUS:
        return _STATUS[str(status)]
    if mark is not None and (last is None or mark[1] >= last - 1.0):
        from pylon.sessions.marks import PHASE

        found = PHASE[mark[0]]
        if running and found != DONE:  # the client says it runs: a SessionEnd mark is older news
            return found
        if running is None:
            stale = STALE_WORKING if found == WORKING else STALE_WAITING
            return found if found == DONE or now - mark[1] <= stale else DONE
    still = turn in OPEN
    if running:
        return WORKING if still else WAITING
    if not still and not can_continue:
        return DONE
    idle = now - (last or 0.0)
    if idle > (STALE_WORKING if still else STALE_WAITING):
        return DONE
    return WORKING if still else WAITING
