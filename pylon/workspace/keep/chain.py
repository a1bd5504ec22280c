"""A checkout's chain of kept states, and the shell ops between them (docs/explanation/guard.md, "After the
command: the op").

`chain.json` in the checkout's keep folder holds the last state recorded (`last`, `last_key`) and
the commands running (`running`: hook id -> op number, command, session, turn, start). Everything
here runs under the checkout's keep lock.

    before()   a shell command is about to run: keep the state, record what changed since the last
               state as an `outside` op when no command was running, reserve the command's op
               (status `running`), bring the mirror of .git up to date
    after()    it ran: keep the state, and the op is what changed since the chain's last state (none:
               the reserved op is dropped)
    settle()   a pylon command is about to look: running commands are finished as they stand, and
               a difference nobody recorded becomes an `outside` op (a pylon op about to begin),
               or is later work undo keeps (undo, redo, log: its summary)
    after_op() a pylon op (apply, restore, undo, ...) changed the checkout: the chain moves to the
               state it left, so the shell command that ran it records nothing more
"""

from __future__ import annotations

import os
import time

from pylon.workspace.keep.records import complete, first_line, record, repo_last
from pylon.workspace.keep.store import Store, for_checkout
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pylon.locks import file_lock
    from pylon.workspace.keep.kept import Kept

    Op = Any  # an op of the log (oplog.Op): the op log imports this module, never the reverse

CHAIN = "chain.json"
STALE = 15 * 60  # seconds: a command still `running` after this is finished by the next hook
OUTSIDE = "outside: changes made between commands (no hook saw them)"
LOCK_TIMEOUT = 120.0


class Chain:
    """The chain file of one checkout, loaded."""

    def __init__(self, store: Store, root: str) -> None:
        from pylon.workspace.index import read_json

        self.store, self.root = store, root
        self.dir = store.checkout_dir(root)
        self.path = os.path.join(self.dir, CHAIN)
        data = read_json(self.path) or {}
        self.last: str | None = data.get("last") if isinstance(data.get("last"), str) else None
        self.last_key: str | None = data.get("last_key") if isinstance(data.get("last_key"), str) else None
        running = data.get("running")
        self.running: dict[str, dict[str, object]] = running if isinstance(running, dict) else {}
        dotgit = data.get("dotgit")
        self.dotgit: dict[str, object] = dotgit if isinstance(dotgit, dict) else {}
        fresh = data.get("last_fresh")  # the watcher's vouch `last` was read from (kept.py)
        self.last_fresh: str | None = fresh if isinstance(fresh, str) else None

    def save(self) -> None:
        from pylon.workspace.index import write_json

        write_json(
            self.path,
            {
                "v": 1,
                "root": self.root,
                "last": self.last,
                "last_key": self.last_key,
                "running": self.running,
                "dotgit": self.dotgit,
                "last_fresh": self.last_fresh,
            },
        )

    def move(self, kept: Kept) -> None:
        self.last, self.last_key, self.last_fresh = kept.commit, kept.key, kept.fresh


def lock(store: Store, root: str) -> file_lock:
    from pylon.locks import file_lock

    return file_lock(
        os.path.join(store.checkout_dir(root), "lock"), timeout=LOCK_TIMEOUT, what="the kept states of this checkout"
    )


def _dotgit(root: str) -> dict[str, object]:
    """What the checkout's `.git` is: a folder, or a file naming the git folder (its text)."""
    path = os.path.join(root, ".git")
    if os.path.isfile(path) and not os.path.islink(path):
        try:
            with open(path, "rb") as fh:
                return {"kind": "file", "text": fh.read(4096).decode("utf-8", "surrogateescape")}
        except OSError:
            return {}
    return {"kind": "dir"} if os.path.isdir(path) else {}


