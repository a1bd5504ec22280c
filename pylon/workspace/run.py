"""`pylon ws run -- CMD...`: run a command and report exactly what it changed in the checkout.

The state is captured before (or taken from a live `pylon ws watch`) and after the command; the
report is a tree-to-tree diff of the two working trees, so it names every path the command
created, modified, deleted or re-moded, and nothing it only touched. HEAD and staged-index
movements are reported too. The command's own exit status is returned.
"""

from __future__ import annotations

import os
import signal
import time

from pylon.workspace import state as st
from pylon.workspace.changes import listed
from pylon.workspace.current import current_state
from pylon.workspace.repo import Checkout


def _spawn(argv: list[str], stdout_to_stderr: bool) -> int:
    """Run argv in the current folder with the user's own environment; return its exit status."""
    actions = [(os.POSIX_SPAWN_DUP2, 2, 1)] if stdout_to_stderr else []
    try:
        pid = os.posix_spawnp(argv[0], argv, dict(os.environ), file_actions=actions)
    except (FileNotFoundError, PermissionError) as exc:
        from pylon.errors import PylonError

        raise PylonError(
            "command-not-found",
            f"Cannot run {argv[0]!r}: {exc.strerror}.",
            "Check the command name, or pass one shell string: pylon ws run -- 'make test'",
            exit_code=127,
        ) from None
    # Like a shell: while the child runs, Ctrl-C is the child's to handle.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except ChildProcessError:
                return 1
    finally:
        signal.signal(signal.SIGINT, previous)
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def run(checkout: Checkout, command: list[str], *, limit: int = 200, stdout_to_stderr: bool = False) -> dict[str, object]:
    argv = ["/bin/sh", "-c", command[0]] if len(command) == 1 else list(command)
    before, source = current_state(checkout)
    if source == "watch":
        from pylon.workspace.current import refresh_head

        before = refresh_head(checkout, before)
    started = time.monotonic()
    code = _spawn(argv, stdout_to_stderr)
    elapsed = time.monotonic() - started
    after = st.capture(checkout)
    total, shown = listed(checkout, before.worktree, after.worktree, limit)
    return {
        "command": command,
        "exit_code": code,
        "seconds": round(elapsed, 3),
        "files": [e.to_dict() for e in shown],
        "total": total,
        "truncated": len(shown) < total,
        "left_out": total - len(shown),
        "head": {"before": before.head, "after": after.head, "changed": before.head != after.head},
        "branch": {
            "before": st.short_branch(before.branch),
            "after": st.short_branch(after.branch),
            "changed": before.branch != after.branch,
        },
        "index_changed": before.index_tree != after.index_tree,
        "before": before.commit,
        "after": after.commit,
        "source": source,
        "notes": after.notes,
    }
