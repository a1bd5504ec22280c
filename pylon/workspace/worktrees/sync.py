"""`pylon ws sync ID [--from checkout|ID2] [--markers [--diff3]]`: bring the checkout's (or another
session's) current state into a session's worktree: `ws apply` the other way round.

    base   = where the two last agreed (applied.bases): the session baseline, or the session's
             state at its last apply, or the source's state at its last sync from that source
    ours   = the session's working tree       (captured: commits, staged, unstaged, untracked)
    theirs = the source's working tree         (the checkout's, uncommitted work included)

Both sides are put on the base (conflicts.on_base) and merged by `git merge-tree --write-tree`.
The merged tree is written into the session's worktree by the restore primitive, with the
session's own index tree and HEAD kept: the session's uncommitted work stays (it is one side of
the merge), what came in shows up as unstaged changes there. On a conflict nothing is written,
unless `markers`: then the conflicting files get markers named `session ID` (first) and
`checkout` (or `session ID2`). The op is kind `sync` in the op log (one Step, rooted at the
session's worktree): `ws undo` restores the session exactly as it was.
"""

from __future__ import annotations

from pylon.workspace import git
from pylon.workspace.merge.conflicts import merge_tree, on_base, require_merge_tree
from pylon.workspace.merge.markers import BASE, CHECKOUT, labelled_tree, session_label
from pylon.workspace.ops import oplog, oprun
from pylon.workspace.repo import Checkout, locate, refuse_in_progress
from pylon.workspace.worktrees import owned
from pylon.workspace.worktrees.apply import exact_after, tree_changes, with_modes
from pylon.workspace.worktrees.withheld import keep_theirs, withheld

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.commits import State
    from pylon.workspace.merge.conflicts import ConflictFile
    from pylon.workspace.worktrees.applied import Base


def _source(checkout: Checkout, info: owned.Survey, worktree_id: str, source: str) -> tuple[str, str, str]:
    """(the name of the source in the op log, its root, its label in markers)."""
    from pylon.errors import PylonError

    if source == "checkout":
        here = checkout.root
        if any(owned.same_path(o.path, here) for o in info.owned.values()):
            here = info.main_root  # run from inside a session: its checkout is the main one
        return "checkout", here, CHECKOUT
    owned.check_id(source)
    other = info.get(source)
    if source == worktree_id:
        raise PylonError(
            "sync-from-itself",
            f"`--from {source}` names the session being synced.",
            f"pylon ws sync {worktree_id}   # from the checkout, or --from another session's id",
            exit_code=2,
        )
    return source, other.path, session_label(source)


def _base(checkout: Checkout, worktree_id: str, baseline: str, source: str, source_baseline: str | None) -> Base:
    from pylon.workspace.worktrees.applied import Base, bases

    found = bases(checkout, {worktree_id: baseline}, source)[worktree_id]
    if found.kind == "baseline" and source_baseline and source_baseline != baseline:
        # two sessions from different starting states: their history's merge base
        code, out, _err = git.run_full(["merge-base", baseline, source_baseline], cwd=checkout.root)
        if code == 0 and out.strip():
            return Base(out.decode().strip(), "merge-base")
    return found


class Plan:
    """What sync decided before touching a file."""

    __slots__ = (
        "id",
        "path",
        "source",
        "baseline",
        "base",
        "before",
        "incoming",
        "merged",
        "files",
        "conflicts",
        "meta",
        "source_root",
    )

    def __init__(
        self,
        worktree_id: str,
        path: str,
        source: str,
        baseline: str,
        base: Base,
        before: State,
        incoming: State,
        merged: str,
        files: list[dict[str, str]],
        conflicts: list[ConflictFile],
        meta: str | None = None,
    ) -> None:
        self.id, self.path, self.source, self.baseline, self.base = worktree_id, path, source, baseline, base
        self.before, self.incoming, self.merged, self.files, self.conflicts = before, incoming, merged, files, conflicts
        self.meta = meta  # the exact record (bits, folders) of the session's state after
        self.source_root = ""  # the checkout (or session) the state came from

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "path": self.path,
            "from": self.source,
            "baseline": self.baseline,
            "base": self.base.to_dict(),
            "session_before": self.before.commit,
            "source_state": self.incoming.commit,
            "merged_tree": self.merged,
            "files": self.files,
            "total": len(self.files),
            "conflicts": self.conflicts,
            "markers": [str(c["path"]) for c in self.conflicts],
        }