def before(
    checkout: Checkout, *, command: str, hook_id: str, session: str = "", turn: str = "", stream: str = ""
) -> tuple[int, list[list[object]]]:
    """Keep the state before a shell command and reserve its op: (the op's number, what the state
    could not hold: ignored data over the budget, [path, bytes, why] each). `stream`: the client runs
    this stream's shell commands one after another and says when each ended only at the end of its
    batch (Claude Code: no PostToolUse is registered), so the stream's next command ends this one."""
    from pylon.beside import beside
    from pylon.workspace.keep.kept import take
    from pylon.workspace.keep.mirror import sync

    store = for_checkout(checkout)
    assert store is not None
    with lock(store, checkout.root):
        chain = Chain(store, checkout.root)
        # the mirror of .git is brought up to date while git scans the tree (neither writes what the
        # other reads): a command that removes .git finds both done
        mirrored = beside(lambda: sync(checkout.common_dir, store.mirror, store.dir))
        try:
            kept = take(checkout, store, last=_last(chain))
        finally:
            mirrored()
        _finish_stale(checkout, chain, kept, session, turn, stream)
        if not chain.running:
            if chain.last and chain.last_key != kept.key:
                record(checkout, chain, kept, OUTSIDE, None, {})
            chain.move(kept)
        seq = _reserve(checkout, chain, command, hook_id, session, turn)
        if stream:
            chain.running[hook_id]["stream"] = stream
        chain.dotgit = _dotgit(checkout.root) or chain.dotgit
        chain.save()
    not_kept = kept.ignored.get("not_kept")
    return seq, [e for e in not_kept if isinstance(e, list)] if isinstance(not_kept, list) else []


def _last(chain: Chain) -> tuple[str, str, str | None] | None:
    return (chain.last_key, chain.last, chain.last_fresh) if chain.last and chain.last_key else None


def _reserve(checkout: Checkout, chain: Chain, command: str, hook_id: str, session: str, turn: str) -> int:
    """The command's op number, held in the chain until it ends (the op is written then)."""
    from pylon.workspace.keep.store import next_seq

    seq = next_seq(chain.store, at_least=repo_last(checkout))  # never a number the op log holds
    chain.running[hook_id] = {
        "seq": seq,
        "command": command[:4000],
        "session": session,
        "turn": turn,
        "time": time.time(),
        "pid": os.getpid(),
    }
    return seq


def _finish_stale(checkout: Checkout, chain: Chain, kept: Kept, session: str, turn: str, stream: str = "") -> None:
    """Commands whose end no hook reported (refused by the person, a client killed, a turn over), and
    the previous command of `stream`: its client runs the next one only after it ended."""
    now = time.time()
    for hook_id, run in sorted(chain.running.items(), key=lambda item: int(str(item[1].get("seq") or 0))):
        old = now - float(str(run.get("time") or 0)) > STALE
        other_turn = bool(turn) and run.get("session") == session and run.get("turn") not in ("", turn)
        # marked ended by its PostToolUse, whose capture holds the lock until the op is written: seen
        # here, under the lock, that capture died on the way (killed, a helper stopped), so its op is
        # what changed until now
        succeeded = bool(stream) and run.get("stream") == stream
        if old or other_turn or succeeded or run.get("ended"):
            finish(checkout, chain, hook_id, kept)


def finish(checkout: Checkout, chain: Chain, hook_id: str, kept: Kept, command: str = "") -> int | None:
    """The running command `hook_id` ended with the checkout as `kept`: its op is what changed since the
    chain's last state (none when nothing did). Its number, or None."""
    run = chain.running.pop(hook_id, None)
    if chain.last_key == kept.key or not chain.last:
        chain.move(kept)
        return None
    if run is None:  # its start was settled already (or never seen): what changed since is still its own
        title = f"shell: {first_line(command)}" if command else OUTSIDE
        seq = record(checkout, chain, kept, title, command or None, {"hook_id": hook_id})
        chain.move(kept)
        return seq
    others = [str(r.get("command")) for r in chain.running.values()]
    seq = complete(checkout, chain, run, hook_id, kept, others)
    chain.move(kept)
    return seq


def after(checkout: Checkout, *, hook_id: str, command: str = "") -> int | None:
    """Record the op of the shell command `hook_id` that just ended (see `finish`)."""
    store = for_checkout(checkout)
    assert store is not None
    with lock(store, checkout.root):
        return after_locked(checkout, store, hook_id=hook_id, command=command)


