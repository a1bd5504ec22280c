"""`pylon ws finish ID [--commit -m MSG] [--keep-branch]`: "this agent is done" in one step.

One op of the log (kind `finish`, this module): the session's work is applied to the checkout
exactly as `ws apply ID` does (refused on a conflict, with nothing changed), optionally committed
on the current branch, and the worktree is removed as `ws rm` removes it. The op's data holds both
halves (the apply's step, and what an `rm` op records: the session's state, branch tip, baseline,
registry record, scoped refs), so `ws undo` brings the worktree back (rm_undo.undo_op) and then
the checkout to its state before (the step, backwards: files, index, and the branch when a
commit was made). A finish killed half-way is settled by `ws undo` or `ws undo --finish`.

`--commit -m MSG` commits only the applied paths: the new commit's tree is HEAD's with those paths
as merged; the index gets the same entries (so they show as committed, not as staged reversions);
every other staged or unstaged change of the person is left as it was. The commit is made with the
person's own identity (git's configuration), on the current branch (or on a detached HEAD).
"""

from __future__ import annotations

import os

from pylon.locks import file_lock
from pylon.workspace import git
from pylon.workspace.ops import oplog
from pylon.workspace.worktrees import owned, rm_undo
from pylon.workspace.repo import Checkout, stored_tree

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.worktrees.apply import Plan
    from pylon.workspace.commits import State

MODULE = "pylon.workspace.worktrees.finish"


def _with_paths(checkout: Checkout, base_tree: str | None, merged: str, files: list[dict[str, str]]) -> str:
    """`base_tree` with the changed `files` taken from `merged` (deleted ones removed)."""
    from pylon.workspace.commits import edited_tree

    paths = [f["path"] for f in files]
    listing = git.run(["ls-tree", "-r", "-z", "--full-tree", merged, "--", *paths], cwd=checkout.root,
                      env={"GIT_LITERAL_PATHSPECS": "1"})
    entries = {}
    for record in listing.decode("utf-8", "surrogateescape").split("\0"):
        if record:
            meta, path = record.split("\t", 1)
            mode, _kind, oid = meta.split()
            entries[path] = f"{mode} {oid}\t{path}\0"
    return edited_tree(checkout, base_tree, "".join(entries.get(p, f"0 {'0' * 40}\t{p}\0") for p in paths),
                       "finish-index")


def _after(checkout: Checkout, todo: Plan, message: str | None, worktree_id: str) -> tuple[str, str | None]:
    """(the state after, the commit made or None)."""
    from pylon.workspace.ops.restore_state import make_state, tree_of

    before: State = todo.before
    if message is None:
        return make_state(checkout, worktree=todo.merged, index_tree=before.index_tree, head=before.head,
                          branch=before.branch, label=f"after finish {worktree_id}", meta_raw=todo.meta), None
    head_tree = tree_of(checkout, before.head) if before.head else None
    tree = _with_paths(checkout, head_tree, todo.merged, todo.files)
    args = ["commit-tree", "--no-gpg-sign", stored_tree(checkout, tree), *(["-p", before.head] if before.head else []), "-F", "-"]
    commit = git.run(args, cwd=checkout.root, input=message.encode("utf-8"), what="git commit-tree").decode().strip()
    index = _with_paths(checkout, before.index_tree or head_tree, todo.merged, todo.files)
    return make_state(checkout, worktree=todo.merged, index_tree=index, head=commit, branch=before.branch,
                      label=f"after finish {worktree_id}", meta_raw=todo.meta), commit


