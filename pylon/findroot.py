"""The checkout around a folder, found by its `.git` without running git (the hooks run before
every shell command of an agent, so this costs a few stat calls and one small read); and canon's
project root, which every entry point finds through store_root (the guard's hook, which must not
import pylon.canon, included)."""

from __future__ import annotations

import os

CANON_DIR = ".canon"


def find_root(cwd: str) -> tuple[str | None, str | None]:
    """(checkout top folder, current branch) found by walking up to a .git, without running git."""
    path = os.path.realpath(cwd)
    while True:
        dotgit = os.path.join(path, ".git")
        if os.path.lexists(dotgit):
            return path, _branch(dotgit)
        parent = os.path.dirname(path)
        if parent == path:
            return None, None
        path = parent


def _branch(dotgit: str) -> str | None:
    git_dir = dotgit
    try:
        if os.path.isfile(dotgit):
            with open(dotgit, encoding="utf-8", errors="replace") as fh:
                line = fh.read(4096).strip()
            if not line.startswith("gitdir:"):
                return None
            git_dir = os.path.join(os.path.dirname(dotgit), line[7:].strip())
        with open(os.path.join(git_dir, "HEAD"), encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096).strip()
    except OSError:
        return None
    return head[len("ref: refs/heads/") :] if head.startswith("ref: refs/heads/") else None


def store_root(cwd: str | os.PathLike[str]) -> str:
    """canon's project root seen from `cwd`: the first folder, walking up, that holds `.canon/` or
    is a repository's top (holds `.git`: a folder, or a file in a linked worktree or a submodule);
    `cwd` itself when neither is found. The walk never passes a repository's top, so a stray
    `.canon/` above a repository (in a parent folder, at `/`) never becomes its store: a store
    outside the repository comes only from a mount. Outside any repository (a plain folder) the
    nearest `.canon/` above still counts.

    By the folder's own `.git`, like find_root: an inherited GIT_DIR or GIT_WORK_TREE (a git hook
    exports them) says nothing about where the person works. The walk is on the path as given
    (no realpath): the folders a person sees."""
    folder = os.fspath(cwd)
    first = folder
    while True:
        if os.path.isdir(os.path.join(folder, CANON_DIR)) or os.path.lexists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder) or "."  # a relative path ends at "."
        if parent == folder:
            return first
        folder = parent
