"""`pylon ws restore NAME [PATH...] [--dry-run]`: a baseline, guard snapshot or op state back, as an op.

NAME is a baseline of this checkout (`refs/pylon/.../baselines/NAME`), `guard-<n>`
(`refs/pylon/guard/<n>`, written by the guard before a destructive command), or a state of the op
log: `op-<n>[:before|:after|:before-undo|:before-redo]` (opstates.py; `pylon ws log` lists them). The
files (tracked and untracked, permission bits, empty folders, symlinks, deletions; for a guard
snapshot also the ignored files it holds) and the staged index come back byte for byte; with PATHs
only those paths. HEAD stays where it is: when the snapshot's HEAD differs, the result says so and
names `git reset --soft` for it. The one exception is a whole guard snapshot whose branch was only
moved back (`git reset --hard HEAD~1`): HEAD and the branch return to the snapshot's commit, since
no commit is lost that way. The op log records the state replaced, so `ws undo` reverses it.
"""

from __future__ import annotations

from pylon.workspace import git, immutable, refs
from pylon.workspace.ops import oplog, oprun
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.commits import State
    from pylon.workspace.ops.restore_state import Restored


def resolve_name(checkout: Checkout, name: str, op: oplog.Op | None = None) -> tuple[str, str]:
    """(ref, state commit) for NAME; `unknown-snapshot` when nothing is there. `op`: the op of the
    log `op-<n>` names, when the caller read it already."""
    from pylon.errors import NotFoundError

    if name.startswith("op-"):
        from pylon.workspace.ops.opstates import resolve_op

        return resolve_op(checkout, name, op)
    if name.startswith("guard-") and name[len("guard-") :].isdigit():
        from pylon.workspace.ops.guard_snapshot import guard_prefix

        ref = f"{guard_prefix(checkout)}{name[len('guard-') :]}"
    else:
        ref = refs.baseline_ref(checkout, refs.check_name(name))
    oid = git.run(["rev-parse", "-q", "--verify", ref + "^{commit}"], cwd=checkout.root, ok=(0, 1)).decode().strip()
    if not oid:
        raise NotFoundError(
            "unknown-snapshot",
            f"No baseline or guard snapshot of this checkout is named {name!r} (no {ref}).",
            "See every kept state and the name that restores it with `pylon ws log`.",
        )
    if _is_guard(ref):
        _refuse_other_checkout(checkout, name, oid)
    return ref, oid


def _is_guard(ref: str) -> bool:
    """refs/pylon/[worktrees/<admin>/]guard/<n>."""
    folder, _, number = ref.rpartition("/")
    return ref.startswith(refs.ROOT) and folder.endswith("/guard") and number.isdigit()


def _refuse_other_checkout(checkout: Checkout, name: str, oid: str) -> None:
    """A snapshot records the checkout it was taken in: restoring it in another one would put that
    checkout's files over this one's work (issue 28)."""
    import os

    from pylon.workspace.ops.guard_snapshot import recorded_checkout

    message = immutable.commit(checkout, oid).decode("utf-8", "surrogateescape")
    taken = recorded_checkout(message)
    if taken is None or os.path.realpath(taken) == os.path.realpath(checkout.root):
        return
    from pylon.errors import PylonError

    raise PylonError(
        "other-checkout",
        f"{name} was taken in another checkout ({taken}), not in this one; restoring "
        "it here would put that checkout's files over this one's. Nothing was changed.",
        f"Restore it where it was taken: pylon -C {_quote(taken)} ws restore {name}",
        details={"checkout": taken},
    )


def _quote(path: str) -> str:
    import shlex

    return shlex.quote(path)


def _shell_op(checkout: Checkout, name: str) -> tuple[oplog.Op | None, str, oplog.Op | None] | None:
    """(the shell op, the side, the op of the log) that `op-<n>[:SIDE]` names: the shell op when it
    is one kept in pylon's store (an op renumbered when it finished is found by its first number
    too), else the log's op of that number (None when there is none). None for any other name."""
    if not name.startswith("op-"):
        return None
    from pylon.workspace.keep.ledger import for_checkout
    from pylon.workspace.ops.opstates import parse

    seq, side = parse(name)
    ops = [oplog.Op(n, "", record, home=path) for n, path, record in for_checkout(checkout)]
    found = next((op for op in ops if op.seq == seq), None)
    logged = oplog.get(checkout, seq) if found is None else None  # settle() writes no op of the log
    if found is None and logged is None:
        # a command's op whose capture has not been written yet (it waits for the next comer): now
        from pylon.workspace.keep.chain import settle

        settle(checkout, outside=False)
        ops = [oplog.Op(n, "", record, home=path) for n, path, record in for_checkout(checkout)]
        found = next((op for op in ops if op.seq == seq), None)
    if found is None and logged is None:  # a number the log still uses is that op's
        found = next((op for op in ops if op.data.get("was") == seq), None)
    return found, side, logged


