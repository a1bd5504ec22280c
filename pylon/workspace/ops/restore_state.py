"""restore(): bring a checkout to a captured state exactly. The primitive every mutating op uses.

    restore(checkout, state_commit, paths=None, *, head="state", current=None) -> dict

`state_commit` is a state commit in the format of state.capture() (tree = the working tree;
message fields pylon-head, pylon-branch, pylon-index-tree), as kept by baselines, the op log,
`ws rm --force` (refs/pylon/trash/) and guard snapshots (refs/pylon/guard/<n>, whose tree may also
hold ignored files: those are written back too). make_state() builds one from its parts.

What it changes, in this order (each step is idempotent, so a restore killed at any moment is
finished, or reversed, by running restore again towards the state wanted):

1. the working tree: every path where the current state and the target differ, and only those.
   Paths of the current state missing from the target are unlinked (beneath the root, no symlink
   followed); the others are written by `git checkout-index -f` from a small private index that
   holds just them, so modes, symlinks and git's own conversions are exactly git's. Ignored files
   are never touched: a write that would replace one (or any file the current state does not hold)
   is refused before anything changes (`restore-blocked`). An untracked file the target lacks is
   kept when a rule ignores it (keep_ignored.py). Permission bits and empty folders: exact.py.
2. the real index: one `git update-index --index-info` of the entries where the current index
   tree and the target's differ (stat data of every other entry is kept, so the next `git status`
   stays cheap). This is the staged/unstaged split. A state that recorded no index tree
   (`pylon-index-tree: unmerged`, or none) leaves the index as it is.
3. HEAD, by `head`: "state" (HEAD and branch as recorded: the branch ref is set to the recorded
   commit and HEAD points at it; detached when the state was), "detach" (HEAD detached at the
   recorded commit, no branch moved) or "keep" (HEAD left alone, as for PATH restores).

`paths` (root-relative, literal; a folder means everything under it) limits steps 1 and 2 to those
paths; HEAD is then always kept. `current` is a capture of the checkout taken just before (the op
log takes one anyway); without it restore captures one itself. What would change, and what blocks
it, is computed first without writing anything: restore_plan.py.
"""

from __future__ import annotations

import os

from pylon.workspace import git, immutable
from pylon.workspace.commits import State, commit_tree, read_state, remove_index, state_message
from pylon.workspace.ops.restore_plan import blocked_error, plan
from pylon.workspace.repo import EMPTY_TREE, Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NotRequired

    from pylon.workspace.ops.restore_plan import PlanSummary

    class Restored(PlanSummary):
        """What `ws restore` did: of a snapshot (ops/restore.py) or of a shell op's kept state
        (ops/shellop.py)."""

        name: str
        ref: str
        commit: str
        dry_run: bool
        paths: list[str] | None
        head: str | None
        head_now: str | None
        head_kept: bool
        op: NotRequired[int | None]
        refs: NotRequired[dict[str, list[str]]]
        aside: NotRequired[list[str]]  # files in the way (ignored ones), kept in the op's `before` state


HEAD_MODES = ("state", "detach", "keep")
_LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}


def make_state(
    checkout: Checkout,
    *,
    worktree: str,
    index_tree: str | None,
    head: str | None,
    branch: str | None,
    label: str = "state",
    notes: list[dict[str, str]] | None = None,
    meta_raw: str | None = None,
    head_tree: str | None = None,
) -> str:
    """A state commit (the format capture() writes) from its parts; not anchored by any ref.
    `meta_raw` is the encoded exact.py record of the state whose files it holds, if any;
    `head_tree`, HEAD's tree when a capture read it with `head` (State.head_tree), saves asking git."""
    import time

    state = State(
        commit=None,
        head=head,
        branch=branch,
        index_tree=index_tree,
        worktree=worktree,
        notes=notes or [],
        captured_at=int(time.time()),
        label=label,
        meta_raw=meta_raw,
    )
    index_commit = None
    if not head:
        head_tree = EMPTY_TREE
    elif head_tree is None:
        head_tree = tree_of(checkout, head)
    if index_tree and index_tree != head_tree:
        index_commit = commit_tree(checkout, index_tree, [head] if head else [], f"pylon index of {label}\n")
    parents = [p for p in (head, index_commit) if p]
    return commit_tree(checkout, worktree, parents, state_message(state, index_commit))


