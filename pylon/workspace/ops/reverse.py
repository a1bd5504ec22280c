"""A change carried onto the checkout as it is now: what undo, redo and their resumption write.

An op recorded its change as two states, `frm` -> `to` (an apply: the checkout before -> the merged
result). Undo is the change `after -> before`; redo is the change an undo made, reversed. Neither
restores a whole state: the change is merged three-way onto the state the checkout holds now

    base   = frm's tree     (what the op left)
    ours   = now's tree     (what the checkout holds now: later edits included)
    theirs = to's tree      (where the change goes)

by `git merge-tree --write-tree` on two commits whose only parent is a commit of `frm` (git 2.38
has no --merge-base). A path the change does not touch keeps whatever it holds now; a path only
the change touches goes to `to`; a path both touched is merged by lines, and overlapping edits
are conflicts: reported with nothing written, or (`markers`) written with conflict markers labelled
`now` and the op's side. When nothing happened since the op (now == frm) the result is `to`
exactly, which keeps every round trip byte-identical. The staged index is carried the same way
(a conflict there is always refused), and HEAD goes where the op's step says (restore_state).
"""

from __future__ import annotations

import os

from pylon.workspace import git, immutable
from pylon.workspace.commits import State, write_commit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.exact import Meta
    from pylon.workspace.merge.conflicts import ConflictFile
    from pylon.workspace.ops.oplog import Step
    from pylon.workspace.repo import Checkout

_LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}


class Outcome:
    """The state a change onto `now` leads to, and what it kept of the later work."""

    __slots__ = ("target", "conflicts", "kept", "merged", "markers", "made")

    def __init__(
        self,
        target: str,
        conflicts: list[ConflictFile],
        kept: list[str],
        merged: list[str],
        markers: list[str],
        made: str | None = None,
    ) -> None:
        self.target, self.conflicts, self.kept, self.merged, self.markers = target, conflicts, kept, merged, markers
        self.made = made  # the state the change leaves (untracked files it holds as they are go with it)

    def to_dict(self) -> dict[str, object]:
        return {"kept": self.kept, "merged": self.merged, "markers": self.markers}


def scratch_tree(checkout: Checkout, base_tree: str, *, remove: list[str] | None = None, entries: bytes = b"") -> str:
    """base_tree with `remove` (folders included) dropped and `entries` (`--index-info -z` records)
    added, written in a throw-away index."""
    import tempfile

    fd, index = tempfile.mkstemp(prefix="reverse-index.", dir=checkout.pylon_dir())
    os.close(fd)
    os.unlink(index)
    env = {"GIT_INDEX_FILE": index, **_LITERAL}
    try:
        git.run(["read-tree", base_tree], cwd=checkout.root, env=env)
        if remove:
            git.run(["rm", "--cached", "-r", "-q", "-f", "--ignore-unmatch", "--", *remove], cwd=checkout.root, env=env)
        if entries:
            git.run(["update-index", "-z", "--index-info"], cwd=checkout.root, env=env, input=entries)
        return git.run(["write-tree"], cwd=checkout.root, env=env).decode().strip()
    finally:
        for leftover in (index, index + ".lock"):
            if os.path.exists(leftover):
                os.unlink(leftover)


def overlay(checkout: Checkout, base_tree: str, source_tree: str, paths: list[str]) -> str:
    """base_tree with everything at or under `paths` taken from source_tree instead."""
    out = git.run(["ls-tree", "-r", "-z", "--full-tree", source_tree, "--", *paths], cwd=checkout.root, env=_LITERAL)
    entries = b"".join(
        line.replace(b" blob ", b" ", 1).replace(b" commit ", b" ", 1).replace(b" tree ", b" ", 1) + b"\0"
        for line in out.split(b"\0")
        if line
    )
    return scratch_tree(checkout, base_tree, remove=paths, entries=entries)


def _commit(checkout: Checkout, tree: str, parents: list[str], what: str) -> str:
    return write_commit(checkout, tree, parents, f"pylon: {what}\n".encode())


def merge3(
    checkout: Checkout, base: str, ours: str, theirs: str, names: tuple[str, str] = ("now", "change")
) -> tuple[str, list[ConflictFile], dict[str, str]]:
    """Three trees merged on `base`: (merged tree, conflicts with their hunks' sides named,
    {commit id git labels a side with: its name}); `markers.labelled_tree` names them in the tree."""
    from pylon.workspace.merge.conflicts import merge_tree

    root = _commit(checkout, base, [], "merge base")
    a, b = _commit(checkout, ours, [root], "now"), _commit(checkout, theirs, [root], "change")
    labels = {a: names[0], b: names[1]}
    tree, conflicts = merge_tree(checkout, a, b, labels)
    return tree, conflicts, labels


