"""The op log under refs/pylon/ops/: intent first, then the change, then completion.

API (stable; used by moves, restore, `rm --force`, apply and guard):

    Step(root, before, after, head="state", paths=None, made=None)
        One checkout's change: `before` and `after` are state commits (state.capture() format;
        restore_state.make_state() builds one), `head` is restore()'s head mode ("state",
        "detach" or "keep"), used both to go forward and to reverse; `paths` limits it to those;
        `made`: a state whose untracked files, where the checkout holds them as they are, going
        forward takes away even when a rule ignores them (move --back: what the move brought).
    with op_lock(checkout): ...; check_clear(checkout); begin(...) -> Op; ...; complete(checkout, op)
        The protocol of an op: begin() before the first change, complete() after the last one, as
        an op that does more than restores (`rm --force`) calls them. An op made only of restores
        runs through oprun.py (perform, carry_out: the same protocol with the restores in between).
    entries(checkout) -> list[Op] (newest first); interrupted(checkout) -> Op | None

Kinds are pluggable: an op whose undo or finish is not "restore every step" names a `module`
that defines `undo_op(checkout, op)` and/or `finish_op(checkout, op)` (rm_undo.py is one); the
log imports it when needed. `data` is free JSON for the kind; `anchors` are extra commits the
kind needs later (a branch tip, a baseline): every state and anchor is a parent of the op's
commit, so `git gc --prune=now` never erases what an undo needs.

Storage: `refs/pylon/ops/<seq>` (8 digits) points at a commit (empty tree) whose message is
`pylon op <seq> <kind>: <status>` and then one JSON record. Statuses: `intent` (written before
any change), `done`, `undoing` (an undo began; the state it replaces is in `undo_from`, the state it
writes in `undo_to`), `undone`, `redoing` (a redo began: `redo_from` -> `redo_to`; then `done` again).
States an earlier undo or redo of the same op recorded stay parents of its commit (`history`).
A status change is a new commit swapped in with `git update-ref <ref> <new> <old>`. An op left in
`intent` or `undoing` with the op lock free was interrupted: `ws status` names it, `ws undo`
reverses it and `ws undo --finish` completes it.
"""

from __future__ import annotations

import json
import os
import time

from pylon.locks import file_lock, is_held
from pylon.workspace import git, immutable
from pylon.workspace.commits import write_commit
from pylon.workspace.repo import EMPTY_TREE, Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from types import TracebackType
    from typing import Any

    Record = dict[str, Any]  # an op's decoded JSON record

PREFIX = "refs/pylon/ops/"
VERSION = 1
LOCK_TIMEOUT = 600.0
OPEN = ("intent", "undoing", "redoing")
# record keys holding {root: state commit} maps: each is a parent of the op's commit (never pruned)
STATE_MAPS = ("undo_from", "undo_to", "redo_from", "redo_to")


class Step:
    __slots__ = ("root", "before", "after", "head", "paths", "made")

    def __init__(
        self,
        root: str,
        before: str,
        after: str,
        head: str = "state",
        paths: list[str] | None = None,
        made: str | None = None,
    ) -> None:
        self.root, self.before, self.after, self.head, self.paths = root, before, after, head, paths
        self.made = made  # going forward, untracked files this state holds as they are now are taken away

    def to_dict(self) -> dict[str, object]:
        found: dict[str, object] = {"root": self.root, "before": self.before, "after": self.after, "head": self.head}
        if self.paths is not None:
            found["paths"] = self.paths
        if self.made is not None:
            found["made"] = self.made
        return found


class Op:
    """One entry of the log (the decoded JSON record and where it lives: a ref, or `home`, a file of
    pylon's store for a checkout's shell ops, keep/ledger.py)."""

    __slots__ = ("seq", "ref", "commit", "record", "home")

    def __init__(self, seq: int, commit: str, record: Record, home: str | None = None) -> None:
        self.seq, self.commit, self.record, self.home = seq, commit, record, home
        self.ref = home if home else f"{PREFIX}{seq:08d}"

    @property
    def kind(self) -> str:
        return str(self.record.get("kind"))

    @property
    def status(self) -> str:
        return str(self.record.get("status"))

    @property
    def title(self) -> str:
        return str(self.record.get("title") or self.kind)

    @property
    def steps(self) -> list[Step]:
        raw = self.record.get("steps") or []
        return [
            Step(s["root"], s["before"], s["after"], s.get("head", "state"), s.get("paths"), s.get("made")) for s in raw
        ]

    @property
    def data(self) -> dict[str, object]:
        value = self.record.get("data")
        return value if isinstance(value, dict) else {}

    def to_dict(self) -> dict[str, object]:
        return {"seq": self.seq, "ref": self.ref, "commit": self.commit, **self.record}


def lock_path(checkout: Checkout) -> str:
    return os.path.join(checkout.common_dir, "pylon", "ops.lock")


