"""The checkout around a folder, found by its `.git` without running git (the hooks run before
every shell command of an agent, so this costs a few stat calls and one small read)."""

from __future__ import annotations

import os


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
    return head[len("ref: refs/heads/"):] if head.startswith("ref: refs/heads/") else None
