"""Worktrees the agent clients ask for: Claude Code's WorktreeCreate and WorktreeRemove, as pylon's.

Claude Code runs a `WorktreeCreate` hook instead of its own `git worktree add` when one is
configured (`claude --worktree NAME`, the EnterWorktree tool, a subagent with `isolation:
"worktree"`), and reads the new worktree's path from the hook's stdout; `WorktreeRemove` replaces
its removal. pylon answers both (pylon/hooks/worktrees.py) through the owned-worktree commands:

- create: `ws new` under an id made from the client's name, from the person's current state (HEAD,
  index, working tree, untracked files: the baseline) unless the event names a base, with the
  `.worktreeinclude` copies; the registry record says which client made it (`made_by`), and the
  creation is an op of the log (kind `new`, this module: `ws undo` removes the worktree again, and
  refuses while it holds work, as `ws rm` does). A name whose owned worktree exists is resumed
  (its path again, nothing made), as the client resumes its own worktrees by name.
- remove: `ws rm` (refused while the worktree holds work not applied anywhere), always recorded as
  an op, so `ws undo` brings the worktree back. A worktree pylon does not own is left alone.
"""

from __future__ import annotations

import os

from pylon.workspace.ops import oplog
from pylon.workspace.repo import Checkout
from pylon.workspace.worktrees import owned

MODULE = "pylon.workspace.worktrees.clients"
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def id_for(name: str) -> str:
    """A valid worktree id from a client's name: other characters (a `/` of `feature/x`) become `-`,
    leading dots and dashes, `..` and a `.lock` ending are dropped, at most 64 characters."""
    text = "".join(ch if ch in _NAME_CHARS else "-" for ch in name.strip())
    while ".." in text:
        text = text.replace("..", ".")
    text = text.lstrip(".-")[:64].rstrip(".")
    while text.endswith(".lock"):
        text = text[: -len(".lock")].rstrip(".")
    return text or "session"


def purpose_of(name: str) -> str:
    """`subagent` for the names Claude Code gives a subagent's worktree (`agent-<hex>`), else `session`."""
    tail = name[len("agent-") :] if name.startswith("agent-") else ""
    return "subagent" if len(tail) >= 8 and all(ch in "0123456789abcdef" for ch in tail) else "session"


def create(
    checkout: Checkout, name: str, *, client: str, session: str = "", base: str | None = None
) -> dict[str, object]:
    """The owned worktree for the client's `name`: made (from the current state, or from `base`),
    or the existing one of that id resumed. The result holds `path` (real, without `..` or links,
    as Claude Code requires), `id`, `resumed`."""
    from pylon.errors import PylonError
    from pylon.workspace.worktrees.new import new

    wid = owned.check_id(id_for(name))
    info = owned.survey(checkout)
    found = info.owned.get(wid)
    if found is not None and found.present:
        return {"id": wid, "path": os.path.realpath(found.path), "resumed": True, "branch": found.branch}
    made_by: dict[str, object] = {"client": client, "name": name, "purpose": purpose_of(name), "session": session}
    last: PylonError | None = None
    for n in range(1, 10):
        candidate = wid if n == 1 else f"{wid[:60]}-{n}"
        if candidate in info.records or candidate in info.owned:
            continue
        try:
            result = new(checkout, candidate, from_rev=base, made_by=made_by)
        except PylonError as exc:
            if exc.code not in ("worktree-exists", "path-taken", "branch-taken", "registry-record-unreadable"):
                raise
            last = exc
            continue
        result.update(path=os.path.realpath(str(result["path"])), resumed=False)
        return result
    assert last is not None
    raise last


def find(checkout: Checkout, path: str) -> owned.Owned | None:
    """The owned worktree at `path` (compared as real paths), if any."""
    real = os.path.realpath(path)
    for found in owned.survey(checkout).owned.values():
        if found.present and os.path.realpath(found.path) == real:
            return found
    return None


def remove(checkout: Checkout, path: str) -> dict[str, object]:
    """`ws rm` of the owned worktree at `path`, recorded as an op (`ws undo` brings it back);
    `foreign-worktree` for a worktree pylon does not own (left as it is)."""
    found = find(checkout, path)
    if found is None:
        from pylon.errors import NotFoundError
        from pylon.workspace.worktrees.proof import quoted

        raise NotFoundError(
            "foreign-worktree",
            f"{path} is not a worktree pylon made, so pylon leaves it alone (it was not removed).",
            f"Remove it with git if you no longer need it: git worktree remove {quoted(path)}",
        )
    from pylon.workspace.repo import locate
    from pylon.workspace.worktrees.rm import rm

    # from the main checkout: the session may run inside the worktree being removed (its folder goes)
    main = locate(owned.survey(checkout).main_root)
    if owned.same_path(os.path.commonpath([found.path, os.getcwd()]), found.path):
        os.chdir(main.root)
    return rm(main, found.id, keep=True)


# -- the `new` kind of the op log ----------------------------------------------------------------


def _made(checkout: Checkout, op: oplog.Op) -> owned.Owned | None:
    """The worktree the op made, while it is still that one (same id, path and token)."""
    found = owned.survey(checkout).owned.get(str(op.data.get("id")))
    if found is None or not found.present or found.record.get("token") != op.data.get("token"):
        return None
    return found


def check_undo(checkout: Checkout, op: oplog.Op) -> None:
    """Undoing a creation removes the worktree: refused, as `ws rm` refuses, while it holds work."""
    found = _made(checkout, op)
    if found is None:
        return
    from pylon.workspace.sides import dirty, read_side
    from pylon.workspace.worktrees.rm import _refuse, unique_commits

    tracked, untracked = dirty(read_side(found.path))
    uncommitted = sorted(set(tracked) | set(untracked))
    commits = unique_commits(checkout, found.branch, found.baseline) if found.head else 0
    if uncommitted or commits:
        raise _refuse(found.id, uncommitted, commits, [])


def undo_op(checkout: Checkout, op: oplog.Op) -> None:
    """Remove the worktree the op made (nothing of it is lost: check_undo refused any work); one
    already removed is left as it is."""
    found = _made(checkout, op)
    if found is None:
        return
    from pylon.workspace.worktrees import rm_undo
    from pylon.workspace.worktrees.rm import _stop_watcher

    with owned.owned_lock(checkout):
        main = owned.survey(checkout).main_root
        if owned.same_path(os.path.commonpath([found.path, os.getcwd()]), found.path):
            os.chdir(main)
        _stop_watcher(owned.admin_dir_of(found.path))
        rm_undo.remove_steps(
            checkout, main, found.id, found.path, found.branch, found.head or "", found.record, keep_branch=False
        )
