"""`pylon ws apply ID`: bring what an owned session changed onto the current checkout.

The change is what the session did since its baseline: baseline commit -> the session's current
state (commits, staged and unstaged work, untracked files; the capture of state.py on the
session's own private index). It is merged three-way onto the checkout's current working tree:

    base   = the session baseline            (refs/pylon/sessions/<id>/baseline), or the session
             state of its last apply still in effect (applied.py: a second apply merges only
             what the session changed since the first)
    ours   = the checkout's working tree      (captured, untracked files included)
    theirs = the session's working tree       (captured the same way)

Both sides are put in commits whose only parent is the baseline, so `git merge-tree --write-tree`
(git >= 2.38) merges on exactly that base and writes nothing but objects. On any conflict the
paths are reported with their conflict regions and no file is touched.

The merged tree is then written by the restore primitive every op shares (restore_state.py):
the checkout goes from its captured state to a state commit of the merged tree with the same
index tree and HEAD, so only the paths that differ are written (by `git checkout-index`, with
git's modes, symlinks and conversions) or unlinked, and the real index and HEAD are not touched:
the staged split stays exactly as it was and the merge shows up as unstaged changes (new files as
untracked). A write that would replace a file outside the captured state (an ignored one) is
refused before the op begins. `ws undo` is the same restore back to the state before.
"""

from __future__ import annotations

from pylon.workspace import git
from pylon.workspace.commits import State
from pylon.workspace.worktrees import owned

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.merge.conflicts import ConflictFile
    from pylon.workspace.worktrees.applied import Base
from pylon.workspace.merge.conflicts import merge_tree, on_base, require_merge_tree
from pylon.workspace.merge.markers import BASE, CHECKOUT, labelled_tree, session_label
from pylon.workspace.repo import Checkout, refuse_in_progress
from pylon.workspace.sides import names, parallel, read_side

_STATUS = {"A": "added", "M": "modified", "D": "deleted", "T": "type"}


class Plan:
    """Everything apply decided before touching a file (what the op log records)."""

    __slots__ = ("id", "session_path", "baseline", "base", "session", "before", "merged", "files", "conflicts", "meta")

    def __init__(
        self,
        worktree_id: str,
        session_path: str,
        baseline: str,
        base: Base,
        session: State,
        before: State,
        merged: str,
        files: list[dict[str, str]],
        conflicts: list[ConflictFile] | None = None,
        meta: str | None = None,
    ) -> None:
        self.id, self.session_path, self.baseline, self.base = worktree_id, session_path, baseline, base
        self.session, self.before, self.merged, self.files = session, before, merged, files
        self.conflicts = conflicts or []  # with --markers: the paths written with conflict markers
        self.meta = meta  # the exact record (bits, folders) of the state after

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "path": self.session_path,
            "baseline": self.baseline,
            "base": self.base.to_dict(),
            "session_state": self.session.commit,
            "before": self.before.commit,
            "before_tree": self.before.worktree,
            "merged_tree": self.merged,
            "files": self.files,
            "total": len(self.files),
            "conflicts": self.conflicts,
            "markers": [str(c["path"]) for c in self.conflicts],
        }


