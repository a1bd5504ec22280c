"""Guard snapshots as ops of the log: `ws undo` right after a guarded `rm -rf src` brings src back.

The guard hook takes its snapshot (guard_snapshot.take) before the command runs, so nobody knows
yet what the command will change. It records an op of kind `guard` (this module) whose one step
names the snapshot as `before` and the paths the command destroys (its path targets, plus the
ignored files the snapshot holds for it); the op is `done` at once. Undo of it brings back, from the
snapshot, every file under those paths that is gone now, and keeps every file that exists (the
command's own edit cannot be told from a later one without a state after the command, so an
existing file is never overwritten): the result names those, and `pylon ws restore guard-<n> PATH`
replaces them when that is what is wanted. Files made under those paths since are kept too. The
refs and stash entries the command deleted come back as `ws restore guard-<n>` brings them
(guard_refs.put_back: only those that are gone); a command that deletes refs only is an op with
no paths, whose undo touches no file. The state replaced is in `undo_from`, as for every undo.

Recording never delays or blocks the command: when the op log is busy (its lock held, or an op
interrupted) the snapshot stays a plain `guard-<n>` and the note says `ws restore`.
"""

from __future__ import annotations

import os

from pylon.locks import file_lock
from pylon.workspace import git, immutable
from pylon.workspace.ops import oplog
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.verdict import Target
    from pylon.workspace.commits import State

MODULE = "pylon.workspace.ops.guard_op"


def destroyed(checkout: Checkout, targets: list[Target]) -> list[str]:
    """Root-relative paths the guarded command destroys: its path targets, and what its `find` or
    `git clean` would list (asked the same way the snapshot asked)."""
    from pylon.workspace.ops.guard_snapshot import reached, removed_files

    # `rm -rf link/` empties the folder the link leads to: that folder is destroyed too
    paths = [p for p in reached(checkout, [t for t in targets if t.kind == "path" and t.path]) if p != "."]
    listed = [t for t in targets if t.kind in ("find", "git-clean")]
    return sorted(set(paths) | set(removed_files(checkout, listed) if listed else []))


def discarded(checkout: Checkout, targets: list[Target]) -> list[str]:
    """Root-relative tracked paths whose uncommitted changes a `git checkout -- PATH`, `git restore
    PATH` (kind `tracked`) or `git reset --hard` (kind `checkout`) discards: what differs from HEAD
    or from the index there now, asked before the command runs."""
    specs = sorted({t.path or "." for t in targets if t.kind == "tracked"})
    if any(t.kind == "checkout" for t in targets):
        specs = ["."]
    if not specs:
        return []
    found: set[str] = set()
    # literal pathspecs: a target's name is a path, never a glob; HEAD may be unborn (code 128)
    for against in (["HEAD"], []):
        code, out, _ = git.run_full(
            ["--literal-pathspecs", "diff", "--name-only", "-z", "--no-renames", *against, "--", *specs],
            cwd=checkout.root,
        )
        if code == 0:
            found.update(p for p in out.decode("utf-8", "surrogateescape").split("\0") if p)
    return sorted(found)


def record(
    checkout: Checkout, snapshot: dict[str, object], paths: list[str], command: str, *, refs: bool = False
) -> int | None:
    """The op of a guard snapshot (its seq), or None when it cannot be recorded right now. `refs`:
    the command deletes refs or stash entries, so an op without paths still has something to undo."""
    from pylon.locks import is_held

    paths = sorted({p.strip("/") or "." for p in paths if p})
    if (not paths and not refs) or is_held(oplog.lock_path(checkout)):
        return None
    try:
        with file_lock(oplog.lock_path(checkout), timeout=1.0, what="the op log"):
            if any(op.status in oplog.OPEN for op in oplog.entries(checkout, limit=50)):
                return None
            commit = str(snapshot["commit"])
            step = oplog.Step(checkout.root, commit, commit, "keep", paths)
            name = str(snapshot["name"])
            first = command.splitlines()[0][:200] if command else ""
            op = oplog.begin(
                checkout,
                "guard",
                [step],
                title=f"{name}: {first}",
                module=MODULE,
                command=first,
                data={"name": name, "ref": snapshot.get("ref"), "paths": paths},
            )
            oplog.complete(checkout, op)
            return op.seq
    except Exception:  # the snapshot is taken; the op is a convenience on top of it
        return None


def check_undo(checkout: Checkout, op: oplog.Op) -> None:
    """Nothing to refuse: undo writes only files that are gone."""


def finish_op(checkout: Checkout, op: oplog.Op) -> None:
    """Nothing to finish: recording the op changed no file."""


