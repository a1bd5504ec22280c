"""`pylon ws log` and `pylon ws gc`: every state pylon keeps for this checkout, on one timeline.

Four kinds, each anchored by refs under refs/pylon/ (so git's own gc keeps them):

    baseline   refs/pylon/[worktrees/<admin>/]baselines/<NAME>   `pylon ws restore NAME`
    op         refs/pylon/ops/<n> (ops that changed this checkout)  `pylon ws restore op-<n>[:SIDE]`
    guard      refs/pylon/guard/<n>                               `pylon ws restore guard-<n>`
    trash      refs/pylon/trash/<id>-<stamp>/{state,branch,baseline}   git worktree add + read-tree

Newest first, each with its age, its size (the paths it differs in: an op from the state before
it, a snapshot from its own HEAD commit; one `git diff-tree --stdin` for all), the command that made
it and the exact command that brings it back. `gc` deletes the refs of entries older than a
duration (git's gc frees the objects later), never the newest entry of a kind without `all`, an op
still open (interrupted), a move whose state is still in the main checkout, or the newest apply of
a session still in effect (the next apply of that session merges from it).
"""

from __future__ import annotations

import os
import time

from pylon.workspace import git, refs
from pylon.workspace.ops import oplog
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Entry = dict[str, Any]
    Listed = tuple[str, str, int, str]  # a ref, its commit, its committer time, its tree

KINDS = ("baseline", "op", "guard", "trash")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def _listed(checkout: Checkout, prefixes: list[str]) -> dict[str, list[Listed]]:
    """(ref, commit, committer time, tree) of every ref under each prefix, from one `for-each-ref`
    (git lists the union sorted by name, so each prefix's part keeps its order); a prefix git would
    read as a glob is listed on its own."""
    together = [p for p in dict.fromkeys(prefixes) if not set(p) & set("*?[\\")]
    found: dict[str, list[Listed]] = {p: [] for p in prefixes}
    for group in ([together] if together else []) + [[p] for p in dict.fromkeys(prefixes) if p not in together]:
        out = git.run(
            ["for-each-ref", "--format=%(refname)%00%(objectname)%00%(committerdate:unix)%00%(tree)", *group],
            cwd=checkout.root,
        )
        for line in out.decode("utf-8", "surrogateescape").splitlines():
            ref, oid, when, tree = (line.split("\0") + ["", "", ""])[:4]
            for prefix in group:
                if len(group) == 1 or ref.startswith(prefix):
                    found[prefix].append((ref, oid, int(when or 0), tree))
    return found


def _guard_command(checkout: Checkout, ref: str) -> str | None:
    """The command a guard snapshot was taken for (its reflog message)."""
    try:
        with open(os.path.join(checkout.common_dir, "logs", ref), encoding="utf-8", errors="replace") as fh:
            first = fh.readline()
    except OSError:
        return None
    message = first.partition("\t")[2].strip()
    return message.removeprefix("pylon guard: ") or None


def _mine(checkout: Checkout, op: oplog.Op) -> bool:
    """Ops that changed this checkout, and the ones run here that changed a session: a sync from
    it, an `rm` or a `finish` (the data names the checkout; older records: the main checkout)."""
    from pylon.workspace.ops.opstates import same_root

    if any(same_root(step.root, checkout.root) for step in op.steps):
        return True
    if op.kind == "new":  # a worktree made (a client's WorktreeCreate): the main checkout's
        return checkout.worktree_name is None
    if op.kind not in ("rm", "finish", "sync") or (op.kind == "sync" and op.data.get("from") != "checkout"):
        return False
    here = op.data.get("checkout")
    return same_root(str(here), checkout.root) if isinstance(here, str) else checkout.worktree_name is None


def _op_entry(checkout: Checkout, op: oplog.Op, newest: bool) -> Entry:
    """An op's entry: each state it keeps with the command that restores it. The states of another
    checkout (a sync's session) are named with the `-C` that reaches it; a removed session's own
    state (rm, finish) is `op-N:session`."""
    from pylon.workspace.ops.opstates import same_root

    name = f"op-{op.seq}"
    step = next((s for s in op.steps if same_root(s.root, checkout.root)), None)
    where = ""
    if step is None and op.steps:  # a sync from here: the session's states, restored there (or
        step = op.steps[0]  # here, once that worktree is gone: opstates.resolve_op)
        where = f"-C {_q(step.root)} " if os.path.isdir(step.root) else ""
    states: dict[str, str] = {}
    if step is not None:
        states = {"before": step.before, "after": step.after}
        for side, key in (("before-undo", "undo_from"), ("before-redo", "redo_from")):
            kept = op.record.get(key) or {}
            oid = next((v for root, v in kept.items() if same_root(root, step.root)), None)
            if oid:
                states[side] = str(oid)
    if op.kind in ("rm", "finish") and op.data.get("state"):
        states["session"] = str(op.data["state"])
    restores = {side: f"pylon {where}ws restore {name}:{side}" for side in states}
    if op.kind in ("rm", "finish"):
        restores["worktree"] = "pylon ws undo" if op.status == "done" and newest else ""
    pair = (states.get("before"), states.get("after"))
    if op.kind in ("rm", "finish") and step is None and op.data.get("state"):
        pair = (str(op.data.get("baseline") or "") or None, str(op.data["state"]))  # what the session held
    entry: Entry = {
        "kind": "op",
        "name": name,
        "ref": op.ref,
        "commit": op.commit,
        "time": int(op.record.get("time") or 0),
        "title": op.title,
        "op_kind": op.kind,
        "status": op.status,
        "made_by": op.record.get("command") or op.title,
        "states": states,
        "restore": restores.get("before") or restores.get("session") or None,
        "restores": restores,
        "_pair": pair,
    }
    if op.home:  # a shell op: its states are in pylon's store, what it changed is in its record
        from pylon.workspace.keep.changes import said

        change = op.data.get("changed") if isinstance(op.data.get("changed"), dict) else {}
        assert isinstance(change, dict)
        entry.update(
            _pair=(None, None),
            paths=change.get("paths_total"),
            changed=said(change),
            undo="pylon ws undo" if op.status == "done" else None,
        )
        if op.status == "running":
            entry["restore"], entry["restores"] = None, {}
    return entry


