"""`pylon ws redo [--markers]`: reverse the newest undo.

Undo walks back from the newest op; redo walks forward again over the ops undone since the
last op that was not: the most recently undone one first. What it writes is the undo's own change
reversed (the state the undo wrote -> the state it replaced, reverse.carry), merged onto the
checkout as it is now: what was done after the undo is kept, the same as undo keeps what was
done after the op. An op undone by an older pylon (no record of what the undo wrote) is redone
as its own change again (before -> after). Before anything is written the op turns `redoing`
with the state replaced (`redo_from`) and the state to be written (`redo_to`), so a redo killed
half-way is reversed by `ws undo` or completed by `ws undo --finish`; then it is `done` again and
the next undo reverses it as before.
"""

from __future__ import annotations

import os
import time

from pylon.workspace.ops import oplog
from pylon.workspace.ops.undo import (
    _carry_all,
    _commits,
    _history,
    _kept,
    _pairs,
    _refuse_busy,
    _result,
    _write_all,
    step_pairs,
)
from pylon.workspace.ops.undo_capture import capture_steps
from pylon.workspace.repo import Checkout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.ops.undo import Pair


def candidate(ops: list[oplog.Op]) -> oplog.Op | None:
    """The op redo would bring back: the oldest of the undone ops that come after every op still in
    effect (undo walks newest first, so that is the one undone last). Ops closed before they wrote
    anything (`abandoned`) are passed over."""
    found = None
    for op in ops:
        if op.status != "undone":
            break
        if not op.record.get("abandoned"):
            found = op
    return found


def redo(checkout: Checkout, *, markers: bool = False) -> dict[str, object]:
    from pylon.errors import NotFoundError, PylonError

    with oplog.op_lock(checkout):
        oplog.check_clear(checkout)
        from pylon.workspace.ops.undo import mine

        op = candidate([o for o in oplog.entries(checkout) if mine(checkout, o) and o.status != "running"])
        if op is None:
            raise NotFoundError(
                "nothing-to-redo",
                "No undo is left to redo: every op after the last one in effect "
                "is done (a new op after an undo ends what redo can walk).",
                "See the timeline with `pylon ws log`; `pylon ws restore op-N:before-undo` brings "
                "back the state any undo replaced.",
            )
        if op.home:
            from pylon.workspace.ops.shellop import redo_shell

            return redo_shell(checkout, op, markers=markers)
        if op.record.get("module"):
            raise PylonError(
                "redo-unsupported",
                f"`{op.title}` (op {op.seq}) is not made of restores, so redo cannot carry it again.",
                f"Run the command again: {op.record.get('command') or op.title}",
                details={"op": op.seq, "kind": op.kind},
            )
        gone = [step.root for step in op.steps if not os.path.isdir(step.root)]
        if gone:
            raise PylonError(
                "checkout-gone",
                f"`{op.title}` (op {op.seq}) changed {gone[0]}, which no longer exists; "
                "it cannot be redone there. Nothing was changed.",
                "Recreate that worktree at the same path, or leave this op.",
                details={"op": op.seq, "paths": gone},
            )
        _refuse_busy(op)
        currents = capture_steps(op, to_after=True)
        pairs: list[Pair] = (
            _pairs(op, "undo_to", "undo_from") if op.record.get("undo_to") else step_pairs(checkout, op, forward=True)
        )
        outcomes = _carry_all(checkout, op, pairs, currents, markers=markers, verb="redo")
        oplog.set_status(
            checkout,
            op,
            "redoing",
            **_history(op),
            redo_from=_commits(currents),
            redo_to={root: o.target for root, o in outcomes.items()},
            redo_kept=_kept(outcomes),
        )
        _write_all(checkout, op, outcomes, currents, "undone")
        oplog.set_status(checkout, op, "done", redone_at=time.time_ns())
    return _result(op, "undone", "redone", outcomes)