def holding(checkout: Checkout, current: State, paths: list[str]) -> State:
    """`current` with the files (not folders) at `paths` added to its working tree as they are now:
    the state a restore replaces keeps the ignored files it overwrites, so undo gives them back."""
    from pylon.workspace.commits import tree_with_files

    files = [
        p
        for p in paths
        if os.path.islink(os.path.join(checkout.root, p)) or os.path.isfile(os.path.join(checkout.root, p))
    ]
    if not files:
        return current
    tree = tree_with_files(checkout, current.worktree, files)
    meta_raw = current.meta_raw
    if meta_raw is not None:  # the held files' own bits join the state's record
        from pylon.workspace.exact import with_modes

        meta_raw = with_modes(checkout.root, meta_raw, files)
    commit = make_state(
        checkout,
        worktree=tree,
        index_tree=current.index_tree,
        head=current.head,
        branch=current.branch,
        label=current.label,
        notes=current.notes,
        meta_raw=meta_raw,
    )
    return read_state(checkout, commit)


def tree_of(checkout: Checkout, commitish: str) -> str:
    return immutable.tree_of(checkout, commitish)


def same_state(a: State, b: State) -> bool:
    """Same files, same staged index, same HEAD and branch."""
    return (a.worktree, a.index_tree, a.head, a.branch) == (b.worktree, b.index_tree, b.head, b.branch)


def _index_file(checkout: Checkout, name: str) -> str:
    return os.path.join(checkout.pylon_dir(), name)


def _write_files(checkout: Checkout, entries: list[tuple[str, str, str]]) -> None:
    """Write (mode, oid, path) entries with git's own checkout, from a private index of just them."""
    from pylon.workspace.leftovers import temp_name

    tmp = _index_file(checkout, temp_name("restore-index"))  # its owner in its name (leftovers.py)
    env = {"GIT_INDEX_FILE": tmp, **_LITERAL}
    try:
        lines = "".join(f"{mode} {oid}\t{path}\0" for mode, oid, path in entries)
        git.run(
            ["update-index", "-z", "--index-info"],
            cwd=checkout.root,
            env=env,
            input=lines.encode("utf-8", "surrogateescape"),
            what="git update-index (restore)",
        )
        names = "".join(f"{path}\0" for mode, _oid, path in entries if mode != "160000")
        if names:
            git.run(
                ["checkout-index", "-f", "-z", "--stdin"],
                cwd=checkout.root,
                env=env,
                input=names.encode("utf-8", "surrogateescape"),
                what="git checkout-index (restore)",
            )
        for mode, _oid, path in entries:
            if mode == "160000":  # a submodule: its folder, never its content (git checkout does the same)
                os.makedirs(os.path.join(checkout.root, path), exist_ok=True)
    finally:
        remove_index(tmp)