def after_locked(
    checkout: Checkout, store: Store, *, hook_id: str, command: str = "", git_present: bool = True
) -> int | None:
    from pylon.workspace.keep.kept import take

    chain = Chain(store, checkout.root)
    kept = take(checkout, store, last=_last(chain), git_present=git_present)
    seq = finish(checkout, chain, hook_id, kept, command)
    chain.save()
    return seq


def settle(checkout: Checkout, *, outside: bool = True) -> dict[str, object] | None:
    """Before a pylon command looks at or changes the checkout: every running command is finished as
    the checkout stands, and what changed since the chain's last state otherwise is an `outside` op.
    With `outside` False (`ws undo`, `ws redo`, `ws log`, the board) that difference is not recorded:
    it is later work, which undo keeps; its summary is returned (None when there is none). Nothing at
    all when the checkout never kept a state."""
    from pylon.workspace.keep.kept import take
    from pylon.workspace.keep.store import of_repo

    store = of_repo(checkout.common_dir)
    if store is None:
        return None
    if not os.path.exists(os.path.join(store.checkout_dir(checkout.root, create=False), CHAIN)):
        return None
    with lock(store, checkout.root):
        chain = Chain(store, checkout.root)
        kept = take(checkout, store, last=_last(chain))
        for hook_id in sorted(chain.running, key=lambda h: int(str(chain.running[h].get("seq") or 0))):
            finish(checkout, chain, hook_id, kept)
        unrecorded: dict[str, object] | None = None
        if chain.last and chain.last_key != kept.key:
            if outside:
                record(checkout, chain, kept, OUTSIDE, None, {})
            else:
                from pylon.workspace.keep.changes import summary

                unrecorded = summary(checkout, store, chain.last, kept)
        if outside or not chain.last:
            chain.move(kept)
        chain.save()
        return unrecorded


def finished(checkout: Checkout, hook_ids: list[str]) -> None:
    """These running commands have ended (their PostToolUse will not come): their ops, as they stand."""
    store = for_checkout(checkout, create=False)
    if store is None:
        return
    with lock(store, checkout.root):
        finished_locked(checkout, store, hook_ids)


def finished_locked(checkout: Checkout, store: Store, hook_ids: list[str] | None, *, git_present: bool = True) -> None:
    """`finished` under the lock already held; `hook_ids` None: every running command. Without
    `git_present`, the checkout is read through the store's copy of a `.git` the command removed."""
    from pylon.workspace.keep.kept import take

    chain = Chain(store, checkout.root)
    ids = [h for h in (list(chain.running) if hook_ids is None else hook_ids) if h in chain.running]
    if not ids:
        return
    kept = take(checkout, store, last=_last(chain), git_present=git_present)
    for hook_id in sorted(ids, key=lambda h: int(str(chain.running[h].get("seq") or 0))):
        finish(checkout, chain, hook_id, kept)
    chain.save()


def after_op(checkout: Checkout, op: Op) -> None:
    """A pylon op of the repository's log finished: every checkout it changed that keeps states moves
    its chain to the state it is in now (the op is what changed it; no shell op repeats it)."""
    from pylon.workspace.keep.store import of_repo

    store = of_repo(checkout.common_dir)
    if store is None:
        return
    roots = {step.root for step in op.steps} | {str(op.record.get("from") or checkout.root)}
    for root in sorted(roots):
        if os.path.exists(os.path.join(store.checkout_dir(root, create=False), CHAIN)) and os.path.isdir(root):
            try:
                moved(root, store)
            except Exception:  # the op is done; the next hook records the difference instead
                pass


def moved(root: str, store: Store) -> None:
    from pylon.workspace.keep.kept import take
    from pylon.workspace.repo import locate

    checkout = locate(root)
    with lock(store, root):
        chain = Chain(store, root)
        chain.move(take(checkout, store, last=_last(chain)))
        chain.save()