def _head_mode(checkout: Checkout, ref: str, target: State, current: State, rel: list[str] | None) -> str:
    """A whole guard snapshot also puts HEAD and its branch back (`git reset --hard REV` moved them)
    when that loses no commit: same branch, and its tip now is an ancestor of the snapshot's."""
    if rel is not None or not _is_guard(ref) or not target.head:
        return "keep"
    if target.head == current.head and target.branch == current.branch:
        return "keep"
    if target.branch != current.branch or (target.branch is None and current.head is not None):
        return "keep"
    if current.head is not None:
        code, _, _ = git.run_full(["merge-base", "--is-ancestor", current.head, target.head], cwd=checkout.root)
        if code != 0:
            return "keep"
    return "state"


def _kept_refs(
    checkout: Checkout, ref: str, target: str, rel: list[str] | None, dry_run: bool
) -> tuple[dict[str, list[str]], bool] | None:
    """A guard snapshot names again the refs its command deleted (guard_refs.py), with or without
    PATHs (the hook's note names the paths; the refs are part of what the command destroyed): (what
    was put back, whether the command touched refs only); None when there is nothing of that kind."""
    if not _is_guard(ref):
        return None
    from pylon.workspace.ops.guard_refs import put_back, recorded

    message = immutable.commit(checkout, target).decode("utf-8", "surrogateescape")
    kept, stash, only = recorded(message.partition("\n\n")[2])
    if not kept and not stash:
        return None
    return put_back(checkout, message.partition("\n\n")[2], dry_run=dry_run), only


def restore_named(checkout: Checkout, name: str, paths: list[str] | None = None, *, dry_run: bool = False) -> Restored:
    from pylon.workspace.ops.restore_plan import blocked_error, plan
    from pylon.workspace.ops.restore_state import holding
    from pylon.workspace.repo import refuse_in_progress
    from pylon.workspace.state import capture

    rel = [checkout.to_root_relative(p) for p in paths] if paths else None
    if rel is not None and "" in rel:
        rel = None  # the checkout root itself: everything
    shell, side, logged = _shell_op(checkout, name) or (None, "", None)
    if shell is not None:  # a state of a shell op: kept in pylon's store (ops/shellop.py)
        from pylon.workspace.ops.shellop import restore_kept

        with oplog.op_lock(checkout):
            return restore_kept(checkout, shell, name, side, rel, dry_run)
    ref, target = resolve_name(checkout, name, logged)  # the op read once
    refuse_in_progress(checkout, "restore a snapshot")
    kept = _kept_refs(checkout, ref, target, rel, dry_run)
    if kept is not None and kept[1] and rel is None:  # the command touched refs only: no file comes back
        return {
            "name": name,
            "ref": ref,
            "commit": target,
            "dry_run": dry_run,
            "paths": rel,
            "delete": [],
            "write": [],
            "index": 0,
            "blocked": [],
            "kept": [],
            "head": None,
            "head_now": None,
            "head_kept": False,
            "op": None,
            "refs": kept[0],
            "aside": [],
        }
    with oplog.op_lock(checkout):
        oplog.check_clear(checkout)
        current = capture(checkout, label=f"before restore {name}")  # with its bits and folders (exact_quick.py)
        todo = plan(checkout, target, rel, current=current)
        aside: list[str] = []
        if todo.blocked:
            # files outside the current state where the kept state has something (an ignored file
            # sits there now; a guard snapshot's own ignored files back again): kept aside in the
            # state this restore replaces, so `ws undo` and `op-N:before` give them back
            aside = list(todo.blocked)
            current = holding(checkout, current, todo.blocked)
            todo = plan(checkout, target, rel, current=current)
        result: Restored = {
            "name": name,
            "ref": ref,
            "commit": target,
            "dry_run": dry_run,
            "paths": rel,
            **todo.to_dict(),
            "head": todo.target.head,
            "head_now": current.head,
            "head_kept": todo.target.head != current.head,
            "aside": aside,
        }
        if todo.blocked:
            raise blocked_error(todo.blocked)
        if kept is not None:
            result["refs"] = kept[0]
        from pylon.workspace.exact import differs

        meta_only = differs(todo.target.meta, current.meta, rel)  # a chmod alone, an empty folder
        if dry_run or not (todo.writes or todo.deletes or todo.index_entries or meta_only):
            result["op"] = None
            return result
        head = _head_mode(checkout, ref, todo.target, current, rel)
        result["head_kept"] = head == "keep" and result["head_kept"]
        step = oplog.Step(checkout.root, str(current.commit), target, head, rel)
        shown = " ".join(["pylon ws restore", name, *(paths or [])])
        op = oplog.begin(
            checkout,
            "restore",
            [step],
            title=f"restore {name}" + (" (paths)" if rel else ""),
            data={"name": name, "ref": ref},
            command=shown,
        )
        oprun.carry_out(checkout, op, currents={checkout.root: current})
        result["op"] = op.seq
    return result