def changed_paths(checkout: Checkout, old: str, new: str) -> list[str]:
    return immutable.name_only(checkout, old, new)


def _carry_index(checkout: Checkout, frm: str | None, to: str | None, now: str | None) -> str | None:
    """The staged index after carrying frm -> to onto now (None: leave the index as it is)."""
    if frm == to or now == to or to is None:
        return now
    if now == frm or frm is None or now is None:
        return to
    tree, conflicts, _labels = merge3(checkout, frm, now, to)
    if conflicts:
        from pylon.errors import PylonError

        raise PylonError(
            "undo-conflicts",
            f"The staged index changed since the operation in the same entries it changed "
            f"({', '.join(str(c['path']) for c in conflicts[:10])}); nothing was written.",
            "Unstage those paths (`git restore --staged PATH`), then run the same command again.",
            details={"conflicts": [{"path": c["path"], "where": "index"} for c in conflicts], "written": False},
        )
    return tree


def carry(
    checkout: Checkout,
    frm: State,
    to: State,
    now: State,
    *,
    head: str = "keep",
    markers: bool = False,
    side: str = "op",
) -> Outcome:
    """The state reached by carrying the change frm -> to onto `now` (see the module docstring).
    `head` is the step's head mode: "keep" keeps now's HEAD, otherwise the target's is `to`'s."""
    from pylon.workspace.ops.restore_state import make_state

    frm_tree, frm_index = frm.worktree, frm.index_tree
    later = changed_paths(checkout, frm_tree, now.worktree)
    conflicts: list[ConflictFile] = []
    merged: list[str] = []
    if now.worktree == frm_tree or not later:
        tree = to.worktree
    elif now.worktree == to.worktree:
        tree = now.worktree
    else:
        tree, conflicts, labels = merge3(checkout, frm_tree, now.worktree, to.worktree, ("now", side))
        touched = set(changed_paths(checkout, frm_tree, to.worktree))
        merged = sorted(p for p in later if p in touched)
        if conflicts and markers:
            from pylon.workspace.merge.markers import labelled_tree

            tree = labelled_tree(checkout, tree, [str(c["path"]) for c in conflicts if not c.get("binary")], labels)
    index = _carry_index(checkout, frm_index, to.index_tree, now.index_tree)
    if head == "keep":
        target_head, branch = now.head, now.branch
    else:
        target_head, branch = to.head, to.branch
    if (
        to.commit
        and (tree, index) == (to.worktree, to.index_tree)
        and (head != "keep" or (target_head, branch) == (to.head, to.branch))
        and _same_record(frm, now)
    ):
        target = to.commit  # the state itself, with everything its commit records
    else:
        target = make_state(
            checkout,
            worktree=tree,
            index_tree=index,
            head=target_head,
            branch=branch,
            label=f"{side} onto the checkout",
            meta_raw=carried_meta(checkout, frm, to, now, tree),
            head_tree=now.head_tree if target_head == now.head else None,
        )
    conflicted = {str(c["path"]) for c in conflicts}
    binary = {str(c["path"]) for c in conflicts if c.get("binary")}  # with --markers: kept as they are now
    kept = sorted(p for p in later if p not in conflicted or (markers and p in binary))
    return Outcome(
        target,
        conflicts,
        kept,
        [p for p in merged if p not in conflicted],
        sorted(conflicted - binary) if markers else [],
        frm.commit,
    )


def _same_record(frm: State, now: State) -> bool:
    """Nothing git does not see changed since the op either: the same bits and empty folders (a
    folder made or a chmod after the op is later work, kept like an edit)."""
    if frm.meta_raw == now.meta_raw or frm.meta is None or now.meta is None:
        return True
    return frm.meta == now.meta


