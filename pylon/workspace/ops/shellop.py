"""Undo and redo of a shell op: the command's own change reversed three-way onto the checkout as it is
now (the rule of every undo: reverse.carry), across everything a kept state holds.

The two states of the op are made whole first: the working tree with the kept ignored files in it,
and one record of permission bits and empty folders for both. Then:

- files, symlinks, bits, empty folders and the staged index: reverse.carry (base: the state after
  the command, ours: now, theirs: the state before it) and restore(); a path changed since the
  command keeps what it holds (merged line by line where both changed it; overlapping lines are
  `undo-conflicts` unless `--markers`);
- refs, HEAD and the stash: refsnap.reverse, ref by ref with compare-and-swap;
- objects the repository lacks (pruned since) are copied into it from the store before the index
  or a ref names them.

Everything runs with pylon's store as git's object folder (what it writes stays there). What could
not be brought back is named one by one: paths the command changed that were over the budget, refs
and stash entries that moved since.
"""

from __future__ import annotations

import os
import time

from pylon.workspace import git
from pylon.workspace.commits import State
from pylon.workspace.keep.kept import Kept
from pylon.workspace.keep.store import KeepCheckout, Store
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.ops.oplog import Op
    from pylon.workspace.ops.restore_state import Restored
    from pylon.workspace.ops.reverse import Outcome


def whole(kc: KeepCheckout, kept: Kept) -> State:
    """The kept state with its ignored files in the tree and their bits and empty folders in the
    record, as a state commit in the store."""
    from pylon.workspace import exact
    from pylon.workspace.commits import read_state
    from pylon.workspace.ops.restore_state import make_state
    from pylon.workspace.ops.reverse import scratch_tree

    state = kept.state
    ign = kept.ignored
    tree = state.worktree
    if ign.get("tree"):
        listing = git.run(["ls-tree", "-r", "-z", "--full-tree", str(ign["tree"])], cwd=kc.root)
        entries = b"".join(line.replace(b" blob ", b" ", 1) + b"\0" for line in listing.split(b"\0") if line)
        tree = scratch_tree(kc, state.worktree, entries=entries)
    meta = state.meta or {"m": {}, "d": []}
    modes = exact.modes_of(meta)
    modes.update(exact.modes_of({"m": ign.get("modes") or {}}))
    kept_dirs = ign.get("dirs")
    dirs = sorted({*exact.dirs_of(meta), *[str(d) for d in (kept_dirs if isinstance(kept_dirs, list) else [])]})
    whole_meta = exact.grouped(modes, dirs, exact.modes_of(meta, "dm"))  # the folders' bits too (0700 stays 0700)
    if "dm" not in meta:
        del whole_meta["dm"]  # a record that says nothing of folders still says nothing
    commit = make_state(
        kc,
        worktree=tree,
        index_tree=state.index_tree,
        head=state.head,
        branch=state.branch,
        label="kept, whole",
        meta_raw=exact.encode(whole_meta),
    )
    return read_state(kc, commit)


def ensure_in_repo(checkout: Checkout, store: Store, oids: list[str], *, only_new: bool = True) -> int:
    """Copy into the repository the objects of `oids` (and what they reach that no ref of it reaches)
    that it lacks; how many objects were copied."""
    wanted = [o for o in dict.fromkeys(oids) if o and len(o) >= 40]
    if not wanted:
        return 0
    with git.objects_in({}):
        out = git.run(
            ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
            cwd=checkout.root,
            input="".join(o + "\n" for o in wanted).encode(),
        )
    missing = [line.split()[0] for line in out.decode().splitlines() if line.endswith(" missing")]
    if not missing:
        return 0
    with store.objects_in(checkout.common_dir):
        # revisions read from stdin stay positive; what the repository's refs reach it has already
        listed = git.run(
            ["rev-list", "--objects", "--stdin", "--not", "--all"],
            cwd=checkout.root,
            input=("\n".join(missing) + "\n").encode(),
        )
        pack = git.run(["pack-objects", "--stdout", "-q"], cwd=checkout.root, input=listed)
    with git.objects_in({}):
        git.run(["unpack-objects", "-q"], cwd=checkout.root, input=pack)
    return len(listed.splitlines())


class Result:
    """What an undo (or redo) of a shell op did, and what it could not do."""

    def __init__(self) -> None:
        self.back: list[str] = []
        self.kept: list[str] = []
        self.merged: list[str] = []
        self.markers: list[str] = []
        self.not_kept: list[list[object]] = []
        self.refs: dict[str, list[str]] = {}
        self.git = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "reverted": self.back,
            "kept": self.kept,
            "merged": self.merged,
            "markers": self.markers,
            "existing": [],
            "not_kept": self.not_kept,
            "refs_changed": self.refs,
            "git": self.git,
        }


