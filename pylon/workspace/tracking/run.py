"""`pylon ws run -- CMD...`: run a command and report exactly what it changed in the checkout.

Like an agent's shell command, it is an undoable op: the state before it is kept and what it
changed is recorded (pylon/workspace/keep/), so `pylon ws undo` right after reverses it.

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
from pylon.workspace.current import current_state
from pylon.workspace.repo import Checkout
from pylon.workspace.tracking.changes import listed


def _spawn(argv: list[str], stdout_to_stderr: bool, output_fd: int | None = None) -> int:
    """Run argv in the current folder with the user's own environment; return its exit status.
    With `output_fd`, stdout and stderr both go to that file (in the order written)."""
    if output_fd is not None:
        actions = [(os.POSIX_SPAWN_DUP2, output_fd, 1), (os.POSIX_SPAWN_DUP2, output_fd, 2)]
    else:
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


def output_file() -> str:
    """A new file under the state directory for the whole output of one `ws run --max-bytes`."""
    from pylon.state import state_path

    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    return str(state_path("runs", f"{stamp}-{os.getpid()}.log"))


def bounded(path: str, max_bytes: int) -> dict[str, object]:
    """The head and tail of the file within max_bytes together (cut at line ends where one lies in
    the last quarter of each half), its exact size, and how many bytes were left out between."""
    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        if size <= max_bytes:
            return {"path": path, "bytes": size, "head": fh.read(), "tail": b"", "omitted": 0}
        half = max_bytes // 2
        head = fh.read(half)
        cut = head.rfind(b"\n")
        if cut >= half * 3 // 4:
            head = head[: cut + 1]
        fh.seek(size - (max_bytes - len(head)))
        tail = fh.read()
        cut = tail.find(b"\n")
        if 0 <= cut < len(tail) // 4:
            tail = tail[cut + 1 :]
    return {"path": path, "bytes": size, "head": head, "tail": tail, "omitted": size - len(head) - len(tail)}


def run(
    checkout: Checkout,
    command: list[str],
    *,
    limit: int = 200,
    stdout_to_stderr: bool = False,
    max_output: int | None = None,
) -> dict[str, object]:
    argv = ["/bin/sh", "-c", command[0]] if len(command) == 1 else list(command)
    import shlex

    from pylon.workspace.keep.chain import after as keep_after
    from pylon.workspace.keep.chain import before as keep_before

    line = command[0] if len(command) == 1 else shlex.join(command)
    hook_id = f"ws-run-{os.getpid()}-{time.time_ns()}"
    keep_before(checkout, command=line, hook_id=hook_id)  # an undoable op, as for a hook
    before, source = current_state(checkout)
    if source == "watch":
        from pylon.workspace.current import refresh_head

        before = refresh_head(checkout, before)
    started = time.monotonic()
    log = output_file() if max_output is not None else None
    if log is not None:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            code = _spawn(argv, stdout_to_stderr, fd)
        finally:
            os.close(fd)
    else:
        code = _spawn(argv, stdout_to_stderr)
    elapsed = time.monotonic() - started
    op = keep_after(checkout, hook_id=hook_id, command=line)
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
        "op": op,  # `pylon ws undo` reverses what it changed (None: it changed nothing)
        **({"output": bounded(log, max_output)} if log is not None and max_output is not None else {}),
    }
