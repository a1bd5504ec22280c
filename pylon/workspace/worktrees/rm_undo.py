"""The `rm` kind of the op log: what `ws rm --force` records, how undo brings the worktree back.

The intent (written after the trash snapshot, before anything is removed) holds the worktree's
captured state, its branch tip, its baseline, its registry record (token included) and the refs
scoped to it. Undo then depends on how far the removal got:

- the worktree is still whole (killed before `git worktree remove` began): restore() it to the
  recorded state in place, which also puts back any file a removal already deleted;
- its folder lost only its `.git` file while git's admin folder is intact: that file is written
  back and the same restore runs;
- otherwise the remnants of the removal (the folder, an admin folder pointing at it) are cleared
  and the worktree is made again as `ws new` makes it: the record first (state `creating`, so a
  killed undo leaves a leftover `prune` and the next undo both know), the branch at its tip,
  `git worktree add --lock` with the same reason and token, restore() to the recorded state (the
  files, untracked ones included, the staged split, HEAD), the refs, the record `ready`.

The recorded state is exact (exact.py): the permission bits and empty folders of the worktree,
and the ignored files that `ws new` copied into it (`.worktreeinclude` and the `--copy` globs,
matched again at removal), added to its tree byte for byte. Other ignored files are not part of
any state and do not come back. A watcher (`ws new --watch`) that ran is started again. A
worktree holding what no state can keep (a nested repository with its own objects, a FIFO, a
socket or a device) is refused before anything is written (`cannot-keep`).
"""

from __future__ import annotations

import os
import shutil

from pylon.workspace import git
from pylon.workspace.commits import update_refs
from pylon.workspace.ops import oplog
from pylon.workspace.refs import ROOT, session_baseline_ref
from pylon.workspace.repo import Checkout, locate
from pylon.workspace.worktrees import owned

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypedDict

    from pylon.workspace.sides import Side

    class RmData(TypedDict):
        """The data of an `rm` op (log_intent writes it; undo and finish read it back)."""

        id: str
        path: str
        branch: str
        tip: str
        baseline: str
        record: dict[str, object]
        state: str | None
        keep_branch: bool
        scoped: dict[str, str]
        trash: str | None
        watch: bool
        checkout: str  # where it ran (ws log lists it there)

    from pylon.workspace.exact import Scan

MODULE = "pylon.workspace.worktrees.rm_undo"


def check_keepable(path: str) -> Scan:
    """Walk the worktree once; refuse (`cannot-keep`) when it holds what no snapshot can keep."""
    from pylon.workspace.exact import scan

    found = scan(path)
    lost = [f"{p}/.git (a repository of its own)" for p in found.nested] + found.special
    if lost:
        from pylon.errors import PylonError

        shown = ", ".join(lost[:10]) + (f" (and {len(lost) - 10} more)" if len(lost) > 10 else "")
        raise PylonError(
            "cannot-keep",
            f"{path} holds what pylon cannot keep for `ws undo`: {shown}. Nothing was changed.",
            "Move those out of the worktree (or delete them if they are disposable), then run the same command again.",
            details={"path": path, "paths": lost[:20], "paths_total": len(lost)},
        )
    return found


def _exact_state(side: Side, record: dict[str, object], found: Scan) -> str:
    """The worktree's state with its copied ignored files, permission bits and empty folders."""
    from pylon.workspace.commits import tree_with_files
    from pylon.workspace.exact import encode, meta_for
    from pylon.workspace.ops.restore_state import make_state
    from pylon.workspace.worktrees.copying import include_patterns, select

    st, co = side.state, side.checkout
    copy = record.get("copy")
    patterns = include_patterns(
        str(record.get("source") or co.root), [str(c) for c in copy] if isinstance(copy, list) else []
    )
    copied = select(co.root, patterns)
    tree = tree_with_files(co, st.worktree, copied) if copied else st.worktree
    meta = encode(meta_for(co.root, tree, found))
    return make_state(
        co,
        worktree=tree,
        index_tree=st.index_tree,
        head=st.head,
        branch=st.branch,
        label=f"rm {record.get('id')}",
        notes=st.notes,
        meta_raw=meta,
    )


def scoped_refs(checkout: Checkout, record: dict[str, object]) -> list[str]:
    """refs/pylon/worktrees/<admin>/... of a worktree (git reuses admin names)."""
    admin = record.get("admin")
    if not isinstance(admin, str) or not admin:
        return []
    out = git.run(["for-each-ref", "--format=%(refname)", f"{ROOT}worktrees/{admin}/"], cwd=checkout.root)
    return out.decode().split()


def _ref(checkout: Checkout, ref: str) -> str:
    return git.run(["rev-parse", "-q", "--verify", ref], cwd=checkout.root, ok=(0, 1)).decode().strip()


