"""git's view of worktrees and the on-disk proof that a folder is the worktree a record describes.

owned.py decides ownership from the registry and `git worktree list`; this module reads what is
on disk right now (a folder's `.git` file, the admin folder it names, that folder's `gitdir` and
lock), so the survey and every removal can check the folder itself at the moment it matters.
"""

from __future__ import annotations

import os

from pylon.workspace import git
from pylon.workspace.repo import Checkout


def lock_reason(worktree_id: str, token: str) -> str:
    """The lock reason names pylon (so `git worktree list` tells a person who holds it) and carries
    the record's token (so a lock copied by hand onto another worktree does not pass)."""
    return f"pylon owned worktree {worktree_id} [{token}]; remove it with `pylon ws rm {worktree_id}`"


# -- git's view --------------------------------------------------------------------------------


class GitWorktree:
    """One entry of `git worktree list --porcelain -z`."""

    __slots__ = ("path", "head", "branch", "locked", "prunable", "bare")

    def __init__(self, path: str) -> None:
        self.path = path
        self.head: str | None = None
        self.branch: str | None = None
        self.locked: str | None = None  # the reason ("" when locked without one)
        self.prunable = False
        self.bare = False


def git_worktrees(checkout: Checkout) -> list[GitWorktree]:
    """All worktrees git knows, the main one first."""
    out = git.run(["worktree", "list", "--porcelain", "-z"], cwd=checkout.root, what="git worktree list")
    found: list[GitWorktree] = []
    current: GitWorktree | None = None
    for field in out.decode("utf-8", "surrogateescape").split("\0"):
        if not field:
            current = None
            continue
        key, _, value = field.partition(" ")
        if key == "worktree":
            current = GitWorktree(value)
            found.append(current)
        elif current is None:
            continue
        elif key == "HEAD":
            current.head = value
        elif key == "branch":
            current.branch = value
        elif key == "locked":
            current.locked = value
        elif key == "prunable":
            current.prunable = True
        elif key == "bare":
            current.bare = True
    return found


def admin_dir_of(path: str) -> str | None:
    """The git admin folder (`.git/worktrees/<name>`) a worktree folder's `.git` file points at."""
    try:
        with open(os.path.join(path, ".git"), encoding="utf-8") as fh:
            text = fh.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    return os.path.normpath(os.path.join(path, text[len("gitdir:") :].strip()))


def named_by(admin: str) -> str | None:
    """The `.git` file an admin folder's `gitdir` names, absolute (git may write it relative to the
    admin folder: `worktree.useRelativePaths`)."""
    text = _read_text(os.path.join(admin, "gitdir"))
    if not text:
        return None
    return os.path.normpath(os.path.join(admin, text))


def admin_dirs_for(checkout: Checkout, path: str) -> list[str]:
    """Admin folders whose `gitdir` file names `path` (the folder itself may be gone)."""
    base = os.path.join(checkout.common_dir, "worktrees")
    target = os.path.normpath(os.path.join(path, ".git"))
    real = os.path.realpath(target)
    found = []
    try:
        names = os.listdir(base)
    except OSError:
        return []
    for name in names:
        named = named_by(os.path.join(base, name))
        if named is not None and (named == target or os.path.realpath(named) == real):
            found.append(os.path.join(base, name))
    return found


def same_path(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read().strip()
    except (OSError, UnicodeDecodeError):
        return None


def ours_admin(checkout: Checkout, admin: str, path: str, reason: str) -> bool:
    """Is `admin` a git admin folder of this repository whose gitdir names `path` and whose lock
    holds pylon's reason with the record's token?"""
    home = os.path.realpath(os.path.join(checkout.common_dir, "worktrees"))
    gitdir = named_by(admin)
    return (
        os.path.realpath(os.path.dirname(admin)) == home
        and gitdir is not None
        and os.path.realpath(gitdir) == os.path.realpath(os.path.join(path, ".git"))
        and _read_text(os.path.join(admin, "locked")) == reason
    )


def why_not_ours(checkout: Checkout, record: dict[str, object], path: str | None = None) -> str | None:
    """Why the folder at the record's path is not, on disk right now, the worktree the record
    describes (None when it is): its `.git` file must name an admin folder of this repository
    whose gitdir names the folder back and whose lock carries the record's token. Called by the
    survey and again at the moment of any removal."""
    where = path or str(record.get("path") or "")
    reason = lock_reason(str(record.get("id")), str(record.get("token")))
    dotgit = os.path.join(where, ".git")
    if os.path.islink(where) or not os.path.isdir(where):
        return "its folder is gone" if not os.path.lexists(where) else "its path is not a folder"
    if os.path.isdir(dotgit) and not os.path.islink(dotgit):
        return "its folder holds another repository (a .git folder)"
    if os.path.islink(dotgit) or not os.path.isfile(dotgit):
        return "its folder has no .git file"
    admin = admin_dir_of(where)
    if admin is None:
        return "its .git file names no git admin folder"
    if os.path.realpath(os.path.dirname(admin)) != os.path.realpath(os.path.join(checkout.common_dir, "worktrees")):
        return "its .git file points into another repository"
    if not ours_admin(checkout, admin, where, reason):
        return f"its .git file names another worktree ({os.path.basename(admin)}) than the one pylon made"
    return None


def removable(checkout: Checkout, record: dict[str, object], path: str) -> bool:
    """May a removal delete the folder at `path`? Only when it is proven the record's worktree,
    or when it is what a killed removal of it left: no `.git` any more, while an admin folder of
    ours still names it."""
    if why_not_ours(checkout, record, path) is None:
        return True
    if os.path.islink(path) or not os.path.isdir(path) or os.path.lexists(os.path.join(path, ".git")):
        return False
    reason = lock_reason(str(record.get("id")), str(record.get("token")))
    return any(ours_admin(checkout, a, path, reason) for a in admin_dirs_for(checkout, path))


def quoted(path: str) -> str:
    import shlex

    return shlex.quote(path)
