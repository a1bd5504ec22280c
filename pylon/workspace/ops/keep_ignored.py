"""Untracked files a restore keeps although the state it brings back does not hold them.

A state commit holds the untracked files that were not ignored when it was captured. So a file
such as `.env`, ignored by a `.gitignore` that one state has and another lacks, is untracked and
captured in one state and absent from the other: restoring from the first to the second would
delete it, although nobody asked for that and no state pylon keeps ever held it as ignored.

The rule: a path that the current state holds as untracked (not in its index) and the target
lacks is deleted only when no rule set of interest ignores it. Those rule sets are the checkout's
own rules as they are on disk now (`.gitignore` files, `info/exclude`, `core.excludesFile`) and
the `.gitignore` files of the target and of every other state the op recorded (its before and
after), each read with the checkout's `info/exclude` and `core.excludesFile`. The one exception is
the undo of the op that wrote the file: the op's `after` state holds it with the same bytes, so
the op made it and its undo takes it away again. git itself answers
(`git check-ignore --no-index`); for a state's `.gitignore` files it answers from a scratch work
tree holding just those files, on the path from the root to each candidate.
"""

from __future__ import annotations

import os
import shutil

from pylon.workspace import git, immutable
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.commits import State

_LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}


def untracked(checkout: Checkout, current: State, paths: list[str]) -> list[str]:
    """Those of `paths` that the current state holds as untracked files (not in its index)."""
    if not paths:
        return []
    if current.index_tree is None:
        return list(paths)  # mid-merge: every path counts, the safe side
    args = ["diff-tree", "-r", "-z", "--name-only", "--no-renames", "--diff-filter=A"]
    out = immutable.diff(checkout, [*args, current.index_tree, current.worktree], env=_LITERAL)
    added = {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}
    return [p for p in paths if p in added]


def _check(checkout: Checkout, paths: list[str], work_tree: str | None) -> set[str]:
    args = ["check-ignore", "--no-index", "-z", "--stdin"]
    if work_tree is not None:
        args = ["--git-dir=" + checkout.git_dir, "--work-tree=" + work_tree, *args]
    data = "".join(p + "\0" for p in paths).encode("utf-8", "surrogateescape")
    out = git.run(args, cwd=work_tree or checkout.root, input=data, ok=(0, 1), what="git check-ignore")
    return {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}


def _rule_names(paths: list[str]) -> list[str]:
    """The `.gitignore` files that can rule on `paths`: the root's and each folder's on the way."""
    wanted: set[str] = {".gitignore"}
    for rel in paths:
        parts = rel.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            wanted.add("/".join(parts[:i]) + "/.gitignore")
    return sorted(n for n in wanted if "\n" not in n)  # one query per line


def _rule_files(checkout: Checkout, tree: str, paths: list[str]) -> dict[str, bytes]:
    """The `.gitignore` files of `tree` in the root and in each folder leading to `paths`."""
    names = _rule_names(paths)
    query = "".join(f"{tree}:{name}\n" for name in names).encode("utf-8", "surrogateescape")
    out = immutable.batch(checkout, ["cat-file", "--batch"], query)  # a plan made twice asks once
    found = zip(names, git.batch_objects(out, len(names)))
    return {name: got[1] for name, got in found if got is not None and got[0] == b"blob"}


def _ignored_in_tree(checkout: Checkout, tree: str, paths: list[str]) -> set[str]:
    rules = _rule_files(checkout, tree, paths)
    if not rules:
        return set()  # only info/exclude and core.excludesFile: the on-disk check covered them
    return ignored_with(checkout, paths, rules)


def ignored_after(checkout: Checkout, paths: list[str], incoming: str, leaving: str) -> set[str]:
    """Those of `paths` the checkout's rules will ignore once the tree `incoming` replaced the tree
    `leaving` on disk: incoming's `.gitignore` files, and the ones on disk that `leaving` does not
    hold (ignored or untracked ones: a restore leaves them), with `info/exclude` and
    `core.excludesFile`."""
    rules = _rule_files(checkout, incoming, paths)
    gone = _rule_files(checkout, leaving, paths)
    for name in _rule_names(paths):
        if name in rules or name in gone:
            continue
        data = _disk_rules(checkout.root, name)
        if data is not None:
            rules[name] = data
    return ignored_with(checkout, paths, rules)


def _disk_rules(root: str, name: str) -> bytes | None:
    """A `.gitignore` on disk, read beneath the root, no symlink followed (git reads no symlinked
    `.gitignore` either); None when there is none."""
    import stat

    from pylon.workspace.restore_fs import parent_fd

    parts = name.split("/")
    try:
        folder = parent_fd(root, parts)
    except OSError:
        return None
    if folder is None:
        return None
    try:
        fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return None
    finally:
        os.close(folder)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        return fh.read(1 << 20)


def ignored_with(checkout: Checkout, paths: list[str], rules: dict[str, bytes]) -> set[str]:
    """Those of `paths` that `rules` (`.gitignore` files by path) ignore, with the checkout's
    `info/exclude` and `core.excludesFile`; git answers from a scratch work tree holding them."""
    import tempfile

    scratch = tempfile.mkdtemp(prefix="rules-", dir=checkout.pylon_dir())
    try:
        for name, data in rules.items():
            full = os.path.join(scratch, name)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as fh:
                fh.write(data)
        return _check(checkout, paths, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _made(checkout: Checkout, current: State, made: str, paths: list[str]) -> set[str]:
    """Those of `paths` that the state `made` holds with the same blob as the current state."""
    names = [p for p in paths if git.line_safe(p)]  # any other: not known to be the same, so kept
    query = "".join(f"{tree}:{p}\n" for p in names for tree in (current.worktree, made))
    asked = query.encode("utf-8", "surrogateescape")
    answer = immutable.batch(checkout, ["cat-file", "--batch-check=%(objectname)"], asked)
    out = answer.decode(errors="replace").split("\n")  # a missing name comes back as its bytes
    return {p for i, p in enumerate(names) if out[2 * i] == out[2 * i + 1] and not out[2 * i].endswith("missing")}


def kept(checkout: Checkout, current: State, deletes: list[str], trees: list[str], made: str | None = None) -> set[str]:
    """The deletions to skip: untracked files ignored by the checkout's rules or by those of `trees`,
    except the files the state `made` holds as they are now (the undo of the op that made them)."""
    candidates = untracked(checkout, current, deletes)
    if candidates and made:
        ours = _made(checkout, current, made, candidates)
        candidates = [p for p in candidates if p not in ours]
    if not candidates:
        return set()
    return ignored_by(checkout, candidates, trees)


def ignored_by(checkout: Checkout, paths: list[str], trees: list[str]) -> set[str]:
    """Those of `paths` that the checkout's rules on disk ignore, or the `.gitignore` files of any of
    `trees` (each read with the checkout's `info/exclude` and `core.excludesFile`)."""
    if not paths:
        return set()
    found = _check(checkout, paths, None)
    for tree in dict.fromkeys(trees):
        rest = [p for p in paths if p not in found]
        if not rest:
            break
        found |= _ignored_in_tree(checkout, tree, rest)
    return found