def carry_kept(
    checkout: Checkout,
    store: Store,
    frm: Kept,
    to: Kept,
    now: Kept,
    *,
    markers: bool,
    side: str,
    seq: int,
    verb: str,
    title: str = "",
) -> Result:
    """Reverse-apply the change frm -> to onto `now` (see the module docstring)."""
    from pylon.workspace.keep import refsnap
    from pylon.workspace.ops.restore_plan import blocked_error, plan
    from pylon.workspace.ops.restore_state import restore
    from pylon.workspace.ops.reverse import carry, changed_paths, conflict_error

    kc = KeepCheckout(checkout, store)
    done = Result()
    with store.objects_in(checkout.common_dir):
        f, t, n = whole(kc, frm), whole(kc, to), whole(kc, now)
        outcome: Outcome = carry(kc, f, t, n, head="keep", markers=markers, side=side)
        if outcome.conflicts and not markers:
            raise conflict_error(title or f"op {seq}", seq, verb, outcome.conflicts)
        todo = plan(kc, outcome.target, current=n, rules=[f.commit or "", t.commit or ""], made=f.commit)
        if todo.blocked:
            raise blocked_error(todo.blocked)
        target_index = todo.target.index_tree
        if target_index and target_index != n.index_tree:
            ensure_in_repo(checkout, store, [target_index])
        ensure_in_repo(checkout, store, refsnap.commits_named(to.refs))
        restore(kc, outcome.target, head="keep", current=n, rules=[f.commit or "", t.commit or ""], made=f.commit)
        touched = set(changed_paths(kc, f.worktree, t.worktree))
    done.back = sorted(p for p in touched if p not in set(outcome.kept) | set(outcome.merged))
    done.kept = [p for p in outcome.kept if p in touched]
    done.merged, done.markers = outcome.merged, outcome.markers
    done.refs = refsnap.reverse(
        checkout.root, checkout.common_dir, checkout.git_dir, frm.refs, to.refs, now.refs
    ).to_dict()
    done.not_kept = _not_kept(frm, to)
    return done


def _not_kept(frm: Kept, to: Kept) -> list[list[object]]:
    """What was over the budget in the state the change goes back to: it cannot come back."""
    out: list[list[object]] = []
    listed = to.ignored.get("not_kept")
    for entry in listed if isinstance(listed, list) else []:
        if isinstance(entry, list) and entry not in out:
            out.append(entry)
    return out


def undo_shell(checkout: Checkout, op: Op, *, markers: bool = False) -> dict[str, object]:
    """`ws undo` of a shell op (called under the op lock)."""
    from pylon.workspace.keep.chain import Chain, _last, lock
    from pylon.workspace.keep.kept import load, take
    from pylon.workspace.keep.store import for_checkout
    from pylon.workspace.ops import oplog

    store = for_checkout(checkout)
    assert store is not None
    step = op.steps[0]
    was = op.status
    with lock(store, checkout.root):
        chain = Chain(store, checkout.root)
        now = take(checkout, store, last=_last(chain))
        before = load(store, step.before, checkout.common_dir)
        after = load(store, step.after, checkout.common_dir)
        oplog.set_status(checkout, op, "undoing", undo_from={checkout.root: now.commit})
        done = carry_kept(
            checkout,
            store,
            after,
            before,
            now,
            markers=markers,
            side=f"before op {op.seq}",
            seq=op.seq,
            verb="undo",
            title=op.title,
        )
        then = take(checkout, store, last=_last(chain))
        oplog.set_status(
            checkout,
            op,
            "undone",
            undone_at=time.time_ns(),
            undo_to={checkout.root: then.commit},
            undo_said=done.to_dict(),
        )
        chain.move(then)
        chain.save()
    return {
        "op": op.seq,
        "kind": op.kind,
        "title": op.title,
        "action": "undone",
        "status": op.status,
        "was": was,
        "kept": {checkout.root: now.commit},
        "ref": op.ref,
        "later": {checkout.root: done.to_dict()},
        "markers": done.markers,
    }