def lock_timeout(default: float = LOCK_TIMEOUT) -> float:
    """How long a ws command waits for the op log (or the owned-worktree lock): `PYLON_WS_LOCK_TIMEOUT`
    seconds when set, else `default`."""
    try:
        return max(0.0, float(os.environ.get("PYLON_WS_LOCK_TIMEOUT") or default))
    except ValueError:
        return default


# The op log's listing as this process read or wrote it, per repository, while it holds the op
# lock: every writer of refs/pylon/ops/ holds that lock, so only this process's own _write (which
# keeps it current) and gc (forget) change it then. Without the lock every reading asks git.
_LISTED: dict[str, list[tuple[int, str]] | None] = {}


def _listed_key(checkout: Checkout) -> str:
    return os.path.realpath(checkout.common_dir)


class op_lock:  # a context manager, named for what it does
    """Serialises every mutating op of the repository (all worktrees share the log). A waiter says
    on stderr who holds it (the holder's pid, command, op id, since when) and gives up after
    lock_timeout() seconds with `lock-timeout`. While it is held, the log is listed once (_LISTED)."""

    def __init__(self, checkout: Checkout) -> None:
        self.key = _listed_key(checkout)
        self.lock = file_lock(lock_path(checkout), timeout=lock_timeout(), what="the op log", announce=True)

    def __enter__(self) -> None:
        self.lock.__enter__()
        _LISTED[self.key] = None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        _LISTED.pop(self.key, None)
        self.lock.__exit__(kind, exc, tb)


def forget(checkout: Checkout) -> None:
    """After op refs were deleted (gc): the next listing asks git."""
    if _listed_key(checkout) in _LISTED:
        _LISTED[_listed_key(checkout)] = None


def lock_held(checkout: Checkout) -> bool:
    return is_held(lock_path(checkout))


def _parents(record: Record, anchors: list[str]) -> list[str]:
    seen: list[str] = []
    for step in record.get("steps") or []:
        for key in ("before", "after", "made"):
            oid = step.get(key)
            if oid and oid not in seen:
                seen.append(oid)
    kept = [oid for key in STATE_MAPS for oid in (record.get(key) or {}).values()]
    for oid in [*anchors, *kept, *(record.get("history") or [])]:
        if oid and oid not in seen:
            seen.append(oid)
    return seen


def _write(checkout: Checkout, seq: int, record: Record, old: str | None) -> str:
    anchors = [str(a) for a in record.get("anchors") or []]
    message = f"pylon op {seq:08d} {record['kind']}: {record['status']}\n\n" + json.dumps(record, sort_keys=True) + "\n"
    commit = write_commit(checkout, EMPTY_TREE, _parents(record, anchors), message.encode())
    ref = f"{PREFIX}{seq:08d}"
    key = _listed_key(checkout)
    listed = _LISTED.get(key)
    if key in _LISTED:
        _LISTED[key] = None  # until the ref is in place (a failure leaves it unknown)
    git.run(
        ["update-ref", "-m", f"pylon op {record['status']}", ref, commit, old or "0" * 40],
        cwd=checkout.root,
        what="git update-ref (op log)",
    )
    if listed is not None:
        _LISTED[key] = sorted([(n, oid) for n, oid in listed if n != seq] + [(seq, commit)], reverse=True)
    return commit


def _listing(checkout: Checkout) -> list[tuple[int, str]]:
    """(seq, commit) of each op ref, newest first: one `for-each-ref` (once while the op lock is held)."""
    key = _listed_key(checkout)
    listed = _LISTED.get(key)
    if listed is not None:
        return list(listed)
    out = git.run(["for-each-ref", "--format=%(refname) %(objectname)", PREFIX], cwd=checkout.root)
    found = []
    for line in out.decode().splitlines():
        ref, _, oid = line.partition(" ")
        tail = ref[len(PREFIX) :]
        if tail.isdigit():
            found.append((int(tail), oid))
    found.sort(reverse=True)
    if key in _LISTED:
        _LISTED[key] = list(found)
    return found


def entries(checkout: Checkout, limit: int | None = None) -> list[Op]:
    """The log, newest first (one `for-each-ref` and one `cat-file --batch` of the op commits not
    read yet), with this checkout's
    shell ops from pylon's store (keep/ledger.py) in their place."""
    from pylon.workspace.keep.ledger import for_checkout

    shell = [Op(seq, "", record, home=path) for seq, path, record in for_checkout(checkout)]
    ops = sorted(_repo_entries(checkout, limit) + shell, key=lambda op: op.seq, reverse=True)
    return ops[:limit] if limit else ops


def _repo_entries(checkout: Checkout, limit: int | None = None) -> list[Op]:
    listing = _listing(checkout)[:limit] if limit else _listing(checkout)
    if not listing:
        return []
    ops: list[Op] = []
    for (seq, oid), body in zip(listing, immutable.commits(checkout, [oid for _, oid in listing])):
        _header, _, message = body.partition(b"\n\n")
        try:
            record = json.loads(message.split(b"\n", 2)[2])
        except (IndexError, ValueError):
            record = {"kind": "unknown", "status": "unreadable"}
        ops.append(Op(seq, oid, record))
    return ops