def entries(checkout: Checkout) -> list[Entry]:
    """Every kept state of this checkout, newest first (the unsorted parts of `ws log`)."""
    from pylon.workspace.ops.guard_snapshot import anchors_prefix, guard_prefix

    found: list[Entry] = []
    prefix, held, trash = refs.baselines_prefix(checkout), anchors_prefix(checkout), f"{refs.ROOT}trash/"
    listed = _listed(checkout, [prefix, held, guard_prefix(checkout), trash])  # one for-each-ref for the four
    for ref, oid, when, _tree in listed[prefix]:
        name = ref[len(prefix) :]
        found.append(
            {
                "kind": "baseline",
                "name": name,
                "ref": ref,
                "commit": oid,
                "time": when,
                "made_by": f"pylon ws baseline {name}",
                "restore": f"pylon ws restore {name}",
                "_pair": (f"{oid}^1", oid),
            }
        )
    ops = oplog.entries(checkout)
    undoable = next((o.seq for o in ops if o.status in ("intent", "done", "undoing", "redoing")), None)
    for op in ops:
        if _mine(checkout, op):
            found.append(_op_entry(checkout, op, op.seq == undoable))
    anchors: dict[str, list[str]] = {}  # the refs a guarded git command deleted (guard_refs.py)
    for ref, _oid, _when, _tree in listed[held]:
        anchors.setdefault(ref[len(held) :].split("/", 1)[0], []).append(ref)
    for ref, oid, when, _tree in listed[guard_prefix(checkout)]:  # this checkout's own (issue 28)
        number = ref.rsplit("/", 1)[-1]
        command = _guard_command(checkout, ref)
        found.append(
            {
                "kind": "guard",
                "name": f"guard-{number}",
                "ref": ref,
                "commit": oid,
                "time": when,
                "made_by": f"guard, before: {command}" if command else "guard",
                "restore": f"pylon ws restore guard-{number}",
                "_pair": (f"{oid}^1", oid),
                **({"refs": [ref, *anchors[number]]} if number in anchors else {}),
            }
        )
    groups: dict[str, dict[str, tuple[str, int]]] = {}
    for ref, oid, when, _tree in listed[trash]:
        group, _, part = ref.rpartition("/")
        groups.setdefault(group, {})[part] = (oid, when)
    rm_ops = {str(op.data.get("trash")): op for op in ops if op.data.get("trash")}
    for group, parts in groups.items():
        state = parts.get("state")
        if state is None:
            continue
        wid = group.rsplit("/", 1)[-1].rsplit("-", 1)[0]
        rm_op = rm_ops.get(group)
        path = str(rm_op.data.get("path")) if rm_op is not None else f"../{wid}"
        start = f"{group}/branch" if "branch" in parts else f"{group}/state^1"
        command = (
            f"git worktree add --detach {_q(path)} {start} && git -C {_q(path)} read-tree -u --reset {group}/state"
        )
        made_by = str(rm_op.record.get("command") or rm_op.title) if rm_op is not None else f"pylon ws rm {wid} --force"
        found.append(
            {
                "kind": "trash",
                "name": group.removeprefix(f"{refs.ROOT}trash/"),
                "ref": group,
                "commit": state[0],
                "time": state[1],
                "made_by": made_by,
                "restore": command,
                "refs": [f"{group}/{p}" for p in sorted(parts)],
                "_pair": (f"{state[0]}^1", state[0]),
            }
        )
    found.sort(key=lambda e: (e["time"], e["kind"] == "op", e["name"]), reverse=True)
    return found


def _q(path: str) -> str:
    import shlex

    return shlex.quote(path)


