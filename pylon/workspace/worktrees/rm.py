"""`pylon ws rm` and `pylon ws prune`: remove owned worktrees and owned leftovers, nothing else.

`rm` refuses while the worktree holds work that exists nowhere else: uncommitted changes
(tracked or untracked, not ignored) or commits reachable from its branch and from no other branch
(the pylon baseline does not count: it is the person's state, kept under refs/pylon/sessions/).
`rm --force` first snapshots everything under `refs/pylon/trash/<id>-<stamp>/` (the captured state,
the branch tip, the baseline) and returns the git commands that bring it back.
"""

from __future__ import annotations

import os
import shutil

from pylon.workspace import git
from pylon.workspace.commits import update_refs
from pylon.workspace.refs import ROOT, session_baseline_ref
from pylon.workspace.repo import Checkout
from pylon.workspace.sides import Side, changed_since, dirty, read_side
from pylon.workspace.worktrees import owned, rm_undo
from pylon.workspace.worktrees.rm_undo import scoped_refs as _scoped_refs

SHOWN = 20


def unique_commits(checkout: Checkout, branch: str, baseline: str) -> int:
    """Commits on `branch` that no other branch (local or remote) and not the baseline holds."""
    out = git.run(
        # --exclude before --branches takes the name without refs/heads/ (git rev-list's rule)
        [
            "rev-list",
            "--count",
            "refs/heads/" + branch,
            "--not",
            baseline,
            "--exclude=" + branch,
            "--branches",
            "--remotes",
        ],
        cwd=checkout.root,
    )
    return int(out.decode().strip() or 0)


def _refuse(wid: str, uncommitted: list[str], commits: int, commit_paths: list[str]) -> Exception:
    from pylon.errors import PylonError

    listed = uncommitted + [p for p in commit_paths if p not in uncommitted]
    shown = listed[:SHOWN]
    parts = []
    if uncommitted:
        parts.append(f"{len(uncommitted)} uncommitted path{'s' if len(uncommitted) != 1 else ''}")
    if commits:
        parts.append(f"{commits} commit{'s' if commits != 1 else ''} on no other branch")
    more = f" (and {len(listed) - SHOWN} more)" if len(listed) > SHOWN else ""
    return PylonError(
        "worktree-has-work",
        f"Worktree {wid} has {' and '.join(parts)}: " + ", ".join(shown) + more + ".",
        f"Commit or merge that work first, or snapshot it and remove anyway: pylon ws rm {wid} --force",
        details={
            "uncommitted": uncommitted[:SHOWN],
            "uncommitted_total": len(uncommitted),
            "commits": commits,
            "paths": shown,
            "paths_total": len(listed),
        },
    )


def rm(
    checkout: Checkout, worktree_id: str, *, force: bool = False, keep_branch: bool = False, keep: bool = False
) -> dict[str, object]:
    """`keep`: record the removal in the op log even when the worktree holds nothing (so `ws undo`
    brings it back): what an agent client's WorktreeRemove gets (clients.py)."""
    owned.check_id(worktree_id)
    from pylon.workspace.ops import oplog
    from pylon.workspace.worktrees.move import refuse_while_moved

    if not force:
        with oplog.op_lock(checkout):  # a session whose work was applied is removed as an op (undoable)
            refuse_while_moved(checkout, worktree_id)  # under the lock: the log is read once
            if keep:
                oplog.check_clear(checkout)
            return _rm(checkout, worktree_id, force=False, keep_branch=keep_branch, keep=keep)
    with oplog.op_lock(checkout):  # `rm --force` is an op of the log: `ws undo` brings the worktree back
        refuse_while_moved(checkout, worktree_id)
        oplog.check_clear(checkout)
        return _rm(checkout, worktree_id, force=True, keep_branch=keep_branch)


