"""`pylon ws finish ID [--commit -m MSG] [--keep-branch]`: "this agent is done" in one step.

One op of the log (kind `finish`, this module): the session's work is applied to the checkout
exactly as `ws apply ID` does (refused on a conflict, with nothing changed), optionally committed
on the current branch, and the worktree is removed as `ws rm` removes it. The op's data holds both
halves (the apply's step, and what an `rm` op records: the session's state, branch tip, baseline,
registry record, scoped refs), so `ws undo` brings the worktree back (rm_undo.undo_op) and then
the checkout to its state before (the step, backwards: files, index, and the branch when a
commit was made). A finish killed half-way is settled by `ws undo` or `ws undo --finish`.

`--commit MSG` commits like `git commit` (commit.py): the apply is an op of its own (`ws apply`'s),
then every path the session's applies brought in since its last finish is committed through the
repository's hooks (pre-commit, prepare-commit-msg, commit-msg, post-commit; `--no-verify` skips
pre-commit and commit-msg), on the current branch (or a detached HEAD), with the person's own
identity; the index gets the same entries (so they show as committed, not as staged reversions) and
every other staged or unstaged change of the person is left as it was. Then the worktree is removed,
in the same op as the commit (kind `finish`). A hook that refuses, or nothing to commit, stops before
the commit with the worktree kept; a commit that leaves out part of the session's work (a hook took a
path out of the index) is made as an op of kind `commit` and the worktree is kept.
"""

from __future__ import annotations

import os

from pylon.locks import file_lock
from pylon.workspace import git
from pylon.workspace.ops import oplog, oprun, runsteps
from pylon.workspace.repo import Checkout, stored_tree
from pylon.workspace.worktrees import owned, rm_undo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.commits import State
    from pylon.workspace.worktrees.apply import Plan

MODULE = "pylon.workspace.worktrees.finish"


def _with_paths(checkout: Checkout, base_tree: str | None, merged: str, files: list[dict[str, str]]) -> str:
    """`base_tree` with the changed `files` taken from `merged` (deleted ones removed)."""
    from pylon.workspace.commits import edited_tree
    from pylon.workspace.worktrees.commit import entries

    paths = [f["path"] for f in files]
    found = entries(checkout, merged, paths)
    return edited_tree(
        checkout,
        base_tree,
        "".join(f"{found[p]}\t{p}\0" if p in found else f"0 {'0' * 40}\t{p}\0" for p in paths),
        "finish-index",
    )


def _after(checkout: Checkout, todo: Plan, message: str | None, worktree_id: str) -> tuple[str, str | None]:
    """(the state after, the commit made or None)."""
    from pylon.workspace.ops.restore_state import make_state, tree_of

    before: State = todo.before
    if message is None:
        return make_state(
            checkout,
            worktree=todo.merged,
            index_tree=before.index_tree,
            head=before.head,
            branch=before.branch,
            label=f"after finish {worktree_id}",
            meta_raw=todo.meta,
        ), None
    head_tree = tree_of(checkout, before.head) if before.head else None
    tree = _with_paths(checkout, head_tree, todo.merged, todo.files)
    args = [
        "commit-tree",
        "--no-gpg-sign",
        stored_tree(checkout, tree),
        *(["-p", before.head] if before.head else []),
        "-F",
        "-",
    ]
    commit = git.run(args, cwd=checkout.root, input=message.encode("utf-8"), what="git commit-tree").decode().strip()
    index = _with_paths(checkout, before.index_tree or head_tree, todo.merged, todo.files)
    return make_state(
        checkout,
        worktree=todo.merged,
        index_tree=index,
        head=commit,
        branch=before.branch,
        label=f"after finish {worktree_id}",
        meta_raw=todo.meta,
    ), commit