def _sizes(checkout: Checkout, items: list[Entry]) -> None:
    """Each entry's `paths`: how many paths it differs in (see the module docstring)."""
    from pylon.workspace.sides import peel_trees, tree_diffs

    wanted = [(i, e["_pair"]) for i, e in enumerate(items) if e["_pair"][0] and e["_pair"][1]]
    revs = [rev for _i, pair in wanted for rev in pair]
    try:
        trees = peel_trees(checkout, revs)
    except Exception:  # a snapshot of an unborn HEAD has no parent: counted one by one below
        trees = []
    if trees:
        pairs = [(trees[2 * n], trees[2 * n + 1]) for n in range(len(wanted))]
        for (i, _pair), diff in zip(wanted, tree_diffs(checkout, pairs)):
            items[i]["paths"] = len(diff)
    for e in items:
        if e["kind"] == "guard":
            e["paths"] = _guard_size(checkout, str(e["commit"]))
        e.setdefault("paths", None)
        del e["_pair"]


def _guard_size(checkout: Checkout, commit: str) -> int | None:
    """The files a guard snapshot keeps for its command: those of its tree under the paths the
    command reaches (its record's scope; the whole tree when it reaches everything)."""
    from pylon.errors import PylonError
    from pylon.workspace.commits import read_state
    from pylon.workspace.exact import scope_of

    try:
        snap = read_state(checkout, commit)
    except PylonError:
        return None
    scope = scope_of(snap.meta) if snap.meta is not None else None
    args = ["ls-tree", "-r", "-z", "--name-only", "--full-tree", snap.worktree]
    out = git.run([*args, "--", *scope] if scope else args, cwd=checkout.root, env={"GIT_LITERAL_PATHSPECS": "1"})
    return out.count(b"\0")


def log(checkout: Checkout, limit: int = 50, *, settled: bool = False) -> dict[str, object]:
    """The timeline; `settled`: first finish the shell commands still running (keep/chain.py), as
    `ws log` and the board do, and name what changed since the last kept state that no op recorded
    (`unrecorded`: later work, which `ws undo` keeps; None when nothing did)."""
    unrecorded = None
    if settled:
        from pylon.workspace.keep.chain import settle

        unrecorded = settle(checkout, outside=False)
    items = entries(checkout)
    shown = items[:limit]
    _sizes(checkout, shown)
    now = int(time.time())
    for e in shown:
        e["age"] = max(0, now - int(e["time"]))
    return {
        "entries": shown,
        "total": len(items),
        "truncated": len(items) > limit,
        "root": checkout.root,
        "unrecorded": unrecorded,
    }


def parse_duration(text: str) -> int:
    """Seconds in `30d`, `12h`, `90m`, `45s`, `2w` (a bare number is days)."""
    raw = text.strip().lower()
    unit = raw[-1:] if raw[-1:] in _UNITS else "d"
    number = raw[:-1] if raw[-1:] in _UNITS else raw
    if not number.isdigit():
        from pylon.errors import UsageError

        raise UsageError(
            "bad-duration",
            f"{text!r} is not a duration: a whole number with s, m, h, d or w.",
            "pylon ws gc --older-than 30d",
        )
    return int(number) * _UNITS[unit]


def _protected(checkout: Checkout) -> set[str]:
    """Op refs gc never deletes: open ops, an active move, the newest apply in effect per session."""
    keep: set[str] = set()
    applies: set[str] = set()
    from pylon.workspace.ops.oplog import active_move

    for op in oplog.entries(checkout):
        if op.status in oplog.OPEN:
            keep.add(op.ref)
        if op.kind == "apply" and op.status == "done" and str(op.data.get("id")) not in applies:
            applies.add(str(op.data.get("id")))
            keep.add(op.ref)
    active = active_move(checkout)
    if active is not None:
        keep.add(active.ref)
    return keep


def gc(checkout: Checkout, older_than: str, *, prune_all: bool = False, dry_run: bool = False) -> dict[str, object]:
    from pylon.workspace.commits import update_refs

    cutoff = int(time.time()) - parse_duration(older_than)
    with oplog.op_lock(checkout):
        items = entries(checkout)
        protected = _protected(checkout)
        newest: set[str] = set()
        for kind in KINDS:
            first = next((e for e in items if e["kind"] == kind), None)
            if first is not None and not prune_all:
                newest.add(first["ref"])
        pruned, kept = [], 0
        for e in items:
            if e["time"] > cutoff or e["ref"] in newest or e["ref"] in protected:
                kept += 1
                continue
            pruned.append({k: e[k] for k in ("kind", "name", "ref", "time")})
        deletes = [r for e in items for r in (e.get("refs") or [e["ref"]]) if any(p["ref"] == e["ref"] for p in pruned)]
        if deletes and not dry_run:
            from pylon.workspace.keep.ledger import delete

            for path in [r for r in deletes if not r.startswith("refs/")]:
                delete(path)  # a shell op: its record in pylon's store
            refs_only = [r for r in deletes if r.startswith("refs/")]
            if refs_only:
                update_refs(checkout, [], deletes=refs_only)
                oplog.forget(checkout)
    return {"pruned": pruned, "kept": kept, "dry_run": dry_run, "older_than": older_than, "all": prune_all}