def finish(checkout: Checkout, worktree_id: str, *, message: str | None = None, keep_branch: bool = False,
           command: str | None = None) -> dict[str, object]:
    from pylon.workspace.ops import restore_state
    from pylon.workspace.worktrees.apply import overwrite_refusal, plan
    from pylon.workspace.worktrees.move import refuse_while_moved
    from pylon.workspace.worktrees.rm import _stop_watcher

    owned.check_id(worktree_id)
    refuse_while_moved(checkout, worktree_id)
    with oplog.op_lock(checkout):
        oplog.check_clear(checkout)
        with file_lock(owned.lock_path(checkout), timeout=60.0, what="owned worktrees"):
            todo = plan(checkout, worktree_id)  # a conflict: apply-conflicts, nothing changed
            info = owned.survey(checkout)
            found = info.get(worktree_id)
            before = todo.before
            steps: list[oplog.Step] = []
            commit = None
            if todo.files:
                after, commit = _after(checkout, todo, message, worktree_id)
                writes = restore_state.plan(checkout, after, current=before)
                if writes.blocked:
                    raise overwrite_refusal(writes.blocked, f"{len(writes.blocked)} ignored file(s)",
                                            "delete them if you do not need them")
                steps.append(oplog.Step(checkout.root, str(before.commit), after,
                                        head="state" if commit else "keep"))
            scoped = rm_undo.scoped_refs(checkout, found.record)
            scoped_oids = {ref: git.run(["rev-parse", "-q", "--verify", ref], cwd=checkout.root, ok=(0, 1))
                           .decode().strip() for ref in scoped}
            data = {
                "id": found.id, "path": found.path, "branch": found.branch, "tip": found.head or "",
                "baseline": found.baseline, "record": found.record, "state": todo.session.commit,
                "keep_branch": keep_branch, "scoped": scoped_oids, "trash": None,
                "session_state": todo.session.commit, "files": len(todo.files), "commit": commit,
                "checkout": checkout.root,
            }
            anchors = [str(todo.session.commit), found.head or "", found.baseline, str(before.commit),
                       *(a for a in scoped_oids.values() if a)]
            op = oplog.begin(checkout, "finish", steps, title=f"finish {worktree_id}", data=data, anchors=anchors,
                             module=MODULE, command=command)
            if steps:
                with oplog.closed_if_refused(checkout, op):
                    restore_state.restore(checkout, steps[0].after, head=steps[0].head, current=before)
            main = info.main_root
            if owned.same_path(os.path.commonpath([found.path, os.getcwd()]), found.path):
                os.chdir(main)
            _stop_watcher(owned.admin_dir_of(found.path))
            rm_undo.remove_steps(checkout, main, found.id, found.path, found.branch, found.head or "", found.record,
                                 keep_branch=keep_branch)
            oplog.complete(checkout, op)
    result = todo.to_dict()
    result.update(applied=bool(todo.files), commit=commit, removed=True, branch=found.branch,
                  branch_kept=keep_branch, op=op.seq)
    return result


# -- the op-log hooks (undo.py calls them for ops whose module is this one) ---------------------


def check_undo(checkout: Checkout, op: oplog.Op) -> None:
    from pylon.workspace.ops.restore_state import _blocked_error, plan
    from pylon.workspace.repo import locate
    from pylon.workspace.state import capture
    from pylon.workspace.ops.undo import _branch_check

    rm_undo.check_undo(checkout, op)
    _branch_check(op)
    for step in op.steps:
        co = locate(step.root)
        todo = plan(co, step.before, step.paths, current=capture(co))
        if todo.blocked:
            raise _blocked_error(todo.blocked)


def undo_op(checkout: Checkout, op: oplog.Op) -> None:
    """The worktree back first (it holds the work), then the checkout as it was before."""
    rm_undo.undo_op(checkout, op)
    oplog.run_steps(op.steps, forward=False)


def reverse_undo_op(checkout: Checkout, op: oplog.Op) -> None:
    """An undo killed half-way, reversed: the checkout is back to the state the undo replaced
    (undo.py did that); the worktree it had begun to make again goes as the finish removed it."""
    rm_undo.reverse_undo_op(checkout, op)


def finish_op(checkout: Checkout, op: oplog.Op) -> None:
    """Complete an interrupted finish: the checkout to its state after, then the removal."""
    oplog.run_steps(op.steps, forward=True)
    rm_undo.finish_op(checkout, op)