def redo_shell(checkout: Checkout, op: Op, *, markers: bool = False) -> dict[str, object]:
    """`ws redo` of an undone shell op: its undo's own change reversed (undo_to -> undo_from) onto now."""
    from pylon.workspace.keep.chain import Chain, _last, lock
    from pylon.workspace.keep.kept import load, take
    from pylon.workspace.keep.store import for_checkout
    from pylon.workspace.ops import oplog

    store = for_checkout(checkout)
    assert store is not None
    frm_commit = (op.record.get("undo_to") or {}).get(checkout.root)
    to_commit = (op.record.get("undo_from") or {}).get(checkout.root)
    step = op.steps[0]
    with lock(store, checkout.root):
        chain = Chain(store, checkout.root)
        now = take(checkout, store, last=_last(chain))
        frm = load(store, str(frm_commit or step.before), checkout.common_dir)
        to = load(store, str(to_commit or step.after), checkout.common_dir)
        oplog.set_status(checkout, op, "redoing", redo_from={checkout.root: now.commit})
        done = carry_kept(
            checkout, store, frm, to, now, markers=markers, side=f"op {op.seq}", seq=op.seq, verb="redo", title=op.title
        )
        then = take(checkout, store, last=_last(chain))
        oplog.set_status(checkout, op, "done", redone_at=time.time_ns(), redo_to={checkout.root: then.commit})
        chain.move(then)
        chain.save()
    return {
        "op": op.seq,
        "kind": op.kind,
        "title": op.title,
        "action": "redone",
        "status": op.status,
        "was": "undone",
        "kept": {},
        "ref": op.ref,
        "later": {checkout.root: done.to_dict()},
        "markers": done.markers,
    }


def exists(path: str) -> bool:
    return os.path.lexists(path)


def state_of(op: Op, side: str, root: str) -> str | None:
    """The kept state `op-<n>:SIDE` names for the checkout at `root`."""
    step = op.steps[0]
    if side == "before":
        return step.before
    if side == "after":
        return step.after
    key = {"before-undo": "undo_from", "before-redo": "redo_from"}.get(side, "")
    found = (op.record.get(key) or {}).get(root)
    return str(found) if found else None


def restore_kept(checkout: Checkout, op: Op, name: str, side: str, rel: list[str] | None, dry_run: bool) -> Restored:
    """`ws restore op-<n>[:SIDE] [PATH...]` of a shell op: that kept state's files (ignored ones it
    kept included), bits, empty folders and staged entries, for PATHs or the whole checkout; HEAD and
    refs stay (`ws undo` reverses those). Recorded as an op of its own, which `ws undo` reverses."""
    from pylon.errors import NotFoundError
    from pylon.workspace.keep.chain import Chain, _last, lock
    from pylon.workspace.keep.kept import load, take
    from pylon.workspace.keep.records import record
    from pylon.workspace.keep.store import for_checkout
    from pylon.workspace.ops.restore_plan import blocked_error, plan
    from pylon.workspace.ops.restore_state import restore

    commit = state_of(op, side, checkout.root)
    store = for_checkout(checkout)
    if commit is None or store is None:
        raise NotFoundError(
            "unknown-snapshot",
            f"No kept state is named {name!r}: op {op.seq} has no {side} state here.",
            "See the names with `pylon ws log`.",
        )
    kc = KeepCheckout(checkout, store)
    with lock(store, checkout.root):
        chain = Chain(store, checkout.root)
        now = take(checkout, store, last=_last(chain))
        with store.objects_in(checkout.common_dir):
            target, current = whole(kc, load(store, commit, checkout.common_dir)), whole(kc, now)
            todo = plan(kc, str(target.commit), rel, current=current)
            result: Restored = {
                "name": name,
                "ref": op.ref,
                "commit": commit,
                "dry_run": dry_run,
                "paths": rel,
                **todo.to_dict(),
                "head": target.head,
                "head_now": current.head,
                "head_kept": target.head != current.head,
                "op": None,
            }
            if todo.blocked:
                raise blocked_error(todo.blocked)
            if dry_run or not (todo.writes or todo.deletes or todo.index_entries):
                return result
            if todo.target.index_tree and todo.index_entries:
                ensure_in_repo(checkout, store, [todo.target.index_tree])
            restore(kc, str(target.commit), rel, head="keep", current=current)
        chain.move(now)
        shown = " ".join(["pylon ws restore", name, *(rel or [])])
        result["op"] = record(
            checkout,
            chain,
            take(checkout, store),
            f"restore {name}" + (" (paths)" if rel else ""),
            shown,
            {"name": name},
        )
        chain.move(take(checkout, store, last=_last(chain)))
        chain.save()
    return result
