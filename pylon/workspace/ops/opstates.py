"""The states an op of the log keeps, by name: `op-<n>[:SIDE]` for `pylon ws restore` and `ws log`.

    before        the checkout as the op found it (the default)
    after         the checkout as the op left it (a PATH restore: `before` with those paths restored)
    before-undo   the checkout as its last undo found it (what the undo replaced)
    before-redo   the checkout as its last redo found it
    session       what a session removed by `ws rm --force` or `ws finish` held: its state (files,
                  untracked ones, bits, empty folders), restored into the checkout it runs in

An op that changed several checkouts (`move --back`) keeps one state per checkout: the name
resolves to this checkout's.
"""

from __future__ import annotations

import os

from pylon.workspace.ops import oplog
from pylon.workspace.repo import Checkout

SIDES = ("before", "after", "before-undo", "before-redo", "session")
_RECORDED = {"before-undo": "undo_from", "before-redo": "redo_from"}


def _bad(name: str, why: str, hint: str) -> Exception:
    from pylon.errors import NotFoundError

    return NotFoundError("unknown-snapshot", f"No kept state is named {name!r}: {why}.", hint)


def parse(name: str) -> tuple[int, str]:
    seq, _, side = name[len("op-") :].partition(":")
    if not seq.isdigit() or (side and side not in SIDES):
        raise _bad(name, f"an op state is op-<n> or op-<n>:{'|'.join(SIDES)}", "See the names with `pylon ws log`.")
    return int(seq), side or "before"


def same_root(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def resolve_op(checkout: Checkout, name: str, found: oplog.Op | None = None) -> tuple[str, str]:
    """(the op's ref, a state commit of this checkout) for `op-<n>[:SIDE]`; `found`: that op, when
    the caller read it from the log already."""
    seq, side = parse(name)
    op = found if found is not None and found.seq == seq else oplog.get(checkout, seq)
    if op is None:
        raise _bad(name, f"the op log has no op {seq}", "See the op log with `pylon ws log`.")
    if side == "session":
        state = op.data.get("state") if op.kind in ("rm", "finish") else None
        if not state:
            raise _bad(name, f"op {seq} (`{op.title}`) removed no session", "See the names with `pylon ws log`.")
        return op.ref, str(state)
    step = next((s for s in op.steps if same_root(s.root, checkout.root)), None)
    if step is None and len(op.steps) == 1 and not os.path.isdir(op.steps[0].root):
        step = op.steps[0]  # its checkout is gone (a removed session): its states come back here
    if step is None:
        roots = sorted({s.root for s in op.steps})
        hint = (
            f"Run it in the checkout the op changed: pylon -C {roots[0]} ws restore {name}"
            if roots
            else f"`{op.title}` keeps no state of a checkout; see `pylon ws log`."
        )
        raise _bad(name, f"op {seq} (`{op.title}`) did not change this checkout", hint)
    if side in _RECORDED:
        kept = op.record.get(_RECORDED[side]) or {}
        commit = next((oid for root, oid in kept.items() if same_root(root, checkout.root)), None)
        if not commit:
            raise _bad(name, f"op {seq} was never {side.split('-')[1]}ne here", "See the op log with `pylon ws log`.")
        return op.ref, str(commit)
    if side == "before":
        return op.ref, step.before
    if not step.paths:
        return op.ref, step.after
    from pylon.workspace.ops.restore_state import make_state
    from pylon.workspace.ops.reverse import step_states

    _before, after = step_states(checkout, step)
    return op.ref, make_state(
        checkout,
        worktree=after.worktree,
        index_tree=after.index_tree,
        head=after.head,
        branch=after.branch,
        label=f"after op {seq}",
    )