def plan(checkout: Checkout, worktree_id: str, *, markers: bool = False, diff3: bool = False) -> Plan:
    """Capture both sides and merge them; raises apply-conflicts (nothing changed) on conflict,
    unless `markers`: then the conflicting paths get git-style markers (markers.py) in the plan."""
    from pylon.errors import PylonError
    from pylon.workspace.state import capture

    owned.check_id(worktree_id)
    refuse_in_progress(checkout, "apply a session's changes")
    require_merge_tree()
    info = owned.survey(checkout)
    found = info.get(worktree_id)
    if owned.same_path(found.path, checkout.root):
        raise PylonError(
            "apply-into-itself",
            f"This checkout is the owned worktree {worktree_id} itself; there is nothing to apply it onto.",
            f"Run it from the checkout that should receive the work: pylon -C {info.main_root} ws apply {worktree_id}",
        )
    # both captures at once: each is mostly waiting on its own git processes
    session, before = parallel([0, 1], lambda i: read_side(found.path).state if i == 0 else capture(checkout))
    if before.index_tree is None:  # conflicts in the index without a marker file (a hand-made state)
        raise PylonError(
            "operation-in-progress",
            "The index has unmerged entries; `ws apply` changes nothing.",
            "Resolve them (git status), then run the command again.",
        )
    if any(note.get("kind") == "sparse-checkout" for note in before.notes):
        raise PylonError(
            "apply-sparse-checkout",
            "This checkout is sparse: files outside the cone are not on disk, so a merge written here could not "
            "be shown or undone exactly; nothing was changed.",
            f"Apply it in a full checkout (`git sparse-checkout disable` first), or bring the session here whole "
            f"with `pylon ws move {worktree_id}`.",
        )
    from pylon.workspace.worktrees.applied import bases

    start = bases(checkout, {worktree_id: found.baseline})[worktree_id]
    base = start.commit
    ours = on_base(checkout, before.worktree, base, "apply: checkout")
    theirs = on_base(checkout, session.worktree, base, f"apply: session {worktree_id}")
    labels = {ours: CHECKOUT, theirs: session_label(worktree_id), base: BASE}
    merged, conflicts = merge_tree(checkout, ours, theirs, labels, diff3=diff3)
    if conflicts and not markers:
        raise conflicts_error(worktree_id, conflicts)
    if conflicts:
        merged = labelled_tree(checkout, merged, [str(c["path"]) for c in conflicts], labels)
    meta = exact_after(checkout, start, session, before, merged)
    return Plan(
        worktree_id,
        found.path,
        found.baseline,
        start,
        session,
        before,
        merged,
        with_modes(checkout, tree_changes(checkout, before.worktree, merged), before, meta, merged),
        conflicts,
        meta,
    )


def exact_after(checkout: Checkout, base: Base, theirs: State, ours: State, merged: str) -> str | None:
    """The exact record (permission bits, empty folders, folder bits) of a merge written onto `ours`:
    what the change base -> theirs changed comes along, `ours` keeps the rest (reverse.carried_meta).
    A baseline records no bits: git checked the session out (644/755, no empty folder), so it
    counts as that on either side (a sync then brings the checkout's odd bits into the session)."""
    from pylon.workspace.commits import read_state
    from pylon.workspace.exact import encode, grouped
    from pylon.workspace.ops.reverse import carried_meta

    start = read_state(checkout, base.commit)
    if base.kind in ("baseline", "merge-base"):
        start.meta_raw = encode(grouped({}, []))
    return carried_meta(checkout, start, theirs, ours, merged, strict=True)


def with_modes(
    checkout: Checkout, files: list[dict[str, str]], before: State, meta: str | None, merged: str
) -> list[dict[str, str]]:
    """`files` with the permission bits the state after changes: `old_mode`/`new_mode` on a listed
    path, and a `mode` entry for a path whose bits alone change (a chmod 600 is a change like any)."""
    from pylon.workspace import exact

    after = exact.decode(meta) if meta else None
    if after is None or before.meta is None:
        return files
    old, new = exact.modes_of(before.meta), exact.modes_of(after)
    odd = sorted(p for p in set(old) | set(new) if old.get(p) != new.get(p))
    if not odd:
        return files
    then, now = exact.git_modes(checkout.root, before.worktree, odd), exact.git_modes(checkout.root, merged, odd)
    listed = {f["path"]: f for f in files}
    found = list(files)
    for rel in odd:
        if rel not in then or rel not in now:
            continue  # added or deleted: the listing says so
        a = old.get(rel, 0o755 if then[rel] == "100755" else 0o644)
        b = new.get(rel, 0o755 if now[rel] == "100755" else 0o644)
        if a == b:
            continue
        entry = listed.get(rel)
        if entry is None:
            entry = {"path": rel, "status": "mode"}
            found.append(entry)
        entry.update(old_mode=format(a, "o"), new_mode=format(b, "o"))
    return sorted(found, key=lambda f: f["path"].encode("utf-8", "surrogateescape"))