def undo_op(checkout: Checkout, op: oplog.Op) -> dict[str, object]:
    """Bring back the files under the op's paths that are gone now; keep every file that exists;
    name again the refs the command deleted that are gone now."""
    from pylon.workspace.commits import read_state
    from pylon.workspace.ops.restore_state import make_state, restore
    from pylon.workspace.ops.reverse import scratch_tree
    from pylon.workspace.repo import locate
    from pylon.workspace.state import capture

    step = op.steps[0]
    co = locate(step.root)
    if not step.paths:  # the command deleted refs only (a path list never stands for everything here)
        return {
            co.root: {
                "kept": [],
                "merged": [],
                "markers": [],
                "back": [],
                "existing": [],
                "refs": _refs_back(co, step.before),
            }
        }
    kept_state = (op.record.get("undo_from") or {}).get(step.root)
    now = read_state(co, kept_state) if kept_state else capture(co, label=f"before undo of op {op.seq}")
    listing = git.run(
        ["ls-tree", "-r", "-z", "--full-tree", step.before, "--", *step.paths],
        cwd=co.root,
        env={"GIT_LITERAL_PATHSPECS": "1"},
    )
    missing: list[bytes] = []
    kept: list[str] = []
    back: list[str] = []
    entries: dict[str, tuple[str, str, bytes]] = {}
    for line in listing.split(b"\0"):
        if not line:
            continue
        meta, _, raw = line.partition(b"\t")
        path = raw.decode("utf-8", "surrogateescape")
        mode, _kind, oid = meta.decode().split()
        entries[path] = (mode, oid, raw)
        if _occupied(co.root, path):
            kept.append(path)
            continue
        missing.append(f"{mode} {oid}\t".encode() + raw + b"\0")
        back.append(path)
    moved = _moved_here(co.root, entries, back, kept)  # `mv a b`: b holds a's bytes, a is gone
    if moved:
        from pylon.workspace.ops.restore_state import holding

        now = holding(co, now, moved)  # their bytes now stay in the state the undo replaces
        kept = [p for p in kept if p not in moved]
        back += moved
        missing += [f"{entries[p][0]} {entries[p][1]}\t".encode() + entries[p][2] + b"\0" for p in moved]
    folders = _gone_folders(co.root, read_state(co, step.before).meta, step.paths)
    if missing or folders:
        tree = scratch_tree(co, now.worktree, remove=back, entries=b"".join(missing)) if missing else now.worktree
        target = make_state(
            co,
            worktree=tree,
            index_tree=now.index_tree,
            head=now.head,
            branch=now.branch,
            label=f"undo of op {op.seq}",
            meta_raw=_meta(co, step.before, now, tree, back, folders),
        )
        restore(co, target, head="keep", current=now)
    return {
        co.root: {
            "kept": [],
            "merged": [],
            "markers": [],
            "back": back,
            "existing": kept,
            "refs": _refs_back(co, step.before),
        }
    }


def _refs_back(co: Checkout, snapshot: str) -> dict[str, list[str]]:
    """The branches, tags and stash entries the command deleted, created again where they are gone
    (guard_refs.put_back never moves a ref that exists now), as `ws restore guard-<n>` does."""
    from pylon.workspace.ops.guard_refs import put_back

    body = immutable.commit(co, snapshot).decode("utf-8", "surrogateescape")
    return put_back(co, body.partition("\n\n")[2])


def _moved_here(
    root: str, entries: dict[str, tuple[str, str, bytes]], gone: list[str], existing: list[str]
) -> list[str]:
    """Existing files that hold, byte for byte, what the snapshot kept of a path that is gone now
    and not what it kept of their own: the command moved that file over them (`mv a b`), so they
    are its own result, not later work."""
    if not gone or not existing:
        return []
    blobs = {entries[p][1] for p in gone if entries[p][0] in ("100644", "100755")}
    files = [
        p
        for p in existing
        if "\n" not in p
        and entries[p][0] in ("100644", "100755")
        and os.path.isfile(os.path.join(root, p))
        and not os.path.islink(os.path.join(root, p))
    ]
    if not blobs or not files:
        return []
    listing = "".join(p + "\n" for p in files).encode("utf-8", "surrogateescape")
    oids = git.run(["hash-object", "--no-filters", "--stdin-paths"], cwd=root, input=listing).decode().split()
    return [p for p, oid in zip(files, oids) if oid in blobs and oid != entries[p][1]]


def _gone_folders(root: str, meta: dict[str, object] | None, paths: list[str]) -> list[str]:
    """The snapshot's empty folders under `paths` that are gone now (nothing there)."""
    from pylon.workspace.exact import dirs_of

    return [d for d in dirs_of(meta) if any(d == p or d.startswith(p + "/") for p in paths) and not _occupied(root, d)]


def _meta(co: Checkout, snapshot: str, now: State, tree: str, back: list[str], folders: list[str]) -> str | None:
    """The record of the undo's target: now's bits and folders, with the snapshot's bits of the
    files brought back and its empty folders that are gone."""
    from pylon.workspace import exact
    from pylon.workspace.commits import read_state

    then, mine = read_state(co, snapshot).meta, now.meta
    if mine is None:
        return None
    modes = exact.modes_of(mine)
    modes.update({rel: bits for rel, bits in exact.modes_of(then).items() if rel in set(back)})
    kept = exact.in_tree(co.root, tree, sorted(modes))
    dirs = sorted({*exact.dirs_of(mine), *folders})
    # folder bits: the snapshot's for the folders that are gone (the undo makes them again), now's for the rest
    bits = {rel: b for rel, b in exact.modes_of(then, "dm").items() if not os.path.isdir(os.path.join(co.root, rel))}
    bits.update(exact.modes_of(mine, "dm"))
    return exact.encode(
        exact.grouped({rel: modes[rel] for rel in kept}, dirs, exact.state_dirs(co.root, tree, bits, dirs))
    )


def _occupied(root: str, path: str) -> bool:
    """Something is at `path` now, or a file stands where one of its folders was."""
    full = os.path.join(root, path)
    if os.path.lexists(full):
        return True
    parent = os.path.dirname(path)
    while parent:
        where = os.path.join(root, parent)
        if os.path.lexists(where):
            return os.path.islink(where) or not os.path.isdir(where)
        parent = os.path.dirname(parent)
    return False