def log_intent(
    checkout: Checkout,
    found: owned.Owned,
    side: Side,
    *,
    keep_branch: bool,
    scoped: list[str],
    trash: str | None,
    how: str = " --force",
    scanned: Scan | None = None,
) -> oplog.Op:
    from pylon.workspace.worktrees import watchers

    scoped_oids = {ref: _ref(checkout, ref) for ref in scoped}
    state = _exact_state(side, found.record, scanned if scanned is not None else check_keepable(found.path))
    admin = owned.admin_dir_of(found.path)
    data: RmData = {
        "id": found.id,
        "path": found.path,
        "branch": found.branch,
        "tip": found.head or "",
        "baseline": found.baseline,
        "record": found.record,
        "state": state,
        "keep_branch": keep_branch,
        "scoped": scoped_oids,
        "trash": trash,
        "watch": bool(admin and watchers.holder(admin)),
        "checkout": checkout.root,
    }
    anchors = [state, str(side.state.commit), found.head or "", found.baseline, *scoped_oids.values()]
    return oplog.begin(
        checkout,
        "rm",
        [],
        title=f"rm {found.id}{how}",
        data=data,
        anchors=anchors,
        module=MODULE,
        command=f"pylon ws rm {found.id}{how}",
    )


def remove_steps(
    checkout: Checkout,
    main: str,
    wid: str,
    path: str,
    branch: str,
    tip: str,
    record: dict[str, object],
    *,
    keep_branch: bool,
) -> None:
    """Remove the worktree, its branch, its refs and its record; each step may already be done
    (`ws undo --finish` runs them again after a removal that was killed)."""
    # git removes by path: only when the folder is proven ours at this moment (a sibling worktree
    # moved onto the path, or another repository put there, is left alone)
    if owned.why_not_ours(checkout, record, path) is None:
        code, _, err = git.run_full(["worktree", "remove", "--force", "--force", path], cwd=main)
        if code != 0:
            raise git.failure(["worktree", "remove"], code, err, "git worktree remove")
    _clear_remnants(checkout, path, record)
    deletes = [session_baseline_ref(wid)] + scoped_refs(checkout, record)
    if not keep_branch and tip and _ref(checkout, "refs/heads/" + branch) == tip:
        git.run(["update-ref", "-d", "refs/heads/" + branch, tip], cwd=main)
    existing = git.run(["for-each-ref", "--format=%(refname)", *deletes], cwd=main).decode().split()
    if existing:
        update_refs(checkout, [], deletes=existing)
    owned.delete_record(checkout, wid)


def _admin_ours(admin: str, reason: str, path: str) -> bool:
    """An admin folder naming our path is ours when its lock holds our reason; a removal deletes
    the lock file too (None then), which counts only while no folder's `.git` at the path names
    that admin folder (else it is a live worktree someone moved there)."""
    lock = _lock_text(admin)
    if lock == reason:
        return True
    live = owned.admin_dir_of(path)
    return lock in ("initializing", None) and (live is None or not owned.same_path(live, admin))


def _clear_remnants(checkout: Checkout, path: str, record: dict[str, object]) -> None:
    """What a killed removal (or a killed re-creation) left: admin folders naming our path, the folder."""
    reason = owned.lock_reason(str(record["id"]), str(record["token"]))
    if os.path.lexists(path) and owned.removable(checkout, record, path):  # else not ours: left alone
        shutil.rmtree(path, ignore_errors=True)
    for admin in owned.admin_dirs_for(checkout, path):
        if _admin_ours(admin, reason, path):
            shutil.rmtree(admin, ignore_errors=True)


def check_undo(checkout: Checkout, op: oplog.Op) -> None:
    from pylon.errors import PylonError

    d = op.data
    branch, tip = str(d["branch"]), str(d["tip"])
    now = _ref(checkout, "refs/heads/" + branch)
    if now and tip and now != tip:
        raise PylonError(
            "branch-moved",
            f"Branch {branch} now points at {now[:12]}, not at {tip[:12]} where `{op.title}` left it; pylon will not "
            "move it back over that. Nothing was changed.",
            f"Keep it under another name (`git branch -m {branch} keep-{d['id']}`), then run `pylon ws undo` again.",
            details={"branch": branch, "now": now, "expected": tip},
        )
    path = str(d["path"])
    found = d.get("record")
    record: dict[str, object] = found if isinstance(found, dict) else {}
    if op.status != "done" and os.path.lexists(path) and not owned.removable(checkout, record, path):
        raise PylonError(
            "path-taken",
            f"{path} holds something pylon did not make ({owned.why_not_ours(checkout, record, path)}), so "
            f"pylon cannot bring worktree {d['id']} back there; it was left alone. Nothing was changed.",
            f"Move it away (mv {owned.quoted(path)} <elsewhere>), then run `pylon ws undo` again; or complete the "
            "removal without touching it: `pylon ws undo --finish`.",
        )
    if op.status == "done" and os.path.lexists(path):
        raise PylonError(
            "path-taken",
            f"{path} exists again, so pylon cannot bring worktree {d['id']} back there.",
            "Move that folder away, then run `pylon ws undo` again.",
        )