def restore(
    checkout: Checkout,
    state_commit: str,
    paths: list[str] | None = None,
    *,
    head: str = "state",
    current: State | None = None,
    rules: list[str] | None = None,
    made: str | None = None,
) -> dict[str, object]:
    """Bring the checkout (or `paths` of it) to the state `state_commit`; see the module docstring.

    Returns {written, deleted, index, head_moved, paths}. Raises `restore-blocked` (nothing
    changed) when a write would replace a file the current state does not hold, and
    `changed-meanwhile` (nothing changed) when a file it would replace or delete no longer holds
    what `current` says (lastlook.py)."""
    if head not in HEAD_MODES:
        raise ValueError(f"head must be one of {HEAD_MODES}")
    if paths is not None:
        head = "keep"
        paths = [p.rstrip("/") for p in paths if p.strip("/")] or None
        if paths is None:
            return {"written": 0, "deleted": 0, "index": 0, "head_moved": False, "paths": []}
    todo = plan(checkout, state_commit, paths, current=current, rules=rules, made=made)
    if todo.blocked:
        raise blocked_error(todo.blocked)
    from pylon.workspace.ops.lastlook import changed, changed_error

    edited = changed(checkout.root, todo.replaced)  # edited since `current` was captured?
    if edited:
        raise changed_error(edited)
    from pylon.workspace import exact, exact_memory
    from pylon.workspace.restore_fs import delete_paths, missing_dirs

    target_meta = todo.target.meta
    # bits remembered for that content there, else the file's own (where the target records none)
    before = exact.bits_before(checkout.root, todo.writes, {r[2] for r in todo.replaced})
    before.update(exact_memory.recall(checkout.common_dir, todo.writes))
    exact_memory.remember(checkout.common_dir, checkout.root, todo.replaced)  # before the first change
    current_meta = todo.current.meta
    if target_meta is not None and current_meta is None:  # a walked target: walk what it replaces too
        scope = exact.scope_of(target_meta)
        found = exact.scan(checkout.root, scope if scope is not None else paths)
        current_meta = exact.meta_for(checkout.root, todo.current.worktree, found)
    # the folders this restore makes (for their bits): missing now, on the way to what it writes
    wanted_dirs = [d + "/" for d in exact.dirs_of(target_meta) if paths is None or exact.inside(d, paths)]
    making = missing_dirs(checkout.root, [w[2] for w in todo.writes] + wanted_dirs)
    pruned: dict[str, int] = {}
    deleted = delete_paths(checkout.root, todo.deletes, pruned)
    exact_memory.remember_dirs(checkout.common_dir, pruned)  # at once: a restore killed now runs again
    making |= {d for d in pruned if any(w[2].startswith(d + "/") for w in todo.writes)}  # emptied, then refilled
    remembered = exact_memory.recall_dirs(checkout.common_dir, making)
    if todo.writes:
        _write_files(checkout, todo.writes)
    exact_memory.remember_dirs(
        checkout.common_dir,
        exact.settle(
            checkout.root,
            target_meta,
            current_meta,
            todo.writes,
            before,
            set(todo.kept),
            paths,
            made={d: remembered.get(d) for d in making},
        ),
    )
    if todo.index_entries:
        git.run(
            ["update-index", "-z", "--index-info"],
            cwd=checkout.root,
            env=_LITERAL,
            input="".join(todo.index_entries).encode("utf-8", "surrogateescape"),
            what="git update-index",
        )
    moved = _set_head(checkout, todo.target, head, todo.current) if head != "keep" else False
    return {
        "written": len(todo.writes),
        "deleted": deleted,
        "index": len(todo.index_entries),
        "head_moved": moved,
        "paths": todo.paths,
        "kept": todo.kept,
    }


def _set_head(checkout: Checkout, target: State, mode: str, current: State) -> bool:
    if mode == "detach" or not target.branch:
        if target.head is None:
            return False
        if current.head == target.head and current.branch is None:
            return False
        git.run(["update-ref", "--no-deref", "-m", "pylon: restore", "HEAD", target.head], cwd=checkout.root)
        return True
    moved = False
    ref_now = git.run(["rev-parse", "-q", "--verify", target.branch], cwd=checkout.root, ok=(0, 1)).decode().strip()
    if target.head and ref_now != target.head:
        git.run(["update-ref", "-m", "pylon: restore", target.branch, target.head], cwd=checkout.root)
        moved = True
    elif not target.head and ref_now:
        git.run(["update-ref", "-d", target.branch, ref_now], cwd=checkout.root)
        moved = True
    if checkout.head_file()[0] != target.branch:
        git.run(["symbolic-ref", "-m", "pylon: restore", "HEAD", target.branch], cwd=checkout.root)
        moved = True
    return moved


def state(checkout: Checkout, commitish: str) -> State:
    """The State recorded in a state commit (re-exported for callers of this module)."""
    return read_state(checkout, commitish)