def finish(
    checkout: Checkout,
    worktree_id: str,
    *,
    message: str | None = None,
    keep_branch: bool = False,
    command: str | None = None,
    verify: bool = True,
) -> dict[str, object]:
    if message is not None:
        return _finish_committing(
            checkout, worktree_id, message, keep_branch=keep_branch, command=command, verify=verify
        )
    from pylon.workspace.ops import restore_plan, restore_state
    from pylon.workspace.worktrees.apply import overwrite_refusal, plan
    from pylon.workspace.worktrees.move import refuse_while_moved
    from pylon.workspace.worktrees.rm import _stop_watcher

    owned.check_id(worktree_id)
    with oplog.op_lock(checkout):
        refuse_while_moved(checkout, worktree_id)  # under the lock: the log is read once
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
                writes = restore_plan.plan(checkout, after, current=before)
                if writes.blocked:
                    raise overwrite_refusal(
                        writes.blocked, f"{len(writes.blocked)} ignored file(s)", "delete them if you do not need them"
                    )
                steps.append(oplog.Step(checkout.root, str(before.commit), after, head="state" if commit else "keep"))
            scoped = rm_undo.scoped_refs(checkout, found.record)
            scoped_oids = {
                ref: git.run(["rev-parse", "-q", "--verify", ref], cwd=checkout.root, ok=(0, 1)).decode().strip()
                for ref in scoped
            }
            data = {
                "id": found.id,
                "path": found.path,
                "branch": found.branch,
                "tip": found.head or "",
                "baseline": found.baseline,
                "record": found.record,
                "state": todo.session.commit,
                "keep_branch": keep_branch,
                "scoped": scoped_oids,
                "trash": None,
                "session_state": todo.session.commit,
                "files": len(todo.files),
                "commit": commit,
                "checkout": checkout.root,
            }
            anchors = [
                str(todo.session.commit),
                found.head or "",
                found.baseline,
                str(before.commit),
                *(a for a in scoped_oids.values() if a),
            ]
            op = oplog.begin(
                checkout,
                "finish",
                steps,
                title=f"finish {worktree_id}",
                data=data,
                anchors=anchors,
                module=MODULE,
                command=command,
            )
            if steps:
                with oprun.closed_if_refused(checkout, op):
                    restore_state.restore(checkout, steps[0].after, head=steps[0].head, current=before)
            main = info.main_root
            if owned.same_path(os.path.commonpath([found.path, os.getcwd()]), found.path):
                os.chdir(main)
            _stop_watcher(owned.admin_dir_of(found.path))
            rm_undo.remove_steps(
                checkout,
                main,
                found.id,
                found.path,
                found.branch,
                found.head or "",
                found.record,
                keep_branch=keep_branch,
            )
            oplog.complete(checkout, op)
    result = todo.to_dict()
    result.update(
        applied=bool(todo.files), commit=commit, removed=True, branch=found.branch, branch_kept=keep_branch, op=op.seq
    )
    return result


