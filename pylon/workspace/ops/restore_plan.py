"""What restore() would change, computed without writing anything: the Plan (`--dry-run` shows it).

    plan(checkout, state_commit, paths=None, *, current=None, rules=None, made=None) -> Plan

Apart from restore_state.py because every op plans before it writes (undo, redo, shell ops, `ws
restore`, apply, sync and finish ask the plan first, to refuse early or to say what would change), and
planning only reads: the diff of the current state against the target, the files in the way
(`restore-blocked`, blocked_error()), the untracked files kept because a rule ignores them
(keep_ignored.py), and the `--index-info` records for the real index.
"""

from __future__ import annotations

import os

from pylon.workspace import git, immutable
from pylon.workspace.commits import State, read_state
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypedDict

    class PlanSummary(TypedDict):
        delete: list[str]
        write: list[str]
        index: int
        blocked: list[str]
        kept: list[str]


_ZERO = "0" * 40
_LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}


def _raw_diff(
    checkout: Checkout, old: str, new: str, paths: list[str] | None
) -> list[tuple[str, str, str, str, str, str]]:
    """(status, new mode, new oid, path, old mode, old oid) of each entry differing between two trees."""
    args = ["diff-tree", "-r", "-z", "--no-renames", "--raw", old, new]
    if paths:
        args += ["--", *paths]
    out = immutable.diff(checkout, args, env=_LITERAL)  # the same trees' diff asked again in one command
    fields = out.split(b"\0")
    found = []
    i = 0
    while i + 1 < len(fields) and fields[i].startswith(b":"):
        meta = fields[i].decode().split()
        path = fields[i + 1].decode("utf-8", "surrogateescape")
        found.append((meta[4][0], meta[1], meta[3], path, meta[0].lstrip(":"), meta[2]))
        i += 2
    return found


def blocked_error(paths: list[str]) -> Exception:
    """`restore-blocked` for a plan's blocked paths: restore() raises it, and so do the ops that
    plan first to refuse before they record anything."""
    from pylon.errors import PylonError

    shown = ", ".join(paths[:20]) + (f" (and {len(paths) - 20} more)" if len(paths) > 20 else "")
    return PylonError(
        "restore-blocked",
        f"Restoring would replace {len(paths)} file(s) that are not part of the current state "
        f"(ignored, or made just now): {shown}. Nothing was changed.",
        "Move those files out of the way (or delete them if they are disposable), then run the same command again.",
        details={"paths": paths[:20], "paths_total": len(paths)},
    )


class Plan:
    """What restore() would change: computed without writing anything (`--dry-run` shows it)."""

    __slots__ = ("target", "current", "deletes", "writes", "index_entries", "blocked", "paths", "replaced", "kept")

    def __init__(
        self,
        target: State,
        current: State,
        deletes: list[str],
        writes: list[tuple[str, str, str]],
        index_entries: list[str],
        blocked: list[str],
        paths: list[str],
        replaced: list[tuple[str, str, str]],
        kept: list[str] | None = None,
    ) -> None:
        self.target, self.current, self.deletes, self.writes = target, current, deletes, writes
        self.index_entries, self.blocked, self.paths = index_entries, blocked, paths
        self.replaced = replaced  # (mode, oid, path) of the files to be overwritten or deleted, as captured
        self.kept = kept or []  # untracked files the target lacks, kept because a rule ignores them

    def to_dict(self) -> PlanSummary:
        return {
            "delete": self.deletes,
            "write": [w[2] for w in self.writes],
            "index": len(self.index_entries),
            "blocked": self.blocked,
            "kept": self.kept,
        }


