"""Guard snapshots as ops of the log: `ws undo` right after a guarded `rm -rf src` brings src back.

The guard hook takes its snapshot (guard_snapshot.take) before the command runs, so nobody knows
yet what the command will change. It records an op of kind `guard` (this module) whose one step
names the snapshot as `before` and the paths the command destroys (its path targets, plus the
ignored files the snapshot holds for it); the op is `done` at once. Undo of it brings back, from the
snapshot, every file under those paths that is gone now, and keeps every file that exists (the
command's own edit cannot be told from a later one without a state after the command, so an
existing file is never overwritten): the result names those, and `pylon ws restore guard-<n> PATH`
replaces them when that is what is wanted. Files made under those paths since are kept too. The
state replaced is in `undo_from`, as for every undo.

Recording never delays or blocks the command: when the op log is busy (its lock held, or an op
interrupted) the snapshot stays a plain `guard-<n>` and the note says `ws restore`.
"""

from __future__ import annotations

import os

from pylon.locks import file_lock
from pylon.workspace import git, oplog
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.verdict import Target

MODULE = "pylon.workspace.guard_op"


def destroyed(checkout: Checkout, targets: list[Target]) -> list[str]:
    """Root-relative paths the guarded command destroys: its path targets, and what its `find` or
    `git clean` would list (asked the same way the snapshot asked)."""
    from pylon.workspace.guard_snapshot import removed_files

    paths = [t.path for t in targets if t.kind == "path" and t.path]
    listed = [t for t in targets if t.kind in ("find", "git-clean")]
    return sorted(set(paths) | set(removed_files(checkout, listed) if listed else []))


def record(checkout: Checkout, snapshot: dict[str, object], paths: list[str], command: str) -> int | None:
    """The op of a guard snapshot (its seq), or None when it cannot be recorded right now."""
    from pylon.locks import is_held

    paths = sorted({p.strip("/") or "." for p in paths if p})
    if not paths or is_held(oplog.lock_path(checkout)):
        return None
    try:
        with file_lock(oplog.lock_path(checkout), timeout=1.0, what="the op log"):
            if any(op.status in oplog.OPEN for op in oplog.entries(checkout, limit=50)):
                return None
            commit = str(snapshot["commit"])
            step = oplog.Step(checkout.root, commit, commit, "keep", paths)
            name = str(snapshot["name"])
            first = command.splitlines()[0][:200] if command else ""
            op = oplog.begin(checkout, "guard", [step], title=f"{name}: {first}", module=MODULE, command=first,
                             data={"name": name, "ref": snapshot.get("ref"), "paths": paths})
            oplog.complete(checkout, op)
            return op.seq
    except Exception:  # noqa: BLE001 - the snapshot is taken; the op is a convenience on top of it
        return None


def check_undo(checkout: Checkout, op: oplog.Op) -> None:
    """Nothing to refuse: undo writes only files that are gone."""


def finish_op(checkout: Checkout, op: oplog.Op) -> None:
    """Nothing to finish: recording the op changed no file."""


def undo_op(checkout: Checkout, op: oplog.Op) -> dict[str, object]:
    """Bring back the files under the op's paths that are gone now; keep every file that exists."""
    from pylon.workspace.repo import locate
    from pylon.workspace.restore_state import make_state, restore
    from pylon.workspace.commits import read_state
    from pylon.workspace.reverse import scratch_tree
    from pylon.workspace.state import capture

    step = op.steps[0]
    co = locate(step.root)
    kept_state = (op.record.get("undo_from") or {}).get(step.root)
    now = read_state(co, kept_state) if kept_state else capture(co, label=f"before undo of op {op.seq}")
    listing = git.run(["ls-tree", "-r", "-z", "--full-tree", step.before, "--", *(step.paths or [])],
                      cwd=co.root, env={"GIT_LITERAL_PATHSPECS": "1"})
    missing: list[bytes] = []
    kept: list[str] = []
    back: list[str] = []
    for line in listing.split(b"\0"):
        if not line:
            continue
        meta, _, raw = line.partition(b"\t")
        path = raw.decode("utf-8", "surrogateescape")
        if _occupied(co.root, path):
            kept.append(path)
            continue
        mode, _kind, oid = meta.decode().split()
        missing.append(f"{mode} {oid}\t".encode() + raw + b"\0")
        back.append(path)
    if missing:
        tree = scratch_tree(co, now.worktree, remove=back, entries=b"".join(missing))
        target = make_state(co, worktree=tree, index_tree=now.index_tree, head=now.head, branch=now.branch,
                            label=f"undo of op {op.seq}")
        restore(co, target, head="keep", current=now)
    return {co.root: {"kept": [], "merged": [], "markers": [], "back": back, "existing": kept}}


def _occupied(root: str, path: str) -> bool:
    """Something is at `path` now, or a file stands where one of its folders was."""
    full = os.path.join(root, path)
    if os.path.lexists(full):
        return True
    parent = os.path.dirname(path)
    while parent:
        where = os.path.join(root, parent)
        if os.path.lexists(where):
            return os.path.islink(where) or not os.path.isdir(where)
        parent = os.path.dirname(parent)
    return False