def carried_meta(
    checkout: Checkout, frm: State, to: State, now: State, tree: str, *, strict: bool = False
) -> str | None:
    """The exact.py record of `tree` (the change frm -> to carried onto now): a path whose bits the
    change changed (frm and to record different ones; when frm records nothing, a path whose
    content the change touched) takes `to`'s bits, every other one keeps now's; the empty folders
    are now's, with those the change made or removed (when frm records them). None when `to` or
    `now` records nothing, or frm with `strict` (restore then keeps the bits it finds)."""
    from pylon.workspace import exact

    to_meta, now_meta, frm_meta = to.meta, now.meta, frm.meta
    if to_meta is None or now_meta is None or (strict and frm_meta is None):
        return None
    to_modes, now_modes = exact.modes_of(to_meta), exact.modes_of(now_meta)
    frm_modes = exact.modes_of(frm_meta) if frm_meta is not None else None
    touched = set(changed_paths(checkout, frm.worktree, to.worktree)) if frm_modes is None else set()
    paths = set(to_modes) | set(now_modes) | set(frm_modes or {})
    in_tree = exact.git_modes(checkout.root, tree, sorted(paths))
    modes: dict[str, int] = {}
    for rel in paths & set(in_tree):
        changed = rel in touched if frm_modes is None else frm_modes.get(rel) != to_modes.get(rel)
        sides = (to_modes, now_modes) if changed else (now_modes, to_modes)
        # the tree's mode decides the owner's x bit: where the chosen side's bits disagree with it,
        # the merge took the other side's mode, so its bits (or none: git's 644/755)
        chosen, other = sides[0].get(rel), sides[1].get(rel)
        if chosen is not None and not exact.agrees(chosen, in_tree[rel]):
            chosen = other if other is not None and exact.agrees(other, in_tree[rel]) else None
        if chosen is not None:
            modes[rel] = chosen
    dirs = set(exact.dirs_of(now_meta))
    if frm_meta is not None:
        before, after = set(exact.dirs_of(frm_meta)), set(exact.dirs_of(to_meta))
        dirs = (dirs - (before - after)) | (after - before)
    empty = exact.free_dirs(checkout.root, tree, sorted(dirs))  # not where the tree has a file now
    return exact.encode(
        exact.grouped(modes, empty, _carried_folders(checkout, frm_meta, to_meta, now_meta, tree, empty))
    )


def _carried_folders(
    checkout: Checkout, frm: Meta | None, to: Meta | None, now: Meta | None, tree: str, dirs: list[str]
) -> dict[str, int]:
    """Folder bits of a carried change: to's where the change changed them (frm and to record
    different bits), now's elsewhere; only where both frm and to record folder bits at all."""
    from pylon.workspace import exact

    frm_bits, to_bits, now_bits = (exact.modes_of(m, "dm") for m in (frm, to, now))
    knows = frm is not None and to is not None and "dm" in frm and "dm" in to
    found: dict[str, int] = {}
    for rel in set(frm_bits) | set(to_bits) | set(now_bits):
        bits = to_bits.get(rel) if knows and frm_bits.get(rel) != to_bits.get(rel) else now_bits.get(rel)
        if bits is not None:
            found[rel] = bits
    return exact.state_dirs(checkout.root, tree, found, dirs)


def conflict_error(title: str, seq: int, verb: str, conflicts: list[ConflictFile]) -> Exception:
    from pylon.errors import PylonError

    shown = ", ".join(str(c["path"]) for c in conflicts[:10]) + (
        f" (and {len(conflicts) - 10} more)" if len(conflicts) > 10 else ""
    )
    return PylonError(
        "redo-conflicts" if verb == "redo" else "undo-conflicts",
        f"Since `{title}` (op {seq}), {len(conflicts)} path(s) were changed again where it changed them: "
        f"{shown}. Nothing was written.",
        f"Keep your edits and write both sides with conflict markers: `pylon ws {verb} --markers` (itself "
        f"reversible), or get the op's states with `pylon ws restore op-{seq}:before PATH`.",
        details={"op": seq, "conflicts": conflicts, "total": len(conflicts), "written": False},
    )


def step_states(checkout: Checkout, step: Step) -> tuple[State, State]:
    """(before, after) of a step as the checkout went through them: a PATH restore's `after` is a
    whole snapshot of which only `paths` were written, so its after is `before` with those paths
    (files and index entries) taken from the snapshot."""
    from pylon.workspace.commits import read_state

    before, after = read_state(checkout, step.before), read_state(checkout, step.after)
    if step.paths:
        index = after.index_tree
        if before.index_tree and after.index_tree:
            index = overlay(checkout, before.index_tree, after.index_tree, step.paths)
        after = State(
            commit=None,
            head=before.head,
            branch=before.branch,
            index_tree=index,
            worktree=overlay(checkout, before.worktree, after.worktree, step.paths),
            notes=after.notes,
            captured_at=after.captured_at,
            label=after.label,
        )
    return before, after
