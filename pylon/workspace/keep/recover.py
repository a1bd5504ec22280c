"""A checkout whose `.git` is gone (`rm -rf .git`, `rm -rf .[^.]*`): found by its path, read through the
store's copy of its `.git` (mirror.py), and given its `.git` back by `pylon ws undo`.

A main checkout's `.git` folder comes back from the mirror (objects as hard links, the rest copied);
a linked worktree's `.git` file is written again with the text it had (its git folder lives in the
repository's, which is still there, or comes back with it).
"""

from __future__ import annotations

import os

from pylon.workspace.keep.store import Store, by_path
from pylon.workspace.repo import Checkout


def _chain_git(store: Store, root: str) -> dict[str, object]:
    from pylon.workspace.keep.chain import Chain

    return Chain(store, root).dotgit


def _gitdir_of(root: str, text: str) -> str | None:
    line = text.strip()
    if not line.startswith("gitdir:"):
        return None
    return os.path.normpath(os.path.join(root, line[len("gitdir:") :].strip()))


from pylon.workspace.keep.store import usable  # where callers found it


def lost(folder: str) -> tuple[Checkout, Store] | None:
    """(the checkout as its store's copy of `.git` shows it, the store) for a folder whose `.git` is
    gone; None when no kept state knows the folder, or its `.git` is there."""
    found = by_path(folder)
    if found is None:
        return None
    store, root = found
    if usable(root):
        return None
    dotgit = _chain_git(store, root)
    if dotgit.get("kind") == "file":
        git_dir = _gitdir_of(root, str(dotgit.get("text") or ""))
        if git_dir is None:
            return None
        name = os.path.basename(git_dir)
        if not os.path.isdir(git_dir):
            git_dir = os.path.join(store.mirror, "worktrees", name)
        common = os.path.normpath(os.path.join(git_dir, "..", ".."))
        return Checkout(root, git_dir, common, "", root), store
    if not os.path.isfile(os.path.join(store.mirror, "HEAD")):
        return None
    return Checkout(root, store.mirror, store.mirror, "", root), store


def bring_back(folder: str) -> dict[str, object] | None:
    """Give the checkout around `folder` its `.git` back from the store; what was done, or None when
    there is nothing to bring back."""
    found = by_path(folder)
    if found is None:
        return None
    store, root = found
    from pylon.workspace.keep.chain import finished_locked, lock

    with lock(store, root):  # after the op of the command that removed it
        gone = lost(folder)
        if gone is not None:  # a command no hook saw end (Claude Code's batch, none at all): its op first
            finished_locked(gone[0], store, None, git_present=False)
        return _bring_back(store, root)


def _bring_back(store: Store, root: str) -> dict[str, object] | None:
    target = os.path.join(root, ".git")
    if usable(root):
        return None
    dotgit = _chain_git(store, root)
    if dotgit.get("kind") == "file":
        from pylon.atomic import atomic_write

        text = str(dotgit.get("text") or "")
        git_dir = _gitdir_of(root, text)
        if git_dir is not None and not os.path.isdir(git_dir):
            return None  # the repository itself is gone: undo it from the main checkout first
        atomic_write(target, text.encode("utf-8", "surrogateescape"))
        return {"root": root, "git": "file", "files": 1}
    if not os.path.isfile(os.path.join(store.mirror, "HEAD")):
        return None
    from pylon.workspace.keep.mirror import recover

    count = recover(store.mirror, target)
    return {"root": root, "git": "folder", "files": count}


def locate_or_bring_back(cwd: str | None = None) -> tuple[Checkout, dict[str, object] | None]:
    """The checkout around `cwd`; when its `.git` is gone and the store kept it, `.git` is brought
    back first (what `ws undo` does in a folder that lost it: the undo then reverses the command's
    other changes)."""
    from pylon.errors import PylonError
    from pylon.workspace.repo import locate

    here = os.path.abspath(cwd or os.getcwd())
    try:
        return locate(here), None
    except PylonError as exc:
        if exc.code != "not-a-git-checkout":
            raise
        done = bring_back(here)
        if done is None:
            raise
    return locate(here), done