def plan(
    checkout: Checkout,
    state_commit: str,
    paths: list[str] | None = None,
    *,
    current: State | None = None,
    rules: list[str] | None = None,
    made: str | None = None,
) -> Plan:
    """The changes that bring the checkout (or `paths`) to `state_commit`, and what blocks them.

    An untracked file of the current state that the target lacks is kept when the checkout's
    rules, the target's `.gitignore` files, those of the states in `rules` (the op's records) or
    those of HEAD's commit ignore it, unless the state `made` (the after state of the op being
    undone) holds it as it is (keep_ignored.py)."""
    target = read_state(checkout, state_commit)
    if current is None:
        from pylon.workspace.state import capture

        current = capture(checkout, label="before-restore")
    diff = _raw_diff(checkout, current.worktree, target.worktree, paths)
    gone = [d[3] for d in diff if d[0] == "D"]
    keep: set[str] = set()
    if gone:
        from pylon.workspace.ops.keep_ignored import kept

        # HEAD's rules too: a file its committed `.gitignore` ignores is the person's, whatever the
        # rules on disk say now (a session's `.gitignore` applied or moved in)
        keep = kept(
            checkout, current, gone, [state_commit, *(rules or []), *([current.head] if current.head else [])], made
        )
        if keep:
            diff = [d for d in diff if d[3] not in keep]
    deletes = [d[3] for d in diff if d[0] == "D"]
    writes = [(d[1], d[2], d[3]) for d in diff if d[0] != "D"]
    replaced = [(d[4], d[5], d[3]) for d in diff if d[0] in ("D", "M", "T")]  # as the current state holds them
    delete_set = set(deletes)
    known = {path for _m, _o, path in replaced}
    stuck = _blocked(checkout, [w[2] for w in writes], delete_set, known)
    if stuck:
        same = _same_bytes(checkout, stuck, writes)  # already there as the target holds it: nothing to write
        if same:
            stuck = [p for p in stuck if p not in same]
            writes = [w for w in writes if w[2] not in same]
    return Plan(
        target,
        current,
        deletes,
        writes,
        _index_changes(checkout, current, target, paths),
        stuck,
        [d[3] for d in diff],
        replaced,
        sorted(keep),
    )


def _same_bytes(checkout: Checkout, stuck: list[str], writes: list[tuple[str, str, str]]) -> set[str]:
    """Blocked regular files whose bytes on disk already are the blob the restore would write
    (git's clean filters applied, as a capture would hash them)."""
    import stat

    wanted = {path: (mode, oid) for mode, oid, path in writes if mode in ("100644", "100755")}
    files = []
    for rel in stuck:
        try:
            st = os.lstat(os.path.join(checkout.root, rel))
        except OSError:
            continue
        if rel in wanted and stat.S_ISREG(st.st_mode) and (st.st_mode & 0o100 != 0) == (wanted[rel][0] == "100755"):
            files.append(rel)
    if not files:
        return set()
    listing = "".join(f + "\n" for f in files if "\n" not in f).encode("utf-8", "surrogateescape")
    out = git.run(["hash-object", "--stdin-paths"], cwd=checkout.root, input=listing).decode().split()
    return {rel for rel, oid in zip([f for f in files if "\n" not in f], out) if oid == wanted[rel][1]}


def _blocked(checkout: Checkout, writes: list[str], deletes: set[str], known: set[str]) -> list[str]:
    from pylon.workspace.restore_fs import blocked

    return blocked(checkout.root, writes, deletes, known)


def _index_changes(checkout: Checkout, current: State, target: State, paths: list[str] | None) -> list[str]:
    """`--index-info` records (removals first) turning the current index into the target's."""
    if current.index_tree is None:
        from pylon.errors import PylonError

        raise PylonError(
            "index-unmerged",
            "The index has unresolved conflicts, so pylon cannot restore over it.",
            "Finish or abort the merge first (`git merge --abort`), then run the same command again.",
        )
    wanted = target.index_tree
    if wanted is None:
        return []  # the state recorded no index (captured mid-merge, or written without one): leave it
    if wanted == current.index_tree:
        return []
    diff = _raw_diff(checkout, current.index_tree, wanted, paths)
    removals = [f"0 {_ZERO}\t{d[3]}\0" for d in diff if d[0] == "D"]
    adds = [f"{d[1]} {d[2]}\t{d[3]}\0" for d in diff if d[0] != "D"]
    return removals + adds