def _rm(
    checkout: Checkout, worktree_id: str, *, force: bool, keep_branch: bool, keep: bool = False
) -> dict[str, object]:
    with owned.owned_lock(checkout):
        info = owned.survey(checkout)
        found = info.get(worktree_id)
        main = info.main_root  # git runs from the main checkout: the current folder may be the one removed
        side = read_side(found.path)
        tracked, untracked = dirty(side)
        uncommitted = sorted(set(tracked) | set(untracked))
        tip = found.head or ""
        commits = unique_commits(checkout, found.branch, found.baseline) if tip else 0
        applied = None
        if (uncommitted or commits) and not force:
            from pylon.workspace.worktrees.applied import holding

            applied = holding(checkout, found.id, found.baseline, side.state.worktree)
            if applied is None:
                commit_paths = changed_since(checkout, found.baseline, tip) if commits else []
                raise _refuse(worktree_id, uncommitted, commits, commit_paths)
            from pylon.workspace.ops import oplog

            oplog.check_clear(checkout)
        trash = restore = None
        op = None
        if force or keep or applied is not None:
            scanned = rm_undo.check_keepable(found.path)  # refused before anything is written
            if uncommitted or commits:
                trash, restore = _snapshot(checkout, found, side)
            op = rm_undo.log_intent(
                checkout,
                found,
                side,
                keep_branch=keep_branch,
                scoped=_scoped_refs(checkout, found.record),
                trash=trash,
                how=" --force" if force else "",
                scanned=scanned,
            )
        if owned.same_path(os.path.commonpath([found.path, os.getcwd()]), found.path):
            os.chdir(main)
        _stop_watcher(owned.admin_dir_of(found.path))
        rm_undo.remove_steps(
            checkout, main, found.id, found.path, found.branch, tip, found.record, keep_branch=keep_branch
        )
        if op is not None:
            from pylon.workspace.ops import oplog

            oplog.complete(checkout, op)
    return {
        "id": worktree_id,
        "path": found.path,
        "branch": found.branch,
        "branch_kept": keep_branch,
        "head": tip,
        "forced": bool(trash) and force,
        "trash": trash,
        "restore": restore,
        "uncommitted": len(uncommitted),
        "commits": commits,
        "op": op.seq if op else None,
        "held": _held(applied, bool(tip) and not commits and _has_commits(checkout, found.baseline, tip)),
    }


def _has_commits(checkout: Checkout, baseline: str, tip: str) -> bool:
    out = git.run(["rev-list", "--count", tip, "--not", baseline], cwd=checkout.root)
    return int(out.decode().strip() or 0) > 0


def _held(applied: int | None, merged: bool) -> dict[str, object] | None:
    """Why a session with work could go without --force: its work was applied (op), or merged."""
    if applied is not None:
        return {"kind": "applied", "op": applied}
    return {"kind": "merged"} if merged else None


def _snapshot(checkout: Checkout, found: owned.Owned, side: Side) -> tuple[str, list[str]]:
    import time
    from typing import cast

    state = side.state
    prefix = f"{ROOT}trash/{found.id}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
    commit = cast(str, state.commit)  # read_side's state is anchored (a capture, or the watcher's record of one)
    updates = [(prefix + "/state", commit), (prefix + "/baseline", found.baseline)]
    if found.head:
        updates.append((prefix + "/branch", found.head))
    update_refs(checkout, updates)
    quoted = _q(found.path)
    index = state.index_tree or side.head_tree
    restore = [
        f"git branch {found.branch} {prefix}/branch",
        f"git worktree add {quoted} {found.branch}",
        f"git -C {quoted} read-tree -u --reset {prefix}/state",
        f"git -C {quoted} read-tree {index}",
    ]
    return prefix, restore


def _q(path: str) -> str:
    import shlex

    return shlex.quote(path)


# -- prune -------------------------------------------------------------------------------------


def prune(checkout: Checkout, *, dry_run: bool = False) -> dict[str, object]:
    """Owned leftovers: half-made `new`s, records git lost, admin entries whose folder is gone,
    branches of removed worktrees. Foreign worktrees and folders are never looked into; those
    bound to a record of ours (moved, relocked, another folder at the path) are reported with
    the command that resolves them."""
    actions: list[dict[str, object]] = []
    with owned.owned_lock(checkout):
        if not dry_run:  # a `new` killed while it wrote its record leaves the temp file beside it
            from pylon.workspace.leftovers import sweep

            sweep(checkout)
        info = owned.survey(checkout)
        leftovers = [(wid, rec, "interrupted-new") for wid, rec in info.pending.items()]
        leftovers += [(wid, rec, "worktree-gone") for wid, rec in info.stale.items()]
        leftovers += [(o.id, o.record, "folder-gone") for o in info.owned.values() if not o.present]
        for wid, record, kind in leftovers:
            # a branch another live worktree has checked out is never deleted (not the one removed here)
            path = str(record["path"])
            checked_out = {
                str(e.branch)
                for e in info.entries[1:]
                if e.branch and not e.prunable and not owned.same_path(e.path, path)
            }
            actions.append(_prune_one(checkout, wid, record, kind, dry_run, checked_out))
    unresolved = [
        {k: item.get(k, "") for k in ("id", "path", "why", "resolve")}
        for item in info.foreign
        if item.get("id") or item.get("resolve")
    ]
    return {"dry_run": dry_run, "actions": actions, "foreign": len(info.foreign), "unresolved": unresolved}