def _finish_committing(
    checkout: Checkout, worktree_id: str, message: str, *, keep_branch: bool, command: str | None, verify: bool
) -> dict[str, object]:
    from pylon.errors import PylonError
    from pylon.workspace.ops import restore_state
    from pylon.workspace.state import capture
    from pylon.workspace.worktrees import commit as committing
    from pylon.workspace.worktrees.apply import apply
    from pylon.workspace.worktrees.move import refuse_while_moved
    from pylon.workspace.worktrees.rm import _stop_watcher

    owned.check_id(worktree_id)
    refuse_while_moved(checkout, worktree_id)
    applied = apply(checkout, worktree_id, command=command)  # an op of its own; a conflict changes nothing
    with oplog.op_lock(checkout):
        oplog.check_clear(checkout)
        with file_lock(owned.lock_path(checkout), timeout=60.0, what="owned worktrees"):
            info = owned.survey(checkout)
            found = info.get(worktree_id)
            before = capture(checkout)
            head_tree = restore_state.tree_of(checkout, before.head) if before.head else None
            paths = committing.changed(checkout, head_tree, before.worktree, committing.brought(checkout, found))
            if not paths:
                raise PylonError(
                    "nothing-to-commit",
                    f"Nothing of {worktree_id} is left to commit: its applies brought nothing that differs from HEAD"
                    " (none was made, or all of it is committed already); nothing was committed and the worktree "
                    "was kept.",
                    "Look with `git status` and `pylon ws list`; remove it without a commit: "
                    f"pylon ws finish {worktree_id}",
                )
            made = committing.commit(checkout, before.head, head_tree, before.worktree, paths, message, verify=verify)
            index = _with_paths(checkout, before.index_tree or head_tree, made.tree, [{"path": p} for p in paths])
            after = restore_state.make_state(
                checkout,
                worktree=before.worktree,
                index_tree=index,
                head=made.commit,
                branch=before.branch,
                label=f"after finish {worktree_id}",
            )
            step = oplog.Step(checkout.root, str(before.commit), after, head="state")
            remove = not made.left_out
            commit_data = {
                "id": found.id,
                "baseline": found.baseline,
                "commit": made.commit,
                "paths": len(paths),
                "left_out": made.left_out,
            }
            if remove:
                scoped = rm_undo.scoped_refs(checkout, found.record)
                scoped_oids = {
                    ref: git.run(["rev-parse", "-q", "--verify", ref], cwd=checkout.root, ok=(0, 1)).decode().strip()
                    for ref in scoped
                }
                side_state = str(applied["session_state"])
                data = {
                    **commit_data,
                    "path": found.path,
                    "branch": found.branch,
                    "tip": found.head or "",
                    "record": found.record,
                    "state": side_state,
                    "keep_branch": keep_branch,
                    "scoped": scoped_oids,
                    "trash": None,
                    "session_state": side_state,
                    "files": len(paths),
                }
                anchors = [
                    side_state,
                    found.head or "",
                    found.baseline,
                    str(before.commit),
                    made.commit,
                    *(a for a in scoped_oids.values() if a),
                ]
                op = oplog.begin(
                    checkout,
                    "finish",
                    [step],
                    title=f"finish {worktree_id}",
                    data=data,
                    anchors=anchors,
                    module=MODULE,
                    command=command,
                )
            else:
                op = oplog.begin(
                    checkout,
                    "commit",
                    [step],
                    title=f"commit {worktree_id} (worktree kept)",
                    data=commit_data,
                    anchors=[made.commit],
                    command=command,
                )
            with oprun.closed_if_refused(checkout, op):
                restore_state.restore(checkout, after, head="state", current=before)
            if remove:
                if owned.same_path(os.path.commonpath([found.path, os.getcwd()]), found.path):
                    os.chdir(info.main_root)
                _stop_watcher(owned.admin_dir_of(found.path))
                rm_undo.remove_steps(
                    checkout,
                    info.main_root,
                    found.id,
                    found.path,
                    found.branch,
                    found.head or "",
                    found.record,
                    keep_branch=keep_branch,
                )
            oplog.complete(checkout, op)
    committing.post_commit(checkout, made)
    result = dict(applied)
    result.update(
        commit=made.commit,
        committed=paths,
        left_out=made.left_out,
        message=made.message,
        hooks={"output": made.output, "skipped": made.skipped},
        apply_op=applied.get("op"),
        removed=remove,
        branch=found.branch,
        branch_kept=keep_branch or not remove,
        op=op.seq,
    )
    return result


# -- the op-log hooks (undo.py calls them for ops whose module is this one) ---------------------


def check_undo(checkout: Checkout, op: oplog.Op) -> None:
    from pylon.workspace.ops.restore_plan import blocked_error, plan
    from pylon.workspace.ops.undo import _branch_check
    from pylon.workspace.repo import locate
    from pylon.workspace.state import capture

    rm_undo.check_undo(checkout, op)
    _branch_check(op)
    for step in op.steps:
        co = locate(step.root)
        todo = plan(co, step.before, step.paths, current=capture(co))
        if todo.blocked:
            raise blocked_error(todo.blocked)


def undo_op(checkout: Checkout, op: oplog.Op) -> None:
    """The worktree back first (it holds the work), then the checkout as it was before."""
    rm_undo.undo_op(checkout, op)
    runsteps.run_steps(op.steps, forward=False)


def reverse_undo_op(checkout: Checkout, op: oplog.Op) -> None:
    """An undo killed half-way, reversed: the checkout is back to the state the undo replaced
    (undo.py did that); the worktree it had begun to make again goes as the finish removed it."""
    rm_undo.reverse_undo_op(checkout, op)


def finish_op(checkout: Checkout, op: oplog.Op) -> None:
    """Complete an interrupted finish: the checkout to its state after, then the removal."""
    runsteps.run_steps(op.steps, forward=True)
    rm_undo.finish_op(checkout, op)