def _intact(checkout: Checkout, wid: str, path: str, record: dict[str, object]) -> bool:
    """Is the worktree still there (perhaps with files a removal already deleted)?"""
    admins = [
        a
        for a in owned.admin_dirs_for(checkout, path)
        if _admin_ours(a, owned.lock_reason(wid, str(record["token"])), path)
        and os.path.exists(os.path.join(a, "HEAD"))
    ]
    if not os.path.isdir(path) or len(admins) != 1 or not os.path.exists(os.path.join(admins[0], "index")):
        return False
    if os.path.lexists(os.path.join(path, ".git")) and owned.why_not_ours(checkout, record, path) is not None:
        return False  # another worktree or repository sits at the path
    if not os.path.exists(os.path.join(path, ".git")):
        from pylon.atomic import atomic_write

        atomic_write(os.path.join(path, ".git"), f"gitdir: {admins[0]}\n".encode())
    return owned.read_record(checkout, wid) is not None


def undo_op(checkout: Checkout, op: oplog.Op) -> None:
    from typing import cast

    from pylon.workspace.ops.restore_state import restore

    d = cast("RmData", op.data)  # an rm op: log_intent wrote its data
    wid, path, branch, tip = str(d["id"]), str(d["path"]), str(d["branch"]), str(d["tip"])
    record = dict(d["record"])
    reason = owned.lock_reason(wid, str(record["token"]))
    with owned.owned_lock(checkout):
        if not _intact(checkout, wid, path, record):
            _clear_remnants(checkout, path, record)
            if os.path.lexists(path):
                from pylon.errors import PylonError

                raise PylonError(
                    "path-taken",
                    f"{path} holds something pylon did not make ({owned.why_not_ours(checkout, record, path)}), so "
                    f"pylon cannot bring worktree {wid} back there; it was left alone.",
                    f"Move it away (mv {owned.quoted(path)} <elsewhere>), then run `pylon ws undo` again.",
                )
            owned.write_record(checkout, dict(record, state="creating"))
            if not _ref(checkout, "refs/heads/" + branch):
                git.run(["update-ref", "refs/heads/" + branch, tip, "0" * 40], cwd=checkout.root)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            code, _, err = git.run_full(
                ["worktree", "add", "--quiet", "--lock", "--reason", reason, path, branch], cwd=checkout.root
            )
            if code != 0:
                raise git.failure(["worktree", "add"], code, err, "git worktree add")
        restore(locate(path), str(d["state"]))
        admin_dir = owned.admin_dir_of(path)
        if admin_dir and _lock_text(admin_dir) != reason:  # a re-creation killed inside `worktree add`
            git.run_full(["worktree", "unlock", path], cwd=checkout.root)
            git.run(["worktree", "lock", "--reason", reason, path], cwd=checkout.root)
        admin = os.path.basename(admin_dir) if admin_dir else None
        updates = [(session_baseline_ref(wid), str(d["baseline"]))]
        old_admin = record.get("admin")
        for ref, oid in dict(d.get("scoped") or {}).items():
            if oid and admin and old_admin:
                updates.append((ref.replace(f"{ROOT}worktrees/{old_admin}/", f"{ROOT}worktrees/{admin}/", 1), oid))
        update_refs(checkout, updates)
        owned.write_record(checkout, dict(record, state="ready", admin=admin))
    if d.get("watch") and admin_dir:  # after the lock, as `ws new --watch` starts it
        from pylon.workspace.worktrees import watchers

        if watchers.holder(admin_dir) is None:
            watchers.start(path, admin_dir)


def _lock_text(admin: str) -> str | None:
    try:
        with open(os.path.join(admin, "locked"), encoding="utf-8") as fh:
            return fh.read().strip()
    except (OSError, UnicodeDecodeError):
        return None


def reverse_undo_op(checkout: Checkout, op: oplog.Op) -> None:
    """An undo killed while it made the worktree again, reversed (`ws undo --finish`): what it made so
    far is captured into the op's history (never lost), then removed again as the op removed it."""
    from typing import cast

    d = cast("RmData", op.data)
    path = str(d["path"])
    if _intact(checkout, str(d["id"]), path, dict(d["record"])):
        from pylon.workspace.state import capture

        made = capture(locate(path), label=f"undo of op {op.seq}, reversed")
        if made.commit:
            oplog.set_status(
                checkout, op, op.status, history=list(dict.fromkeys([*(op.record.get("history") or []), made.commit]))
            )
    finish_op(checkout, op)


def finish_op(checkout: Checkout, op: oplog.Op) -> None:
    from typing import cast

    d = cast("RmData", op.data)  # an rm op: log_intent wrote its data
    record = dict(d["record"])
    with owned.owned_lock(checkout):
        main = owned.survey(checkout).main_root
        remove_steps(
            checkout,
            main,
            str(d["id"]),
            str(d["path"]),
            str(d["branch"]),
            str(d["tip"]),
            record,
            keep_branch=bool(d.get("keep_branch")),
        )