def get(checkout: Checkout, seq: int) -> Op | None:
    for op in entries(checkout):
        if op.seq == seq:
            return op
    return None


def interrupted(checkout: Checkout, ops: list[Op] | None = None) -> Op | None:
    """The newest op left half-done by a process that is gone (None while one is running); `ops`:
    entries(checkout, limit=50) when the caller has read them already."""
    for op in entries(checkout, limit=50) if ops is None else ops[:50]:
        if op.status in OPEN:
            return None if lock_held(checkout) else op
    return None


def ways_out(op: Op) -> dict[str, str]:
    """What an interrupted op needs, by what was cut short: `what` was interrupted, the command that
    `finish`es it (an op's change, an undo or a redo carried to its end) and the one that `reverse`s
    it (back to where it started). `ws undo` always ends with the op undone, `ws undo --finish`
    with the op in effect, so the two always differ."""
    if op.status == "undoing":
        return {"what": f"the undo of `{op.title}`", "finish": "pylon ws undo", "reverse": "pylon ws undo --finish"}
    if op.status == "redoing":
        return {"what": f"the redo of `{op.title}`", "finish": "pylon ws undo --finish", "reverse": "pylon ws undo"}
    return {"what": f"`{op.title}`", "finish": "pylon ws undo --finish", "reverse": "pylon ws undo"}


def check_clear(checkout: Checkout) -> None:
    """Refuse a new op while an interrupted one waits (call it under op_lock). Temp files and locks
    of killed pylons are removed first (leftovers.py)."""
    from pylon.workspace.leftovers import sweep

    sweep(checkout)
    for op in entries(checkout, limit=50):
        if op.status in OPEN:
            from pylon.errors import PylonError

            ways = ways_out(op)
            raise PylonError(
                "op-interrupted",
                f"{ways['what'][0].upper()}{ways['what'][1:]} (op {op.seq}) was interrupted before it finished; "
                "pylon changes nothing else until it is settled.",
                f"Reverse it with `{ways['reverse']}`, or complete it with `{ways['finish']}`.",
                details={
                    "op": op.seq,
                    "kind": op.kind,
                    "status": op.status,
                    "finish": ways["finish"],
                    "reverse": ways["reverse"],
                },
            )


def begin(
    checkout: Checkout,
    kind: str,
    steps: list[Step],
    *,
    title: str,
    data: Mapping[str, object] | None = None,
    anchors: list[str] | tuple[str, ...] = (),
    module: str | None = None,
    command: str | None = None,
) -> Op:
    """Write the intent (call under op_lock, before changing anything) and return the op."""
    from pylon.workspace.keep.chain import settle

    settle(checkout)  # what changed since the last kept state (no hook saw it): an op of its own first
    listing = _listing(checkout)
    seq = _next_seq(checkout, listing[0][0] if listing else 0)
    record: Record = {
        "v": VERSION,
        "kind": kind,
        "status": "intent",
        "title": title,
        "time": int(time.time()),
        "steps": [s.to_dict() for s in steps],
        "data": data or {},
        "anchors": [a for a in anchors if a],
        "module": module,
        "command": command,
        "pid": os.getpid(),
        "from": checkout.root,
    }
    commit = _write(checkout, seq, record, None)
    from pylon.locks import annotate

    annotate(lock_path(checkout), op=seq)  # a waiter's notice names the op
    return Op(seq, commit, record)


def _next_seq(checkout: Checkout, last: int) -> int:
    """After the log's last number and every one pylon's store gave (shell ops share the sequence)."""
    from pylon.workspace.keep.store import next_seq, of_repo

    store = of_repo(checkout.common_dir)
    return last + 1 if store is None else next_seq(store, at_least=last)


def set_status(checkout: Checkout, op: Op, status: str, **extra: object) -> Op:
    record = dict(op.record, status=status, **extra)
    if op.home:  # a shell op, kept in pylon's store
        from pylon.workspace.keep.ledger import save

        save(op.home, record)
        op.record = record
        return op
    commit = _write(checkout, op.seq, record, op.commit)
    op.commit, op.record = commit, record
    if status in ("done", "undone"):
        from pylon.workspace.keep.chain import after_op

        after_op(checkout, op)  # the keep's chain moves past what this op did (no shell op records it again)
    return op


def complete(checkout: Checkout, op: Op, **extra: object) -> Op:
    return set_status(checkout, op, "done", finished=int(time.time()), **extra)


def move_ops(checkout: Checkout) -> dict[str, Op]:
    """Per worktree id, its newest move or move-back op that is not undone."""
    found: dict[str, Op] = {}
    for op in entries(checkout):
        if op.kind in ("move", "move-back") and op.status != "undone":
            wid = str(op.data.get("id"))
            found.setdefault(wid, op)
    return found


def active_move(checkout: Checkout) -> Op | None:
    """The move whose worktree state is in the main checkout now (None when none is)."""
    for op in move_ops(checkout).values():
        if op.kind == "move":
            return op
    return None