def _prune_one(
    checkout: Checkout, wid: str, record: dict[str, object], kind: str, dry_run: bool, checked_out: set[str]
) -> dict[str, object]:
    path, branch = str(record["path"]), str(record["branch"])
    reason = owned.lock_reason(wid, str(record["token"]))
    did: list[str] = []
    kept: list[str] = []
    # `git worktree add --lock --reason R` writes R into the admin folder's lock from the start: an
    # admin folder naming our path but locked otherwise (a plain `git worktree add` made there
    # after a killed `new`: "initializing" or no lock) is not ours
    admins = [a for a in owned.admin_dirs_for(checkout, path) if owned.ours_admin(checkout, a, path, reason)]
    for admin in admins:
        did.append(f"remove git admin folder {admin}")
    remove_folder = empty_folder = False
    if os.path.lexists(path):
        if owned.removable(checkout, record, path):
            remove_folder = True
            did.append(f"remove folder {path}")
        elif kind == "interrupted-new" and os.path.isdir(path) and not os.path.islink(path) and not os.listdir(path):
            empty_folder = True
            did.append(f"remove empty folder {path}")
        else:
            why = owned.why_not_ours(checkout, record, path) or "it is not proven pylon's"
            kept.append(f"folder {path} ({why}; it may hold work: move it away by hand, then `pylon ws prune`)")
    tip = (
        git.run(["rev-parse", "-q", "--verify", "refs/heads/" + branch], cwd=checkout.root, ok=(0, 1)).decode().strip()
    )
    baseline = str(record.get("baseline") or "")
    delete_branch = False
    if tip:
        extra = unique_commits(checkout, branch, baseline) if baseline else 1
        if "refs/heads/" + branch in checked_out:
            kept.append(f"branch {branch} (a git worktree has it checked out: `git worktree list`)")
        elif extra and kind != "interrupted-new":
            kept.append(f"branch {branch} ({extra} commit{'s' if extra != 1 else ''} on no other branch)")
        elif kind == "interrupted-new" and tip != baseline:
            kept.append(f"branch {branch} (it moved past its baseline)")
        else:
            delete_branch = True
            did.append(f"delete branch {branch}")
    did.append(f"forget registry record {wid}")
    if not dry_run:
        for admin in admins:
            _stop_watcher(admin)
        if remove_folder and owned.removable(checkout, record, path):  # again, at the moment of removal
            shutil.rmtree(path, ignore_errors=True)
        elif empty_folder:
            try:
                os.rmdir(path)  # fails (and keeps it) if anything appeared in it meanwhile
            except OSError:
                pass
        for admin in admins:
            if owned.ours_admin(checkout, admin, path, reason):
                shutil.rmtree(admin, ignore_errors=True)
        if delete_branch:
            git.run(["update-ref", "-d", "refs/heads/" + branch, tip], cwd=checkout.root)
        deletes = [session_baseline_ref(wid)] + _scoped_refs(checkout, record)
        existing = git.run(["for-each-ref", "--format=%(refname)", *deletes], cwd=checkout.root).decode().split()
        if existing:
            update_refs(checkout, [], deletes=existing)
        owned.delete_record(checkout, wid)
    return {"id": wid, "kind": kind, "done": did, "kept": kept}


def _stop_watcher(admin: str | None) -> None:
    """A `ws watch` still running in a worktree being removed would write into its admin folder."""
    if admin:
        from pylon.workspace.worktrees import watchers

        watchers.stop(admin)