def plan(
    checkout: Checkout, worktree_id: str, source: str = "checkout", *, markers: bool = False, diff3: bool = False
) -> Plan:
    """Capture both sides and merge them; raises sync-conflicts (nothing changed) on a conflict,
    unless `markers`."""
    from pylon.errors import PylonError
    from pylon.workspace.sides import parallel, read_side
    from pylon.workspace.state import capture

    owned.check_id(worktree_id)
    require_merge_tree()
    info = owned.survey(checkout)
    found = info.get(worktree_id)
    name, source_root, label = _source(checkout, info, worktree_id, source)
    session_co = locate(found.path)
    refuse_in_progress(session_co, "sync a session")

    def read(i: int) -> State:
        return capture(session_co) if i == 0 else read_side(source_root).state

    before, incoming = parallel([0, 1], read)
    if before.index_tree is None:
        raise PylonError(
            "operation-in-progress",
            "The session's index has unmerged entries; `ws sync` changes nothing.",
            f"Resolve them (git -C {found.path} status), then run the command again.",
        )
    source_baseline = None if name == "checkout" else info.get(name).baseline
    start = _base(checkout, worktree_id, found.baseline, name, source_baseline)
    held: list[str] = []
    if name == "checkout":  # the person's ignored files stay out of the session (withheld.py)
        copy = found.record.get("copy")
        held = withheld(
            locate(source_root),
            incoming,
            trees=[found.baseline],
            copy=[str(c) for c in copy] if isinstance(copy, list) else [],
        )
    if held:  # as at the base (no change); the state recorded as synced is the one without them, so
        # the next apply's base (the last sync) does not count them as removed by the session
        from pylon.workspace.commits import read_state
        from pylon.workspace.ops.restore_state import make_state

        incoming = read_state(
            checkout,
            make_state(
                checkout,
                worktree=keep_theirs(checkout, incoming.worktree, held, start.commit),
                index_tree=incoming.index_tree,
                head=incoming.head,
                branch=incoming.branch,
                label=f"{label}, without the person's ignored files",
                notes=incoming.notes,
                meta_raw=incoming.meta_raw,
            ),
        )
    ours = on_base(checkout, before.worktree, start.commit, f"sync: session {worktree_id}")
    theirs = on_base(checkout, incoming.worktree, start.commit, f"sync: {label}")
    labels = {ours: session_label(worktree_id), theirs: label, start.commit: BASE}
    merged, conflicts = merge_tree(checkout, ours, theirs, labels, diff3=diff3)
    if conflicts and not markers:
        raise _conflicts_error(worktree_id, name, conflicts)
    if conflicts:
        merged = labelled_tree(checkout, merged, [str(c["path"]) for c in conflicts], labels)
    meta = exact_after(checkout, start, incoming, before, merged)
    found_plan = Plan(
        worktree_id,
        found.path,
        name,
        found.baseline,
        start,
        before,
        incoming,
        merged,
        with_modes(checkout, tree_changes(checkout, before.worktree, merged), before, meta, merged),
        conflicts,
        meta,
    )
    found_plan.source_root = source_root
    return found_plan


def _conflicts_error(worktree_id: str, source: str, conflicts: list[ConflictFile]) -> Exception:
    from pylon.errors import PylonError

    shown = ", ".join(str(c["path"]) for c in conflicts[:10])
    more = f" (and {len(conflicts) - 10} more)" if len(conflicts) > 10 else ""
    flag = "" if source == "checkout" else f" --from {source}"
    return PylonError(
        "sync-conflicts",
        f"Syncing {worktree_id} from {'the checkout' if source == 'checkout' else 'session ' + source} conflicts "
        f"in {len(conflicts)} path{'s' if len(conflicts) != 1 else ''}: {shown}{more}; nothing was changed.",
        f"Write the conflicts into the session as markers to resolve them there: "
        f"pylon ws sync {worktree_id}{flag} --markers",
        details={"id": worktree_id, "from": source, "conflicts": conflicts, "total": len(conflicts)},
    )


def sync(
    checkout: Checkout,
    worktree_id: str,
    source: str = "checkout",
    *,
    markers: bool = False,
    diff3: bool = False,
    command: str | None = None,
) -> dict[str, object]:
    """Plan and write under the op lock, recorded in the (shared) op log as kind `sync`."""
    from pylon.workspace.ops import restore_plan, restore_state
    from pylon.workspace.ops.restore_state import make_state
    from pylon.workspace.worktrees.apply import overwrite_refusal

    with oplog.op_lock(checkout):
        oplog.check_clear(checkout)
        todo = plan(checkout, worktree_id, source, markers=markers, diff3=diff3)
        result = todo.to_dict()
        result.update(synced=False, op=None)
        if not todo.files:
            return result
        before = todo.before
        session_co = locate(todo.path)
        after = make_state(
            session_co,
            worktree=todo.merged,
            index_tree=before.index_tree,
            head=before.head,
            branch=before.branch,
            label=f"after sync {worktree_id}",
            meta_raw=todo.meta,
            head_tree=before.head_tree,
        )
        writes = restore_plan.plan(session_co, after, current=before)
        if writes.blocked:
            raise overwrite_refusal(
                writes.blocked,
                f"{len(writes.blocked)} ignored file(s)",
                f"delete them in {todo.path} if they are not needed",
                code="sync-would-overwrite",
                place="The incoming changes would replace {what} in the session's worktree",
            )
        step = oplog.Step(session_co.root, str(before.commit), after, head="keep")
        op = oplog.begin(
            checkout,
            "sync",
            [step],
            title=f"sync {worktree_id} from {todo.source}",
            command=command,
            data={
                "id": worktree_id,
                "from": todo.source,
                "baseline": todo.baseline,
                "checkout": todo.source_root,
                "source_state": todo.incoming.commit,
                "base": todo.base.commit,
                "files": len(todo.files),
                "markers": result["markers"],
            },
            anchors=[str(todo.incoming.commit), str(before.commit), todo.base.commit],
        )
        with oprun.closed_if_refused(checkout, op):
            restore_state.restore(session_co, after, head="keep", current=before)
        oplog.complete(checkout, op)
    result.update(synced=True, op=op.seq)
    return result