def conflicts_error(worktree_id: str, conflicts: list[ConflictFile]) -> Exception:
    from pylon.errors import PylonError

    shown = ", ".join(str(c["path"]) for c in conflicts[:10])
    more = f" (and {len(conflicts) - 10} more)" if len(conflicts) > 10 else ""
    return PylonError(
        "apply-conflicts",
        f"Applying {worktree_id} conflicts with this checkout in {len(conflicts)} "
        f"path{'s' if len(conflicts) != 1 else ''}: {shown}{more}; nothing was changed.",
        f"Write the conflicts here as markers to resolve them in place: pylon ws apply {worktree_id} --markers "
        f"(or bring this checkout's changes into the session: pylon ws sync {worktree_id}).",
        details={"id": worktree_id, "conflicts": conflicts, "total": len(conflicts)},
    )


def tree_changes(checkout: Checkout, old: str, new: str) -> list[dict[str, str]]:
    """Paths that differ between two trees, with added/modified/deleted/type (no renames)."""
    out = git.run(["diff-tree", "-r", "-z", "--name-status", "--no-renames", old, new], cwd=checkout.root)
    fields = names(out)
    return [{"path": p, "status": _STATUS.get(s[:1], s)} for s, p in zip(fields[0::2], fields[1::2])]


def overwrite_refusal(
    paths: list[str],
    what: str,
    way: str,
    code: str = "apply-would-overwrite",
    place: str = "The session's changes would replace {what} in this checkout",
) -> Exception:
    from pylon.errors import PylonError

    more = f" (and {len(paths) - 10} more)" if len(paths) > 10 else ""
    return PylonError(
        code,
        f"{place.format(what=what)}: {', '.join(paths[:10])}{more}; nothing was changed.",
        f"Move those files aside (or {way}), then run the command again.",
        details={"paths": paths[:20], "total": len(paths)},
    )


def apply(
    checkout: Checkout, worktree_id: str, *, command: str | None = None, markers: bool = False, diff3: bool = False
) -> dict[str, object]:
    """Plan and write under the op lock, recorded in the op log (kind `apply`): the intent (the
    checkout's state before, and the state after: the merged tree with the same index and HEAD)
    is written before the first file changes, so `ws undo` restores the state before exactly,
    even after a kill half-way through."""
    from pylon.workspace.ops import oplog, oprun, restore_plan, restore_state
    from pylon.workspace.ops.restore_state import make_state

    with oplog.op_lock(checkout):
        oplog.check_clear(checkout)
        todo = plan(checkout, worktree_id, markers=markers, diff3=diff3)
        result = todo.to_dict()
        result.update(staged_kept=True, applied=False, op=None)
        if not todo.files:
            return result
        before = todo.before
        # the session's own bit changes (a new 700 script) come along; the checkout keeps its others
        after = make_state(
            checkout,
            worktree=todo.merged,
            index_tree=before.index_tree,
            head=before.head,
            branch=before.branch,
            label=f"after apply {worktree_id}",
            meta_raw=todo.meta,
            head_tree=before.head_tree,
        )
        writes = restore_plan.plan(checkout, after, current=before)
        if writes.blocked:
            raise overwrite_refusal(
                writes.blocked,
                f"{len(writes.blocked)} file{'s' if len(writes.blocked) != 1 else ''} that "
                "are not part of the checkout's state (ignored files; pylon never touches them)",
                "delete them if you do not need them",
            )
        step = oplog.Step(checkout.root, str(before.commit), after, head="keep")
        op = oplog.begin(
            checkout,
            "apply",
            [step],
            title=f"apply {worktree_id}",
            command=command,
            data={
                "id": worktree_id,
                "baseline": todo.baseline,
                "session_state": todo.session.commit,
                "base": todo.base.commit,
                "files": len(todo.files),
                "markers": [str(c["path"]) for c in todo.conflicts],
            },
            anchors=[str(todo.session.commit), todo.baseline, todo.base.commit],
        )
        # the same primitive as undo and `undo --finish`: only the paths that differ are written
        # (git checkout-index from a private index of just them), HEAD and the real index kept
        with oprun.closed_if_refused(checkout, op):
            restore_state.restore(checkout, after, head="keep", current=before)
        oplog.complete(checkout, op)
    result.update(applied=True, op=op.seq)
    return result
