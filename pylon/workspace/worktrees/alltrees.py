"""Every live worktree of a repository, read from git's own files without running git.

The write-time check (clash.py) runs before every write of an agent, so it cannot afford `git
worktree list`: the main worktree is the folder of a `.git` common dir, the linked ones are the
admin folders under `<common dir>/worktrees/` whose `gitdir` names a folder that is there; HEADs
are resolved from ref files (loose, then `packed-refs`); pylon's registry records name the owned
sessions among them. `ws list` and `ws conflicts` keep using git's list and the ownership proof
(owned.py): this is for labels and bases only.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Tree:
    """One live worktree: its folder, git dir, HEAD, and what pylon knows of it."""

    __slots__ = ("path", "git_dir", "head", "branch", "record", "main")

    def __init__(self, path: str, git_dir: str, main: bool) -> None:
        self.path, self.git_dir, self.main = path, git_dir, main
        self.head: str | None = None
        self.branch: str | None = None
        self.record: dict[str, Any] | None = None  # the registry record of an owned session

    def who(self) -> dict[str, Any]:
        """The other session, as the answer names it."""
        if self.main:
            return {"kind": "checkout", "label": "the main checkout", "path": self.path}
        if self.record is not None:
            wid = str(self.record.get("id"))
            return {
                "kind": "session",
                "id": wid,
                "label": f"pylon session {wid}",
                "path": self.path,
                "made_by": self.record.get("made_by"),
            }
        from pylon.workspace.worktrees.foreign import made_by

        by = made_by(self.path)
        names = {"claude-code": "Claude Code worktree", "codex": "Codex worktree"}
        label = f"{names[by['client']]} {by['name']}" if by["client"] in names else f"git worktree {self.path}"
        return {"kind": "other", "label": label, "path": self.path, "made_by": by}


def _read(path: str, limit: int = 1 << 16) -> str | None:
    try:
        with open(path, "rb") as fh:
            return fh.read(limit).decode("utf-8", "surrogateescape").strip()
    except OSError:
        return None


def git_dirs(root: str) -> tuple[str, str] | None:
    """(git dir, common dir) of the checkout at `root`, from its `.git` (file or folder)."""
    dotgit = os.path.join(root, ".git")
    if os.path.isdir(dotgit):
        return dotgit, dotgit
    text = _read(dotgit)
    if not text or not text.startswith("gitdir:"):
        return None
    git_dir = os.path.normpath(os.path.join(root, text[7:].strip()))
    common = _read(os.path.join(git_dir, "commondir"))
    return git_dir, os.path.normpath(os.path.join(git_dir, common)) if common else git_dir


def trees(common: str) -> list[Tree]:
    """The live worktrees of the repository: the main one (when not bare) and every linked one
    whose admin folder names a folder that is there."""
    found = []
    if os.path.basename(common.rstrip(os.sep)) == ".git" and os.path.isdir(common):
        found.append(Tree(os.path.dirname(common.rstrip(os.sep)), common, True))
    admin = os.path.join(common, "worktrees")
    try:
        names = sorted(os.listdir(admin))
    except OSError:
        names = []
    for name in names:
        git_dir = os.path.join(admin, name)
        named = _read(os.path.join(git_dir, "gitdir"))
        if not named:
            continue
        path = os.path.dirname(os.path.normpath(os.path.join(git_dir, named)))
        if os.path.isfile(os.path.join(path, ".git")):
            found.append(Tree(path, git_dir, False))
    return found


class Refs:
    """HEADs resolved from ref files (loose, then packed-refs read once)."""

    def __init__(self, common: str) -> None:
        self.common = common
        self._packed: dict[str, str] | None = None

    def resolve(self, tree: Tree) -> None:
        text = _read(os.path.join(tree.git_dir, "HEAD")) or ""
        for _ in range(5):  # a symbolic ref may name another
            if not text.startswith("ref:"):
                break
            ref = text[4:].strip()
            tree.branch = tree.branch or ref
            text = _read(os.path.join(self.common, ref)) or self.packed().get(ref, "")
        tree.head = text if len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text) else None

    def packed(self) -> dict[str, str]:
        if self._packed is None:
            from pylon.workspace.repo import packed_refs

            self._packed = packed_refs(self.common)
        return self._packed


def records(common: str) -> dict[str, dict[str, Any]]:
    """Real path -> registry record of every ready owned session (labels and bases only: the
    ownership proof is `ws`'s business)."""
    from pylon.agents.jsonio import loads

    folder = os.path.join(common, "pylon", "owned")
    try:
        names = os.listdir(folder)
    except OSError:
        return {}
    found = {}
    for name in names:
        if not name.endswith(".json") or name.startswith("."):
            continue
        try:
            record = loads(_read(os.path.join(folder, name), 1 << 20) or "")
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("state") == "ready" and isinstance(record.get("path"), str):
            found[os.path.realpath(record["path"])] = record
    return found
